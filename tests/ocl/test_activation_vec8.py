"""activation_vec8 is the kernel for f32 activations on flat and b_fs_yx_fsv16 layouts (test_activation.py then
checks every function through it), and stays away from what it cannot take (a padded bfyx input); values vs the
float64 reference with the output poisoned."""

from __future__ import annotations

import numpy as np
import pytest

import cldnn_py as cl
from tests.helpers import assert_close, f32
from tests.references import activation_ref


@pytest.mark.parametrize("fmt, shape", [(cl.Format.bfyx, (1, 3, 7, 5)), (cl.Format.b_fs_yx_fsv16, (2, 21, 3, 4))])
@pytest.mark.parametrize("func", ["logistic", "hard_swish", "elu"])
def test_activation_vec8_chosen_and_correct(ocl_engine, rng, fmt, shape, func):
    x = f32(rng.standard_normal(shape) * 3)
    topo = cl.Topology(cl.InputLayout("x", cl.Layout(cl.DataType.f32, cl.Format.bfyx, shape)),
                       cl.Reorder("xr", "x", format=fmt), cl.Activation("a", "xr", func=func),
                       cl.Reorder("out", "a", format=cl.Format.bfyx))
    net = cl.Network(cl.Program(ocl_engine, topo, cl.BuildOptions(kernel_tier="cpu")))
    net.poison()
    out = net.run({"x": x})["out"]
    assert net.program.node("a").impl.kernel_name == "activation_vec8"
    a = 1.0 if func == "elu" else None
    assert_close(out, activation_ref(x, func, a), rtol=1e-5, atol=1e-6)
    assert np.isfinite(out).all()


@pytest.mark.parametrize("func, a", [("logistic", None), ("swish", 1.0), ("swish", 1.702), ("swish", 0.0)])
def test_call_free_exp_form_is_accurate(ocl_engine, func, a):
    """logistic and swish (SiLU) through FUSED_OPS8's call-free float8 exp (CLDNN_EXP8) on values that cover the
    exp argument's whole range: every step of 1/64 in [-100, 100] plus +-inf and NaN, vs float64; an activation
    after a reorder runs activation_vec8, whose epilogue is FUSED_OPS8."""
    x = np.concatenate([np.arange(-6400, 6401, dtype=np.float32) / 64, [np.inf, -np.inf, np.nan]]).astype(np.float32)
    x = np.concatenate([x, np.zeros((-len(x)) % 64, np.float32)]).reshape(1, -1, 4, 4)
    topo = cl.Topology(cl.InputLayout("x", cl.Layout(cl.DataType.f32, cl.Format.bfyx, x.shape)),
                       cl.Reorder("xr", "x", format=cl.Format.b_fs_yx_fsv16), cl.Activation("a", "xr", func=func, a=a),
                       cl.Reorder("out", "a", format=cl.Format.bfyx))
    net = cl.Network(cl.Program(ocl_engine, topo, cl.BuildOptions(kernel_tier="cpu")))
    assert net.program.node("a").impl.kernel_name == "activation_vec8"
    src = net.program.node("a").impl.kernels[0].source
    assert "CLDNN_EXP8" in src
    net.poison()
    out = net.run({"x": x})["out"].astype(np.float64)
    x64 = x.astype(np.float64)
    with np.errstate(over="ignore", invalid="ignore"):
        beta = 1.0 if func == "logistic" else a
        sig = 1.0 / (1.0 + np.exp(-beta * x64))
        expect = sig if func == "logistic" else x64 * sig
    finite = np.isfinite(x64)
    assert_close(out[finite], expect[finite], rtol=1e-5, atol=1e-35)  # 1e-5: float32 rounding of -A * x itself
    assert np.isnan(out[np.isnan(x64)]).all()
    if func == "logistic":
        assert (out[x64 == np.inf] == 1.0).all() and (out[x64 == -np.inf] < 1e-37).all()
