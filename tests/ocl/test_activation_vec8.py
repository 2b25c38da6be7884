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


def _run_call_free(engine, values, func, a, marker):
    """``values`` as float32 (zero-padded to whole 4x4 pixels of 16 channels), reordered to b_fs_yx_fsv16 so that
    ``func`` runs activation_vec8 (CPU tier, unforced) whose source holds ``marker``; poisoned output. Returns
    (x, output) in bfyx."""
    x = np.asarray(values, np.float32)
    x = np.concatenate([x, np.zeros((-len(x)) % 64, np.float32)]).reshape(1, -1, 4, 4)
    topo = cl.Topology(cl.InputLayout("x", cl.Layout(cl.DataType.f32, cl.Format.bfyx, x.shape)),
                       cl.Reorder("xr", "x", format=cl.Format.b_fs_yx_fsv16), cl.Activation("a", "xr", func=func, a=a),
                       cl.Reorder("out", "a", format=cl.Format.bfyx))
    net = cl.Network(cl.Program(engine, topo, cl.BuildOptions(kernel_tier="cpu")))
    assert net.program.node("a").impl.kernel_name == "activation_vec8"
    assert marker in net.program.node("a").impl.kernels[0].source
    net.poison()
    return x, net.run({"x": x})["out"]


@pytest.mark.parametrize("func, a", [("logistic", None), ("swish", 1.0), ("swish", 1.702), ("swish", 0.0)])
def test_call_free_exp_form_is_accurate(ocl_engine, func, a):
    """logistic and swish (SiLU) through FUSED_OPS8's call-free float8 exp (CLDNN_EXP8) on values that cover the
    exp argument's whole range: every step of 1/64 in [-100, 100] plus +-inf and NaN, vs float64; an activation
    after a reorder runs activation_vec8, whose epilogue is FUSED_OPS8."""
    x, out = _run_call_free(ocl_engine, np.concatenate([np.arange(-6400, 6401) / 64, [np.inf, -np.inf, np.nan]]),
                            func, a, "CLDNN_EXP8")
    out = out.astype(np.float64)
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


@pytest.mark.parametrize("func, a, b", [("clamp", 0.0, 6.0), ("clamp", -1.5, 0.25), ("hard_sigmoid", 0.2, 0.5),
                                        ("hard_sigmoid", 1.0 / 6.0, 0.5), ("hard_swish", None, None)])
def test_call_free_select_forms_match_the_reference(ocl_engine, func, a, b):
    """clamp, hard_sigmoid and hard_swish in FUSED_OPS8 use selects instead of fmin/fmax (calls on the pip PoCL);
    every value of [-10, 10] in steps of 1/64, the clip edges themselves, +-0, +-inf and NaN give what the float64
    reference (numpy's minimum/maximum/clip: NaN stays NaN, as in onnxruntime) gives."""
    x = np.concatenate([np.arange(-640, 641) / 64, [-3.0, 3.0, 0.0, -0.0, -1.5, 0.25, 6.0, -2.5, 2.5,
                                                    np.inf, -np.inf, np.nan]]).astype(np.float32)
    x = np.concatenate([x, np.full((-len(x)) % 64, 0.5, np.float32)]).reshape(1, -1, 4, 4)
    topo = cl.Topology(cl.InputLayout("x", cl.Layout(cl.DataType.f32, cl.Format.bfyx, x.shape)),
                       cl.Reorder("xr", "x", format=cl.Format.b_fs_yx_fsv16),
                       cl.Activation("a", "xr", func=func, a=a, b=b), cl.Reorder("out", "a", format=cl.Format.bfyx))
    net = cl.Network(cl.Program(ocl_engine, topo, cl.BuildOptions(kernel_tier="cpu")))
    assert net.program.node("a").impl.kernel_name == "activation_vec8"
    assert "fmin" not in net.program.node("a").impl.kernels[0].source.split("FUSED8_ACT0(x)")[1].split("\n")[0]
    net.poison()
    out = net.run({"x": x})["out"].astype(np.float64)
    # atol: A x + B cancels near 0 in float32 (0.2f is not 0.2)
    np.testing.assert_allclose(out, activation_ref(x, func, a, b), rtol=1e-6, atol=2e-8, equal_nan=True)


def test_clamp_with_min_above_max_gives_max(ocl_engine, rng):
    """ONNX Clip with min > max: every output is max (min(max(x, lo), hi)), in the select form too."""
    x = f32(rng.standard_normal((1, 16, 4, 4)) * 4)
    topo = cl.Topology(cl.InputLayout("x", cl.Layout(cl.DataType.f32, cl.Format.bfyx, x.shape)),
                       cl.Reorder("xr", "x", format=cl.Format.b_fs_yx_fsv16),
                       cl.Activation("a", "xr", func="clamp", a=2.0, b=1.0),
                       cl.Reorder("out", "a", format=cl.Format.bfyx))
    net = cl.Network(cl.Program(ocl_engine, topo, cl.BuildOptions(kernel_tier="cpu")))
    assert net.program.node("a").impl.kernel_name == "activation_vec8"
    net.poison()
    np.testing.assert_array_equal(net.run({"x": x})["out"], np.full(x.shape, 1.0, np.float32))


