"""activation_gpu_wg (GPU tier, forced) vs the float64 references: every ActivationFunc case of test_activation.py,
formats, padded buffers, a shape whose count is no multiple of 256; GPU_LIKE selection."""

from __future__ import annotations

import numpy as np
import pytest

import cldnn_py as cl
from cldnn_py.layout import DataType, Format, Layout
from kernel_selector import Params, selector
from kernel_selector.device_caps import GPU_LIKE
from tests.helpers import f32, run_topology, typed_attrs
from tests.ocl.activation_cases import CASES, DEFAULT_TOL, RANGES, REFS
from tests.ocl.gpu_tier import run_gpu_padded

K = "activation_gpu_wg"


@pytest.fixture
def engine(ocl_engine):
    return ocl_engine


@pytest.mark.parametrize("fmt", [cl.Format.bfyx, cl.Format.b_fs_yx_fsv16])
def test_every_function(engine, rng, fmt):
    shape = (1, 19, 7, 9)
    feeds = {name: f32(gen(rng, shape)) for name, gen in RANGES.items()}
    topo = cl.Topology()
    for name in RANGES:
        topo.add(cl.InputLayout(name, cl.Layout(cl.DataType.f32, cl.Format.bfyx, shape)))
        topo.add(cl.Reorder(f"{name}_{fmt.value}", name, fmt))
    for i, (func, a, b, rng_name, _) in enumerate(CASES):
        topo.add(cl.Activation(f"act{i}", f"{rng_name}_{fmt.value}", func=func, a=a, b=b))
    opts = cl.BuildOptions(kernel_tier="gpu", force_implementations={f"act{i}": K for i in range(len(CASES))})
    outs = run_topology(engine, topo, feeds, opts)
    failures = []
    for i, (func, a, b, rng_name, tol) in enumerate(CASES):
        out = outs[f"act{i}"]
        rtol, atol = tol or DEFAULT_TOL
        x = feeds[rng_name].astype(np.float64)
        ref = REFS[func](x, a, b)
        assert out.shape == shape and out.dtype == np.float32
        bad = ~np.isclose(out.astype(np.float64), ref, rtol=rtol, atol=atol)
        if bad.any():
            failures.append(f"{func.value}(a={a}, b={b}) on '{rng_name}': {bad.sum()} of {bad.size} mismatch")
    assert not failures, "\n".join(failures)


def test_padded_buffers(engine, rng, monkeypatch):
    shape = (2, 3, 5, 5)
    lin = cl.Layout(cl.DataType.f32, cl.Format.b_fs_yx_fsv16, shape, cl.Padding((0, 0, 1, 2), (1, 0, 2, 0)))
    lout = cl.Layout(cl.DataType.f32, cl.Format.bfyx, shape, cl.Padding((1, 2, 0, 1), (0, 3, 1, 1)))
    x = f32(rng.standard_normal(shape) * 3)
    attrs = {"func": cl.ActivationFunc.clamp, "a": -0.5, "b": 1.25}
    out = run_gpu_padded(monkeypatch, engine, "activation", [lin], lout, attrs, [x], kernel=K)
    np.testing.assert_allclose(out, REFS[cl.ActivationFunc.clamp](x.astype(np.float64), -0.5, 1.25))


def test_selected_on_described_gpu():
    lay = Layout(DataType.f32, Format.bfyx, (1, 64, 56, 56))
    attrs = typed_attrs("activation", {"func": cl.ActivationFunc.relu})
    params = Params("activation", "ocl", [lay], lay, attrs, caps=GPU_LIKE, kernel_tier="gpu")
    assert selector.select(params)[0].name == K
