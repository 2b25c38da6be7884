"""eltwise_gpu_wg (GPU tier, forced) vs the float64 eltwise reference: every mode over 2-3 inputs, broadcasting,
coefficients, i32, formats, shapes with tails of the 256-wide work-group; a fused activation; GPU_LIKE selection."""

from __future__ import annotations

import numpy as np
import pytest

import cldnn_py as cl
from cldnn_py.layout import DataType, Format, Layout
from kernel_selector import Params, selector
from kernel_selector.device_caps import GPU_LIKE
from tests.helpers import assert_close, f32, run_single, typed_attrs
from tests.ocl.gpu_tier import run_gpu_padded
from tests.references import eltwise_inputs, eltwise_ref

E = cl.EltwiseMode
K = "eltwise_gpu_wg"
GPU = cl.BuildOptions(kernel_tier="gpu", force_implementations={"elt": K})


@pytest.fixture
def engine(ocl_engine):
    return ocl_engine


def _run(engine, arrays, mode, **kw):
    names = [f"in{i}" for i in range(len(arrays))]
    return run_single(engine, cl.Eltwise("elt", names, mode=mode, **kw), dict(zip(names, arrays)), options=GPU)


@pytest.mark.ocl_every(2)
@pytest.mark.parametrize("mode", list(E), ids=lambda m: m.value)
@pytest.mark.parametrize("n_inputs", [2, 3])
def test_modes(engine, rng, mode, n_inputs):
    arrays = eltwise_inputs(rng, [(1, 19, 7, 9)] * n_inputs, mode)
    assert_close(_run(engine, arrays, mode), eltwise_ref(arrays, mode))


@pytest.mark.ocl_every(2)
@pytest.mark.parametrize("shapes", [[(2, 3, 5, 5), (1, 3, 1, 1)], [(2, 1, 4, 1), (1, 3, 1, 5)],
                                    [(3, 1, 5), (4, 1), (1,), (3, 4, 5)], [(1,), (1,)]],
                         ids=lambda s: "+".join("x".join(map(str, t)) for t in s))
@pytest.mark.parametrize("mode", [E.sub, E.max, E.pow, E.prelu])
def test_broadcast(engine, rng, shapes, mode):
    arrays = eltwise_inputs(rng, shapes, mode)
    assert_close(_run(engine, arrays, mode), eltwise_ref(arrays, mode))


def test_sum_coefficients(engine, rng):
    shapes = [(1, 3, 1, 1), (2, 3, 5, 5), (5,)]
    arrays = eltwise_inputs(rng, shapes, E.sum)
    coeffs = [float(c) for c in rng.uniform(-2, 2, len(shapes))]
    assert_close(_run(engine, arrays, E.sum, coefficients=coeffs), eltwise_ref(arrays, E.sum, coeffs))


@pytest.mark.parametrize("mode", [E.sum, E.prod, E.div, E.max])
def test_int32(engine, rng, mode):
    a = rng.integers(-50, 50, (2, 3, 5, 5)).astype(np.int32)
    b = rng.integers(1, 9, (2, 3, 5, 5)).astype(np.int32) * rng.choice([-1, 1], (2, 3, 5, 5)).astype(np.int32)
    out = _run(engine, [a, b], mode)
    ref = {E.sum: a + b, E.prod: a * b, E.div: np.trunc(a / b).astype(np.int32), E.max: np.maximum(a, b)}[mode]
    np.testing.assert_array_equal(out, ref)


def test_blocked_format(engine, rng):
    xs = [f32(rng.standard_normal((2, 19, 3, 5))) for _ in range(2)]
    names = ["in0", "in1"]
    out = run_single(engine, cl.Eltwise("elt", names, mode="sum"), dict(zip(names, xs)), fmt=cl.Format.b_fs_yx_fsv16,
                     out_fmt=cl.Format.bfyx, options=GPU)
    assert_close(out, eltwise_ref(xs, E.sum))


def test_fused_activation(engine, rng):
    xs = [f32(rng.standard_normal((1, 19, 7, 9))) for _ in range(2)]
    t = cl.Topology()
    for i, x in enumerate(xs):
        t.add(cl.InputLayout(f"x{i}", cl.Layout(cl.DataType.f32, cl.Format.bfyx, x.shape)))
    t.add(cl.Eltwise("elt", ["x0", "x1"], mode="prod"))
    t.add(cl.Activation("relu", "elt", func="relu"))
    net = cl.Network(cl.Program(engine, t, cl.BuildOptions(kernel_tier="gpu")))  # forced nodes do not fuse
    node = net.program.node("elt")
    assert node.impl.kernel_name == K and net.program.node("relu") is node
    net.poison()
    out = net.run({"x0": xs[0], "x1": xs[1]})["relu"]
    assert_close(out, np.maximum(eltwise_ref(xs, E.prod), 0))


def test_selected_on_described_gpu():
    lay = Layout(DataType.f32, Format.bfyx, (1, 64, 56, 56))
    params = Params("eltwise", "ocl", [lay, lay], lay, typed_attrs("eltwise", {"mode": "sum"}), caps=GPU_LIKE,
                    kernel_tier="gpu")
    assert selector.select(params)[0].name == K


@pytest.mark.parametrize("shapes", [[(2, 3, 2, 3, 5)] * 2, [(2, 2, 3, 2, 3, 2), (1,)]], ids=["rank5", "rank6"])
def test_rank5_6(engine, rng, shapes):
    arrays = eltwise_inputs(rng, shapes, E.sum)
    assert_close(_run(engine, arrays, E.sum), eltwise_ref(arrays, E.sum))


def test_padded_buffers(engine, rng, monkeypatch):
    shape = (2, 19, 3, 5)
    la = cl.Layout(cl.DataType.f32, cl.Format.b_fs_yx_fsv16, shape, cl.Padding((0, 0, 1, 2), (1, 0, 2, 0)))
    lb = cl.Layout(cl.DataType.f32, cl.Format.bfyx, (1, 19, 1, 1), cl.Padding((1, 2, 0, 1), (0, 3, 1, 1)))
    lout = cl.Layout(cl.DataType.f32, cl.Format.byxf, shape, cl.Padding((1, 2, 0, 1), (0, 3, 1, 1)))
    a, b = f32(rng.standard_normal(shape)), f32(rng.standard_normal((1, 19, 1, 1)))
    out = run_gpu_padded(monkeypatch, engine, "eltwise", [la, lb], lout, {"mode": "prelu"}, [a, b], kernel=K)
    assert_close(out, eltwise_ref([a, b], E.prelu))
