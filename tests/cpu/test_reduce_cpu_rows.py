"""reduce_cpu_rows vs float64 numpy (tests/references.py reduce_ref) on fresh random data, forced on physical
buffers whose output is NaN-poisoned (kernel_harness): every mode, keep_dims both ways, every axis, the trailing
axes, the spatial axes, the channel axis, a middle axis, separate runs of axes, ranks 1-6, odd sizes, sizes large
enough for the chunked (parallel) passes, NaN propagation of max / min, a padded output; that the selector picks it
unforced, and what validate() refuses."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

import cldnn_py as cl
from cldnn_py.layout import DataType, Format, Layout, Padding
from cldnn_py.ops import FusedActivationAttrs
from cldnn_py.primitives.reduce import Reduce
from kernel_selector.kernels.reduce.reduce_kernel_cpu_rows import ReduceKernelCpuRows, plan
from kernel_selector.params import FusedOp, Params
from kernel_selector.selector import selector
from tests.cpu.kernel_harness import run_kernel
from tests.helpers import f32, typed_attrs
from tests.references import reduce_ref

K = "reduce_cpu_rows"
MODES = ["mean", "sum", "max", "min", "prod"]

CASES = [
    # shape, axes: the case's name says which path of the kernel it takes
    ((2, 7, 5, 6), ()),                 # every axis: one row
    ((3, 4, 5, 7), (3,)),               # last axis: rows
    ((2, 3, 5, 9), (2, 3)),             # spatial axes of NCHW: global pooling rows
    ((2, 19, 5, 3), (1,)),              # channel axis: columns
    ((1, 37, 11, 13), (1,)),            # channel axis, N = 1: column blocks
    ((3, 5, 7, 2, 3), (2,)),            # a middle axis of rank 5
    ((4, 6, 5, 3), (1, 3)),             # two separate runs: two passes
    ((3, 5, 2, 7), (0, 2)),             # leading and middle runs
    ((5, 1, 7, 1), (1, 2)),             # size-1 axes merge away
    ((6, 1, 3), (1,)),                  # only a size-1 axis reduced: a copy
    ((17,), (0,)),                      # rank 1
    ((9, 13), (0,)),                    # rank 2, columns
    ((9, 13), (-1,)),                   # rank 2, rows, negative axis
    ((2, 3, 2, 2, 3, 5), (1, 4)),       # rank 6
    ((2, 3, 2, 2, 3, 5), (5, 2, 0)),    # rank 6, three runs
]


def _run(engine, x: np.ndarray, mode: str, axes: tuple[int, ...], keep: bool,
         out_pad: Padding | None = None) -> tuple[np.ndarray, str]:
    prim = Reduce("r", "x", mode=mode, axes=axes, keep_dims=keep)
    lin = Layout(DataType.f32, Format.bfyx, x.shape)
    lout = prim.calc_output_layout([lin])
    if out_pad is not None:
        lout = lout.with_(padding=out_pad)
    return run_kernel(engine, "reduce", [lin], lout, dataclasses.asdict(prim.attrs()), [x], K)


def _data(rng, shape, mode) -> np.ndarray:
    if mode == "prod":  # factors near 1 in size (closer for more factors), random signs: no overflow or underflow
        s = min(0.25, 2.0 / np.sqrt(np.prod(shape)))
        return f32(rng.uniform(1 - s, 1 + s, shape) * rng.choice([-1.0, 1.0], shape))
    return f32(rng.standard_normal(shape) * 3 + 0.5)


def _check(got: np.ndarray, x: np.ndarray, mode: str, axes, keep: bool) -> None:
    ref = reduce_ref(x, mode, axes, keep)
    assert got.shape == ref.shape, (got.shape, ref.shape)
    assert not np.isnan(got).any(), "an output element was not written"
    if mode in ("max", "min"):
        np.testing.assert_array_equal(got, ref.astype(np.float32))
    else:  # float64 accumulation: within float32 rounding of the float64 reference; a sum near 0 by the terms' size
        scale = np.abs(x).astype(np.float64)
        if mode == "mean":
            scale = reduce_ref(scale, "mean", axes, keep)
        elif mode == "sum":
            scale = reduce_ref(scale, "sum", axes, keep)
        else:
            scale = np.abs(ref)
        np.testing.assert_array_less(np.abs(got.astype(np.float64) - ref), 1e-6 * scale + 1e-30)


@pytest.mark.parametrize("keep", [True, False], ids=["keep", "drop"])
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize(("shape", "axes"), CASES, ids=[f"{s}-ax{a}" for s, a in CASES])
def test_matches_reference(cpu_engine, rng, shape, axes, mode, keep):
    x = _data(rng, shape, mode)
    got, pick = _run(cpu_engine, x, mode, axes, keep)
    _check(got, x, mode, axes, keep)
    assert pick == K


LARGE = [
    ((1, 64, 55, 55), ()),       # DynamicQuantizeLinear's min / max: 11 chunks, then a combining pass
    ((2, 40, 33, 31), (1,)),     # channel axis, columns in blocks of 64+ over 2046 pixels
    ((1, 16, 4099), (0, 1)),     # columns, N = 1 after merging: 29 column blocks
    ((1, 30011, 3), (1,)),       # three long columns: chunks of the reduced range, then a combining pass
    ((3, 50003), (1,)),          # three long rows, chunked
    ((2, 6, 3001, 7), (0, 2)),   # two runs, the first chunked
]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize(("shape", "axes"), LARGE, ids=[f"{s}-ax{a}" for s, a in LARGE])
def test_large_parallel_passes(cpu_engine, rng, shape, axes, mode):
    """Sizes above PARALLEL_MIN_WORK (numba's pool), chunked reduced ranges whose partial results are combined."""
    x = _data(rng, shape, mode)
    got, pick = _run(cpu_engine, x, mode, axes, False)
    _check(got, x, mode, axes, False)
    assert pick == K


def test_plans_cover_the_paths():
    """The large cases above take the chunked and multi-pass paths they are meant to (a guard for the tests)."""
    assert [g[4] for g in plan((1, 64, 55, 55), (0, 1, 2, 3))] == [11, 1]
    assert [g[5] for g in plan((1, 16, 4099), (0, 1))] == [144]  # column blocks, no chunks
    assert [g[4] for g in plan((1, 30011, 3), (1,))] == [5, 1]  # chunked columns + combine
    assert len(plan((2, 6, 3001, 7), (0, 2))) >= 2
    assert len(plan((2, 3, 2, 2, 3, 5), (0, 2, 5))) == 3
    assert plan((6, 1, 3), (1,))[0].tolist()[:3] == [18, 1, 1]


@pytest.mark.parametrize("mode", ["max", "min"])
@pytest.mark.parametrize(("shape", "axes", "where"), [
    ((1000,), (), 0),                  # first element: in the vector part
    ((1000,), (), 999),                # the scalar tail
    ((3, 71), (1,), (1, 40)),          # one row of several
    ((2, 37, 23), (1,), (1, 36, 5)),   # a column (last row folded)
    ((2, 37, 23), (1,), (0, 0, 22)),   # a column (the first row, copied), the block's tail
    ((1, 64, 55, 55), (), (0, 63, 54, 54)),  # a chunk of the parallel pass
])
def test_max_min_propagate_nan(cpu_engine, rng, mode, shape, axes, where):
    """As numpy (and reduce_cpu_ref): a NaN in the reduced set makes that result NaN; the others stay exact."""
    x = f32(rng.standard_normal(shape))
    x[where] = np.nan
    got, _ = _run(cpu_engine, x, mode, axes, True)
    ref = reduce_ref(x, mode, axes, True).astype(np.float32)
    assert np.array_equal(np.isnan(got), np.isnan(ref)) and np.isnan(ref).any()
    np.testing.assert_array_equal(got[~np.isnan(ref)], ref[~np.isnan(ref)])


@pytest.mark.parametrize("mode", ["sum", "max"])
def test_infinities(cpu_engine, mode):
    """±inf inputs: max of -inf only is -inf; a sum with +inf and -inf is NaN, as numpy."""
    x = np.full((2, 50), -np.inf, np.float32)
    x[1, 7] = np.inf
    got, _ = _run(cpu_engine, x, mode, (1,), False)
    with np.errstate(invalid="ignore"):
        ref = reduce_ref(x, mode, (1,), False).astype(np.float32)
    np.testing.assert_array_equal(got, ref)


@pytest.mark.parametrize(("mode", "axes", "keep"), [("mean", (1,), True), ("max", (2, 3), False)])
def test_padded_output(cpu_engine, rng, mode, axes, keep):
    """A padded bfyx output gets its logical elements; the harness checks the padding's sentinel survives."""
    x = _data(rng, (2, 19, 4, 9), mode)
    pad = Padding((0, 1, 0, 2), (1, 0, 0, 1)) if keep else Padding((0, 1, 0, 0), (1, 2, 0, 0))
    got, _ = _run(cpu_engine, x, mode, axes, keep, out_pad=pad)
    _check(got, x, mode, axes, keep)


def _params(engine, shape, axes=(1,), fmt=Format.bfyx, dtype=DataType.f32, pad=None, fused=None):
    prim = Reduce("r", "x", mode="sum", axes=axes, keep_dims=True)
    lin = Layout(dtype, fmt, shape, pad or Padding())
    lout = prim.calc_output_layout([Layout(DataType.f32, Format.bfyx, shape)])
    return Params("reduce", engine.kind, [lin], lout, typed_attrs("reduce", prim.attrs()), fused or [], "r",
                  engine.info)


def test_refusals_leave_the_reference(cpu_engine):
    """Blocked or other formats, a padded input, f16 storage (the reference takes f32 only), fused ops, invalid
    axes: refused by the key or validate(); reduce_cpu_ref runs where it can."""
    k = ReduceKernelCpuRows()
    shape = (2, 19, 4, 5)
    assert selector.select(_params(cpu_engine, shape))[0].name == K
    for p in [_params(cpu_engine, shape, fmt=Format.byxf), _params(cpu_engine, shape, fmt=Format.b_fs_yx_fsv16),
              _params(cpu_engine, shape, pad=Padding((0, 0, 1, 1), (0, 0, 1, 1)))]:
        assert k.supported_key().mismatch(p, k.n_data_inputs) is not None
        assert selector.select(p)[0].name == "reduce_cpu_ref"
    assert "f16" in (k.supported_key().mismatch(_params(cpu_engine, shape, dtype=DataType.f16)) or "")
    relu = FusedOp("activation", FusedActivationAttrs("relu"))
    assert k.validate(_params(cpu_engine, shape, fused=[relu])) == "fused ops are not supported"
    good = _params(cpu_engine, shape)
    bad = Params("reduce", "cpu", good.inputs, good.output, typed_attrs("reduce", {"axes": (1, -3)}), [], "r",
                 cpu_engine.info)
    assert "twice" in (k.validate(bad) or "")


def test_network_picks_it(cpu_engine, rng):
    """Through a Program on the CPU engine (no forcing), a channel mean runs reduce_cpu_rows and matches."""
    x = f32(rng.standard_normal((2, 5, 6, 7)))
    topo = cl.Topology()
    topo.add(cl.InputLayout("x", cl.Layout(cl.DataType.f32, cl.Format.bfyx, x.shape)))
    topo.add(Reduce("r", "x", mode="mean", axes=(1,), keep_dims=False))
    net = cl.Network(cl.Program(cpu_engine, topo, cl.BuildOptions()))
    net.poison()
    out = net.run({"x": x})["r"]
    assert net.program.nodes["r"].impl.kernel_name == K
    _check(out, x, "mean", (1,), False)
