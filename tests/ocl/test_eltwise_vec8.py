"""eltwise_vec8 (float8 eltwise over same-shape f32 tensors) vs the float64 numpy reference (tests/references.py).

Flat variant: unpadded layouts without block tails (bfyx, byxf, fsv16 with C % 16 == 0), element counts that leave
a tail of 1-7 floats (and fewer than 8 in all). fsv16 variant: padded buffers through run_kernel_padded (input
padding and block tails NaN, output padding and block tail keep their sentinel), channel counts not multiples of
16, batch 2, odd widths. Every case asserts the selector picks the kernel on its own; pow and broadcasting must go
to eltwise_ref with a reason.
"""

from __future__ import annotations

import numpy as np
import pytest

import cldnn_py as cl
from cldnn_py.layout import DataType, Format, Layout, Padding
from kernel_selector import Params, selector
from tests.helpers import assert_close, cpu_tier, f32, typed_attrs
from tests.ocl.padded import run_kernel_padded
from tests.references import eltwise_inputs, eltwise_ref

E = cl.EltwiseMode


@pytest.fixture
def engine(ocl_engine):
    """OpenCL only: these tests are about OpenCL kernels (the CPU engine's are tested in tests/cpu/)."""
    return ocl_engine


FAST = "eltwise_vec8"
MODES = [E.sum, E.sub, E.prod, E.div, E.max, E.min, E.prelu]


def _run(engine, layouts, out_layout, attrs, arrays):
    params = Params("eltwise", engine.kind, layouts, out_layout, typed_attrs("eltwise", attrs),
                    layer_id="elt", device=engine.info)
    assert selector.select(params)[0].name == FAST  # chosen on its own, not forced
    return run_kernel_padded(engine, "eltwise", layouts, out_layout, attrs, arrays, kernel=FAST)


@pytest.mark.ocl_every(2)
@pytest.mark.parametrize("mode", MODES, ids=lambda m: m.value)
@pytest.mark.parametrize("fmt, shape, n", [(Format.bfyx, (2, 5, 3, 7), 2), (Format.byxf, (1, 3, 1, 5), 3),
                                           (Format.b_fs_yx_fsv16, (2, 32, 3, 5), 2)],
                         ids=["bfyx-tail2", "byxf-count5", "fsv16-flat"])
def test_flat_matches_reference(engine, rng, mode, fmt, shape, n):
    arrays = eltwise_inputs(rng, [shape] * n, mode)
    lay = Layout(DataType.f32, fmt, shape)
    out = _run(engine, [lay] * n, lay, {"mode": mode.value}, arrays)
    assert_close(out, eltwise_ref(arrays, mode))


FSV16 = [
    # mode, (N, C, H, W), input paddings (one per input), output padding, coefficients
    (E.sub, (2, 21, 5, 7), [((0, 0, 1, 0), (0, 0, 0, 2)), ((1, 0, 0, 0), (0, 0, 2, 1))], ((0, 0, 1, 1), (0, 0, 1, 1)),
     None),
    (E.max, (2, 19, 3, 9), [((0, 0, 0, 0), (0, 0, 0, 0))] * 3, ((0, 0, 0, 2), (1, 0, 0, 0)), None),
    (E.prelu, (1, 40, 4, 3), [((0, 0, 2, 2), (0, 0, 2, 2)), ((0, 0, 0, 0), (0, 0, 0, 0))],
     ((0, 0, 0, 0), (0, 0, 0, 0)), None),
    (E.sum, (2, 7, 5, 6), [((0, 0, 0, 1), (0, 0, 1, 0))] * 3, ((0, 0, 2, 0), (0, 0, 0, 0)), (0.5, -1.25, 2.0)),
]


