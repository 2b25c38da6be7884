"""fuse_eltwise_operand: an eltwise whose other operand broadcasts (one run-time value, one value per channel) joins
the convolution's epilogue (a dynamically quantized layer's scale and bias). Against float64 numpy on fresh data,
outputs poisoned first; on the CPU engine the rule does not apply (the results must still be right)."""

from __future__ import annotations

import numpy as np
import pytest

import cldnn_py as cl
from tests.references import conv_ref

F = np.float32


def _net(rng, c, second="sum", swap=False):
    """x (1, 8, 7, 7) → conv 3×3 (c outputs, bias) → prod with s (a (1,) network input) → ``second`` with b (1, c,
    1, 1) (``swap``: b first) → relu."""
    x = rng.standard_normal((1, 8, 7, 7)).astype(F)
    w = (rng.standard_normal((c, 8, 3, 3)) * 0.2).astype(F)
    bias = rng.standard_normal(c).astype(F)
    s = rng.uniform(0.5, 2.0, (1,)).astype(F)
    b = rng.standard_normal((1, c, 1, 1)).astype(F)
    t = cl.Topology(cl.InputLayout("x", cl.Layout(cl.DataType.f32, cl.Format.bfyx, x.shape)),
                    cl.InputLayout("s", cl.Layout(cl.DataType.f32, cl.Format.bfyx, (1,))),
                    cl.Data("w", w), cl.Data("bias", bias), cl.Data("b", b),
                    cl.Convolution("conv", "x", weights="w", bias="bias", pad=(1, 1)),
                    cl.Eltwise("mul", ["conv", "s"], mode="prod"),
                    cl.Eltwise("add", ["b", "mul"] if swap else ["mul", "b"], mode=second),
                    cl.Activation("relu", "add", "relu"))

    def ref(s: np.ndarray) -> np.ndarray:
        conv = conv_ref(x.astype(np.float64), w.astype(np.float64), bias.astype(np.float64), (1, 1), (1, 1), (1, 1),
                        (1, 1), 1) * np.float64(s[0])
        return np.maximum({"sum": conv + b, "sub": (b - conv) if swap else (conv - b)}[second], 0)

    return t, {"x": x, "s": s}, ref


@pytest.mark.parametrize("c", [16, 12], ids=["whole-slices", "channel-tail"])
@pytest.mark.parametrize("tier", ["auto", "gpu"])
def test_scale_and_bias_operands_join_the_convolution(engine, rng, c, tier):
    if tier == "gpu" and engine.kind != "ocl":
        pytest.skip("the GPU tier is an OpenCL kernel tier")
    t, feeds, ref = _net(rng, c)
    net = cl.Network(cl.Program(engine, t, cl.BuildOptions(kernel_tier=tier)))
    net.poison()
    np.testing.assert_allclose(net.run(feeds)["relu"], ref(feeds["s"]), rtol=1e-5, atol=1e-5)
    status = {p.id: p.kernel for p in net.get_profiling_info() if p.status in ("FUSED", "EXECUTED")}
    if engine.kind == "ocl":
        assert status["mul"] == "fused into conv" and status["add"] == "fused into conv", status
        assert status["relu"] == "fused into conv", status
    else:  # the rule leaves CPU programs alone (measured slower there)
        assert not status["mul"].startswith("fused") and not status["add"].startswith("fused"), status
    feeds["s"] = rng.uniform(0.5, 2.0, (1,)).astype(F)  # a new run-time scale is read, not folded at build
    np.testing.assert_allclose(net.run(feeds)["relu"], ref(feeds["s"]), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("swap", [False, True], ids=["conv-first", "conv-second"])
def test_a_subtraction_fuses_only_with_the_convolution_first(engine, rng, swap):
    """``mul − b`` is ``val OP operand``: fused; ``b − mul`` is not (the epilogue has no reversed form) and runs
    as its own kernel. Both correct."""
    t, feeds, ref = _net(rng, 16, second="sub", swap=swap)
    net = cl.Network(engine, t)
    net.poison()
    np.testing.assert_allclose(net.run(feeds)["relu"], ref(feeds["s"]), rtol=1e-5, atol=1e-5)
    status = {p.id: p.kernel for p in net.get_profiling_info() if p.status in ("FUSED", "EXECUTED")}
    if swap or engine.kind != "ocl":
        assert not status["add"].startswith("fused"), status
    else:
        assert status["add"] == "fused into conv", status


@pytest.mark.parametrize("fmt", [cl.Format.bfyx, cl.Format.b_fs_yx_fsv16], ids=["flat", "fsv16"])
def test_a_clamp_with_run_time_bounds_joins_the_eltwise(engine, rng, fmt):
    """min(max(round(x / s), lo), hi) with one-element run-time s, lo, hi (a dynamic quantization's clamp): one
    eltwise kernel on OpenCL (the flat variant reads its one-element operands without coordinates), three on the
    CPU engine; exact either way (one float32 division, integers after)."""
    x = (rng.standard_normal((1, 20, 5, 7)) * 40).astype(F)
    s = np.array([0.37], F)
    lo, hi = np.array([-100.0], F), np.array([60.0], F)
    t = cl.Topology(cl.InputLayout("x", cl.Layout(cl.DataType.f32, cl.Format.bfyx, x.shape)),
                    *[cl.InputLayout(n, cl.Layout(cl.DataType.f32, cl.Format.bfyx, (1,))) for n in ("s", "lo", "hi")],
                    cl.Reorder("xr", "x", format=fmt), cl.Eltwise("div", ["xr", "s"], mode="div"),
                    cl.Activation("round", "div", "round"), cl.Eltwise("max", ["round", "lo"], mode="max"),
                    cl.Eltwise("min", ["hi", "max"], mode="min"), cl.Reorder("out", "min", format=cl.Format.bfyx))
    net = cl.Network(engine, t)
    net.poison()
    got = net.run({"x": x, "s": s, "lo": lo, "hi": hi})["out"]
    np.testing.assert_array_equal(got, np.minimum(np.maximum(np.rint(x / s), lo), hi))
    status = {p.id: p.kernel for p in net.get_profiling_info() if p.status in ("FUSED", "EXECUTED")}
    if engine.kind == "ocl":
        assert status["max"] == "fused into div" and status["min"] == "fused into div", status
        assert status["div"] == "eltwise_vec8", status
    else:
        assert not status["max"].startswith("fused"), status
