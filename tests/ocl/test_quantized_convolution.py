"""quantized_convolution (int8 × int8 → int32, then i32 / f32 / requantized u8 and i8) on both engines, against the
integer reference ``references.quantized_conv_ref`` on fresh random data; outputs poisoned first (an int output is
filled with -7, which a kernel that skips an element leaves there). Integer outputs must be exact; the requantized
ones too (both sides compute float32(acc)·scale and round half to even)."""

from __future__ import annotations

import numpy as np
import pytest

import cldnn_py as cl
from tests.helpers import run_topology
from tests.references import quantized_conv_ref

U8, I8 = np.uint8, np.int8
KERNELS = {"ocl": ["quantized_convolution_ref", "quantized_convolution_blocks"],
           "cpu": ["quantized_convolution_cpu_ref", "quantized_convolution_cpu_gemm"]}


@pytest.fixture(params=[0, 1], ids=["kernel0", "kernel1"])
def kernel(request, engine):
    """Each kernel of the engine in turn (forced on the primitive "y")."""
    return KERNELS["cpu" if engine.kind == "cpu" else "ocl"][request.param]


def qrand(rng, dtype, shape):
    info = np.iinfo(dtype)
    return rng.integers(info.min, info.max + 1, shape).astype(dtype)


def run(engine, x, w, *, x_zp=None, x_zp_input=False, w_zp=None, bias=None, scale=None, out=cl.DataType.i32,
        y_zp=0, fmt=cl.Format.bfyx, kernel=None, **window):
    """Build input (reordered to ``fmt``), Data weights / zero points / bias / scale, one QuantizedConvolution."""
    topo = cl.Topology()
    topo.add(cl.InputLayout("x_host", cl.Layout(cl.DataType.from_numpy(x.dtype), cl.Format.bfyx, x.shape)))
    topo.add(cl.Reorder("x", "x_host", fmt))
    feeds = {"x_host": x}
    topo.add(cl.Data("w", w))
    kw = {}
    if x_zp is not None:
        if x_zp_input:  # a zero point computed at run time (as DynamicQuantizeLinear's)
            topo.add(cl.InputLayout("x_zp", cl.Layout(cl.DataType.u8, cl.Format.bfyx, (1,))))
            feeds["x_zp"] = np.array([x_zp], np.uint8)
        else:
            topo.add(cl.Data("x_zp", np.array([x_zp], x.dtype)))
        kw["input_zero_point"] = "x_zp"
    for name, value in (("w_zp", w_zp), ("bias", bias), ("scale", scale)):
        if value is not None:
            topo.add(cl.Data(name, np.asarray(value)))
    kw.update({k: n for k, n, v in (("weights_zero_point", "w_zp", w_zp), ("bias", "bias", bias),
                                     ("output_scale", "scale", scale)) if v is not None})
    topo.add(cl.QuantizedConvolution("y", "x", "w", output_dtype=out, output_zero_point=y_zp, **kw, **window))
    options = cl.BuildOptions(force_implementations={"y": kernel}) if kernel else None
    return run_topology(engine, topo, feeds, options)["y"]


CASES = [  # (x type, w type, C, OC, H, W, k, stride, pad, dilation, groups)
    (U8, I8, 5, 7, 9, 8, 3, 1, 1, 1, 1),
    (I8, I8, 6, 4, 7, 7, 3, 2, 1, 1, 2),
    (U8, U8, 8, 8, 6, 9, 3, 1, 2, 2, 8),     # depthwise, dilated
    (U8, I8, 19, 3, 5, 5, 1, 1, 0, 1, 1),    # 1x1, channels not a multiple of 16
    (I8, U8, 3, 16, 11, 10, 5, 2, 2, 1, 1),  # a first layer: 5x5 stride 2
    (U8, I8, 12, 16, 5, 19, 3, 1, 1, 1, 2),  # 8 output channels per group: blocks of 8 straddle none
]


@pytest.mark.ocl_every(2)
@pytest.mark.parametrize("case", CASES, ids=[f"{c[0].__name__}x{c[1].__name__}-c{c[2]}-k{c[6]}s{c[7]}g{c[10]}"
                                             for c in CASES])