@pytest.mark.parametrize("case", FSV16, ids=lambda c: f"{c[0].value}-{c[1]}-n{len(c[2])}")
def test_fsv16_padded_matches_reference(engine, rng, case):
    mode, shape, in_pads, out_pad, coeffs = case
    arrays = eltwise_inputs(rng, [shape] * len(in_pads), mode)
    ins = [Layout(DataType.f32, Format.b_fs_yx_fsv16, shape, Padding(*p)) for p in in_pads]
    lout = Layout(DataType.f32, Format.b_fs_yx_fsv16, shape, Padding(*out_pad))
    attrs = {"mode": mode.value, "coefficients": coeffs}
    out = _run(engine, ins, lout, attrs, arrays)
    assert_close(out, eltwise_ref(arrays, mode, coeffs))


def test_max_min_keep_fmax_nan_rule(engine, rng):
    """A NaN operand loses (fmax / fmin, as eltwise_ref), whichever side it is on."""
    a, b = f32(rng.standard_normal((1, 2, 3, 5))), f32(rng.standard_normal((1, 2, 3, 5)))
    a.flat[::4] = np.nan
    b.flat[1::3] = np.nan
    lay = Layout(DataType.f32, Format.bfyx, a.shape)
    for mode, ref in ((E.max, np.fmax), (E.min, np.fmin)):
        params = Params("eltwise", engine.kind, [lay, lay], lay, typed_attrs("eltwise", {"mode": mode.value}),
                        device=engine.info)
        assert selector.select(params)[0].name == FAST
        net_out = run_kernel_padded(engine, "eltwise", [lay, lay], lay, {"mode": mode.value}, [a, b], kernel=FAST)
        np.testing.assert_array_equal(net_out, ref(a, b))


def test_fsv16_fused_activation_in_a_network(engine, rng):
    """Two fsv16 inputs summed, relu fused into the eltwise (FUSED_OPS8)."""
    xs = [f32(rng.standard_normal((2, 21, 5, 7))) for _ in range(2)]
    t = cl.Topology()
    for i, x in enumerate(xs):
        t.add(cl.InputLayout(f"h{i}", cl.Layout(cl.DataType.f32, cl.Format.bfyx, x.shape)))
        t.add(cl.Reorder(f"x{i}", f"h{i}", cl.Format.b_fs_yx_fsv16))
    t.add(cl.Eltwise("sum", ["x0", "x1"], mode="sum"))
    t.add(cl.Activation("relu", "sum", func="relu"))
    t.add(cl.Reorder("out", "relu", cl.Format.bfyx))
    net = cl.Network(cl.Program(engine, t, cpu_tier()))
    node = net.program.node("sum")
    assert node.impl.kernel_name == FAST and net.program.node("relu") is node
    net.poison()
    out = net.run({"h0": xs[0], "h1": xs[1]})["out"]
    assert_close(out, np.maximum(eltwise_ref(xs, E.sum), 0))


@pytest.mark.parametrize("mode", [E.prod, E.sum, E.sub], ids=lambda m: m.value)
@pytest.mark.parametrize("shape, first", [((1, 24, 5, 9), False), ((2, 16, 3, 2), True), ((1, 37, 1, 6), False)])
def test_fsv16_per_channel_operand(engine, rng, mode, shape, first):
    """A squeeze-excitation scale: an (N, C, 1, 1) operand broadcast over the pixels, first or second, in
    b_fs_yx_fsv16 with a padded data input; channel tails."""
    n, c = shape[:2]
    data = Layout(DataType.f32, Format.b_fs_yx_fsv16, shape, Padding((0, 0, 1, 0), (0, 0, 0, 2)))
    scale = Layout(DataType.f32, Format.b_fs_yx_fsv16, (n, c, 1, 1))
    out = Layout(DataType.f32, Format.b_fs_yx_fsv16, shape)
    x, s = f32(rng.standard_normal(shape)), f32(rng.standard_normal((n, c, 1, 1)))
    lays, arrays = ([scale, data], [s, x]) if first else ([data, scale], [x, s])
    got = _run(engine, lays, out, {"mode": mode.value}, arrays)
    assert_close(got, eltwise_ref(arrays, mode))


@pytest.mark.ocl_every(2)
@pytest.mark.parametrize("mode", [E.div, E.sub, E.prod, E.max], ids=lambda m: m.value)
@pytest.mark.parametrize("shape, first", [((1, 5, 9, 7), False), ((3, 2), True), ((1, 197, 13), False)],
                         ids=["tail3", "count6", "tokens"])