def test_call_free_round_is_rint(ocl_engine, rng):
    """round (ONNX Round, fake quantization) through FUSED_OPS8's call-free form: halves to even (also the halves of
    [2^22, 2^23), the last range with fractions), large values (|x| >= 2^23, integers already), +-inf and NaN
    unchanged; vs numpy's rint (a -0 may come out as +0)."""
    halves = np.arange(-40, 41, dtype=np.float32) + 0.5
    big = np.array([4194303.5, 4194304.0, -4194305.0, 4194304.5, 4194305.5, -5000000.5, 8388607.5, -8388607.5,
                    8388609.0, 3e9, -3e9, np.inf, -np.inf, np.nan], np.float32)
    x = np.concatenate([halves, big, f32(rng.standard_normal(200) * 1e3), f32(rng.standard_normal(200) * 0.7)])
    x = np.concatenate([x, np.full((-len(x)) % 64, 2.5, np.float32)]).reshape(1, -1, 4, 4)
    topo = cl.Topology(cl.InputLayout("x", cl.Layout(cl.DataType.f32, cl.Format.bfyx, x.shape)),
                       cl.Reorder("xr", "x", format=cl.Format.b_fs_yx_fsv16), cl.Activation("a", "xr", func="round"),
                       cl.Reorder("out", "a", format=cl.Format.bfyx))
    net = cl.Network(cl.Program(ocl_engine, topo, cl.BuildOptions(kernel_tier="cpu")))
    assert net.program.node("a").impl.kernel_name == "activation_vec8"
    assert "8388608.0f" in net.program.node("a").impl.kernels[0].source
    net.poison()
    out = net.run({"x": x})["out"]
    np.testing.assert_array_equal(out, np.rint(x))  # -0 == +0 for assert_array_equal; NaN == NaN


@pytest.mark.parametrize("func, rtol", [("exp", 1e-6), ("tanh", 2e-6), ("erf", 2e-6)])
def test_call_free_exp_tanh_erf_are_accurate(ocl_engine, func, rtol):
    """exp, tanh and erf through their call-free float8 forms (CLDNN_EXP8, CLDNN_TANH8, CLDNN_ERF8 of FUSED_OPS8)
    on every step of 1/64 in [-100, 100], values near 0 down to 1e-30 (relative accuracy of tanh and erf there),
    +-inf and NaN, vs float64 rounded to float32."""
    from scipy import special

    tiny = np.geomspace(1e-30, 0.7, 400)
    values = np.concatenate([np.arange(-6400, 6401) / 64, tiny, -tiny, [np.inf, -np.inf, np.nan]])
    x, out = _run_call_free(ocl_engine, values, func, None, "CLDNN_")
    x64 = x.astype(np.float64)
    with np.errstate(over="ignore"):
        expect = {"exp": np.exp, "tanh": np.tanh, "erf": special.erf}[func](x64).astype(np.float32)
    nan = np.isnan(x64)
    assert np.isnan(out[nan]).all()
    inf = np.isinf(expect)
    np.testing.assert_array_equal(out[inf], expect[inf])  # exp above ln(FLT_MAX), tanh / erf of +-inf: exact
    under = (func == "exp") & (expect < 1.2e-38)  # exp below the normal range: 0 (float32 has denormals there)
    assert ((out[under] >= 0) & (out[under] < 1.2e-38)).all()
    ok = ~nan & ~inf & ~under
    np.testing.assert_allclose(out[ok].astype(np.float64), expect[ok].astype(np.float64), rtol=rtol, atol=1e-37)


def test_call_free_gelu_is_accurate_in_its_tails(ocl_engine):
    """gelu (erf form) through its call-free float8 form (CLDNN_GELU8 over Numerical Recipes' erfc): every step of 1/64
    in [-100, 100], values near 0, +-inf and NaN, vs x * Phi(x) in float64 (scipy's erfc). Relative accuracy holds in
    the negative tail, where 1 + erf(x / sqrt 2) would cancel: 2e-6 down to x = -5.6, 1e-5 down to float32's
    denormals."""
    from scipy import special

    tiny = np.geomspace(1e-30, 0.7, 400)
    values = np.concatenate([np.arange(-6400, 6401) / 64, tiny, -tiny, [np.inf, -np.inf, np.nan]])
    x, out = _run_call_free(ocl_engine, values, "gelu", None, "CLDNN_GELU8")
    x64 = x.astype(np.float64)
    with np.errstate(invalid="ignore"):
        expect = 0.5 * x64 * special.erfc(-x64 / np.sqrt(2.0))
    out = out.astype(np.float64)
    assert out[x64 == np.inf][0] == np.inf and np.isnan(out[np.isnan(x64)]).all()
    ok = np.isfinite(x64)
    near = ok & (x64 > -5.6)
    np.testing.assert_allclose(out[near], expect[near], rtol=2e-6, atol=0)
    np.testing.assert_allclose(out[ok], expect[ok], rtol=1e-5, atol=1e-37)  # atol: float32's denormals