@pytest.mark.parametrize("zps", ["none", "tensor", "per_oc"])
def test_int32_accumulator_matches_reference(engine, kernel, rng, case, zps):
    xt, wt, c, oc, h, wd, k, s, p, d, g = case
    if kernel == "quantized_convolution_blocks" and g > 1 and (oc // g) % 8:
        pytest.skip("blocks of 8 output channels would straddle groups (validate() refuses)")
    x = qrand(rng, xt, (2, c, h, wd))
    w = qrand(rng, wt, (oc, c // g, k, k))
    x_zp = None if zps == "none" else int(qrand(rng, xt, ()))
    w_zp = None if zps == "none" else (qrand(rng, wt, (1,)) if zps == "tensor" else qrand(rng, wt, (oc,)))
    bias = rng.integers(-5000, 5000, oc).astype(np.int32)
    y = run(engine, x, w, x_zp=x_zp, w_zp=w_zp, bias=bias, stride=s, pad=p, dilation=d, groups=g, kernel=kernel)
    ref = quantized_conv_ref(x, w, (s, s), (d, d), (p, p), (p, p), g, x_zp or 0, w_zp, bias)
    assert y.dtype == np.int32 and y.shape == ref.shape
    np.testing.assert_array_equal(y, ref)


@pytest.mark.ocl_every(2)
@pytest.mark.parametrize("out", [cl.DataType.f32, cl.DataType.u8, cl.DataType.i8])
@pytest.mark.parametrize("per_oc", [False, True])
def test_scaled_and_requantized_outputs(engine, kernel, rng, out, per_oc):
    """QLinearConv's requantization: round half to even of float32(acc)·scale, plus the zero point, saturated (the
    scale is chosen so that some values saturate at both ends)."""
    x = qrand(rng, U8, (1, 12, 6, 7))
    w = qrand(rng, I8, (10, 12, 3, 3))
    scale = (rng.uniform(0.5, 2.0, 10 if per_oc else 1) / 400).astype(np.float32)
    y_zp = {cl.DataType.u8: 100, cl.DataType.i8: -20, cl.DataType.f32: 0}[out]
    y = run(engine, x, w, x_zp=128, scale=scale, out=out, y_zp=y_zp, pad=1, kernel=kernel)
    ref = quantized_conv_ref(x, w, (1, 1), (1, 1), (1, 1), (1, 1), 1, 128, None, None, scale, out.numpy, y_zp)
    assert y.dtype == out.numpy
    if out == cl.DataType.f32:
        np.testing.assert_allclose(y, ref, rtol=1e-6)
    else:
        np.testing.assert_array_equal(y, ref)
        info = np.iinfo(out.numpy)
        assert (y == info.min).any() and (y == info.max).any() and ((y > info.min) & (y < info.max)).mean() > 0.3


@pytest.mark.parametrize("out", [cl.DataType.u8, cl.DataType.i8])
def test_requantization_rounds_half_to_even(engine, kernel, rng, out):
    """A 1x1 convolution of one channel with scale 0.5: every odd product is a tie, which ONNX rounds to even."""
    x = qrand(rng, U8, (1, 1, 6, 8))
    w = np.array([[[[3]]], [[[-5]]]], I8)
    y = run(engine, x, w, scale=np.array([0.5], np.float32), out=out, y_zp=3 if out == cl.DataType.u8 else -3,
            kernel=kernel)
    ref = quantized_conv_ref(x, w, (1, 1), (1, 1), (0, 0), (0, 0), 1, 0, None, None, np.array([0.5], np.float32),
                             out.numpy, 3 if out == cl.DataType.u8 else -3)
    assert (x % 2 == 1).any()
    np.testing.assert_array_equal(y, ref)


def test_sums_past_float32_precision_are_exact(engine, kernel, rng):
    """K = 512·3·3 products of up to 255·128: sums near 1.5e8, past float32's 2^24 (a float path rounds them)."""
    x = rng.integers(200, 256, (1, 512, 4, 4)).astype(U8)
    w = rng.integers(-128, -100, (2, 512, 3, 3)).astype(I8)
    y = run(engine, x, w, pad=1, kernel=kernel)
    ref = quantized_conv_ref(x, w, (1, 1), (1, 1), (1, 1), (1, 1), 1)
    assert np.abs(ref).max() > 2 ** 24 and (ref.astype(np.float32).astype(np.int64) != ref).any()
    np.testing.assert_array_equal(y, ref)


def test_run_time_input_zero_point(engine, kernel, rng):
    """The input zero point as a tensor computed at run time (DynamicQuantizeLinear's output)."""
    x = qrand(rng, U8, (1, 4, 5, 6))
    w = qrand(rng, I8, (3, 4, 3, 3))
    for zp in (0, 131):
        y = run(engine, x, w, x_zp=zp, x_zp_input=True, pad=(1, 0), kernel=kernel)
        np.testing.assert_array_equal(y, quantized_conv_ref(x, w, (1, 1), (1, 1), (1, 0), (1, 0), 1, zp))


def test_blocked_input_format(engine, rng):
    """The input reordered to b_fs_yx_fsv16 first (the reference kernel reads any format)."""
    x = qrand(rng, U8, (1, 20, 5, 5))
    w = qrand(rng, I8, (6, 20, 3, 3))
    y = run(engine, x, w, x_zp=7, fmt=cl.Format.b_fs_yx_fsv16, pad=1)
    np.testing.assert_array_equal(y, quantized_conv_ref(x, w, (1, 1), (1, 1), (1, 1), (1, 1), 1, 7))


@pytest.mark.parametrize("bad", ["float_input", "weights_zp_count", "scale_type", "groups"])
def test_bad_operands_are_refused_with_the_primitive_id(engine, rng, bad):
    x = qrand(rng, U8, (1, 4, 5, 5))
    w = qrand(rng, I8, (6, 4, 3, 3))
    kw = {}
    if bad == "float_input":
        x = x.astype(np.float32)
    elif bad == "weights_zp_count":
        kw["w_zp"] = np.zeros(4, np.int8)
    elif bad == "scale_type":
        kw.update(scale=np.ones(6, np.int32), out=cl.DataType.f32)
    else:
        kw["groups"] = 3
    with pytest.raises(cl.ShapeError, match="quantized_convolution 'y'"):
        run(engine, x, w, **kw)


@pytest.mark.parametrize("kw, msg", [({"output_dtype": cl.DataType.u8}, "needs output_scale"),
                                     ({"output_scale": "s"}, "i32 output is the accumulator"),
                                     ({"output_dtype": cl.DataType.f16}, "output_dtype must be one of"),
                                     ({"output_dtype": cl.DataType.u8, "output_scale": "s",
                                       "output_zero_point": 300}, r"output_zero_point must be an int in \[0, 255\]"),
                                     ({"weights": ""}, "input and weights ids are required")])
def test_constructor_errors(kw, msg):
    args = {"weights": "w", **kw}
    with pytest.raises(cl.TopologyError, match=f"quantized_convolution 'y': .*{msg}"):
        cl.QuantizedConvolution("y", "x", **args)


def test_saved_program_runs_bit_for_bit(engine, rng, tmp_path):
    """Program.save / Program.load keep the primitive (its DataType and zero point fields) and its kernels."""
    x = qrand(rng, U8, (1, 6, 7, 7))
    topo = cl.Topology()
    topo.add(cl.InputLayout("x", cl.Layout(cl.DataType.u8, cl.Format.bfyx, x.shape)),
             cl.Data("w", qrand(rng, I8, (8, 6, 3, 3))), cl.Data("x_zp", np.array([3], U8)),
             cl.Data("s", rng.uniform(0.002, 0.01, 8).astype(np.float32)),
             cl.QuantizedConvolution("y", "x", "w", input_zero_point="x_zp", output_scale="s",
                                     output_dtype=cl.DataType.u8, output_zero_point=5, pad=1))
    program = cl.Program(engine, topo)
    expected = cl.Network(program).run({"x": x})["y"]
    program.save(tmp_path / "q.cldnn")
    net = cl.Network(cl.Program.load(engine, tmp_path / "q.cldnn"))
    net.poison()
    y = net.run({"x": x})["y"]
    assert y.dtype == np.uint8 and len(np.unique(y)) > 10
    np.testing.assert_array_equal(y, expected)


def test_weights_fed_at_run_time_are_read_again(engine, kernel, rng):
    """Weights from a graph input, changed between runs: the CPU gemm kernel's converted-weights cache must notice."""
    x = qrand(rng, U8, (1, 6, 5, 5))
    topo = cl.Topology()
    topo.add(cl.InputLayout("x", cl.Layout(cl.DataType.u8, cl.Format.bfyx, x.shape)),
             cl.InputLayout("w", cl.Layout(cl.DataType.i8, cl.Format.bfyx, (4, 6, 3, 3))),
             cl.QuantizedConvolution("y", "x", "w", pad=1))
    net = cl.Network(cl.Program(engine, topo, cl.BuildOptions(force_implementations={"y": kernel})))
    for _ in range(2):
        w = qrand(rng, I8, (4, 6, 3, 3))
        net.poison()
        y = net.run({"x": x, "w": w})["y"]
        np.testing.assert_array_equal(y, quantized_conv_ref(x, w, (1, 1), (1, 1), (1, 1), (1, 1), 1))