def test_flat_scalar_operand(engine, rng, mode, shape, first):
    """A one-element operand (GELU's x / sqrt(2), attention's scale) broadcast to every element, first or second,
    in the flat variant; counts with a tail and below one float8."""
    data = Layout(DataType.f32, Format.bfyx, shape)
    one = Layout(DataType.f32, Format.bfyx, (1,))
    x, c = f32(rng.standard_normal(shape)), f32(rng.uniform(0.5, 2.0, (1,)))
    lays, arrays = ([one, data], [c, x]) if first else ([data, one], [x, c])
    got = _run(engine, lays, data, {"mode": mode.value}, arrays)
    assert_close(got, eltwise_ref(arrays, mode))


@pytest.mark.parametrize("mode", [E.div, E.max, E.min, E.sub], ids=lambda m: m.value)
@pytest.mark.parametrize("shape, first", [((1, 72, 5, 9), False), ((2, 16, 3, 2), True)], ids=["tail8", "batch2"])
def test_fsv16_scalar_operand_padded_output(engine, rng, mode, shape, first):
    """A dynamic quantization's x / s and its clamp bounds: a one-element operand broadcast, first or second, in
    the b_fs_yx_fsv16 variant, padded input and output (the halo a 3x3 convolution reads; sentinel kept)."""
    data = Layout(DataType.f32, Format.b_fs_yx_fsv16, shape, Padding((0, 0, 1, 0), (0, 0, 0, 2)))
    out = Layout(DataType.f32, Format.b_fs_yx_fsv16, shape, Padding((0, 0, 1, 1), (0, 0, 1, 1)))
    one = Layout(DataType.f32, Format.bfyx, (1,))
    x, c = f32(rng.standard_normal(shape)), f32(rng.uniform(0.5, 2.0, (1,)))
    lays, arrays = ([one, data], [c, x]) if first else ([data, one], [x, c])
    got = _run(engine, lays, out, {"mode": mode.value}, arrays)
    assert_close(got, eltwise_ref(arrays, mode))


@pytest.mark.parametrize("shape, row, first", [((1, 21, 24), (24,), False), ((2, 3, 5, 16), (1, 5, 16), True),
                                               ((3, 40), (1, 40), False)], ids=["bias", "two-dims", "rank2"])
@pytest.mark.parametrize("mode", [E.sum, E.prod, E.sub], ids=lambda m: m.value)
def test_flat_row_operand(engine, rng, shape, row, first, mode):
    """An operand broadcast along the leading axes (a bias added to a (1, T, C) MatMul result), first or second;
    row counts that are multiples of 8 (so every output is whole float8s)."""
    data = Layout(DataType.f32, Format.bfyx, shape)
    r = Layout(DataType.f32, Format.bfyx, row)
    x, b = f32(rng.standard_normal(shape)), f32(rng.standard_normal(row))
    lays, arrays = ([r, data], [b, x]) if first else ([data, r], [x, b])
    got = _run(engine, lays, data, {"mode": mode.value}, arrays)
    assert_close(got, eltwise_ref(arrays, mode))


def test_rejects_pow_and_broadcasting():
    """pow needs the pow() builtin; a broadcast operand that is not per channel in b_fs_yx_fsv16: eltwise_ref runs
    both."""
    lay = Layout(DataType.f32, Format.bfyx, (1, 3, 4, 5))
    params = Params("eltwise", "ocl", [lay, lay], lay, typed_attrs("eltwise", {"mode": "pow"}))
    verdicts = {v.kernel: v.reason for v in selector.explain(params)}
    assert "pow" in verdicts[FAST] and verdicts["eltwise_ref"] is None
    small = Layout(DataType.f32, Format.bfyx, (1, 3, 1, 1))
    params = Params("eltwise", "ocl", [lay, small], lay, typed_attrs("eltwise", {"mode": "sum"}))
    verdicts = {v.kernel: v.reason for v in selector.explain(params)}
    assert "broadcasting" in verdicts[FAST] and verdicts["eltwise_ref"] is None
