"""resize_b_fs_yx_fsv16 vs the float64 reference written from the ONNX specification: the modes upsampling heads
and FPN necks use (nearest floor/asymmetric x2, linear pytorch_half_pixel, cubic, antialiased downsampling), channel
counts with and without a block tail, rows narrower than its pixel block; the node is checked to run this kernel,
its output poisoned first. tf_crop_and_resize extrapolation stays with resize_ref."""

from __future__ import annotations

import pytest

import cldnn_py as cl
from cldnn_py.primitives.resize import Resize
from tests.helpers import assert_close, f32
from tests.references import resize_ref

KERNEL = "resize_b_fs_yx_fsv16"
FSV16 = cl.Format.b_fs_yx_fsv16


def _run(engine, x, sizes, **kw):
    topo = cl.Topology(cl.InputLayout("x", cl.Layout(cl.DataType.f32, cl.Format.bfyx, x.shape)),
                       cl.Reorder("xb", "x", format=FSV16), Resize("r", "xb", sizes=sizes, **kw),
                       cl.Reorder("out", "r", format=cl.Format.bfyx))
    net = cl.Network(cl.Program(engine, topo, cl.BuildOptions(kernel_tier="cpu")))
    net.poison()
    return net.run({"x": x})["out"], net.program.node("r").impl.kernel_name


CASES = [
    # input shape, sizes, attributes (mode, ctm, nearest_mode / antialias), reference keywords
    ((1, 16, 5, 6), (1, 16, 10, 12), dict(mode="nearest", coordinate_transformation_mode="asymmetric",
                                          nearest_mode="floor"), dict(ctm="asymmetric", nearest_mode="floor")),
    ((2, 37, 3, 2), (2, 37, 6, 4), dict(mode="linear", coordinate_transformation_mode="pytorch_half_pixel"),
     dict(mode="linear", ctm="pytorch_half_pixel")),
    ((1, 5, 4, 7), (1, 5, 9, 15), dict(mode="cubic", coordinate_transformation_mode="half_pixel"),
     dict(mode="cubic", ctm="half_pixel")),
    ((1, 20, 9, 10), (1, 20, 4, 3), dict(mode="linear", coordinate_transformation_mode="half_pixel",
                                         antialias=True), dict(mode="linear", ctm="half_pixel", antialias=True)),
    ((1, 3, 2, 3), (1, 3, 16, 24), dict(mode="nearest", coordinate_transformation_mode="half_pixel",
                                        nearest_mode="round_prefer_floor"), dict(ctm="half_pixel")),
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c[0]}->{c[1]}-{c[2]['mode']}")
def test_resize_fsv16_matches_reference(ocl_engine, rng, case):
    shape, sizes, attrs, ref_kw = case
    x = f32(rng.standard_normal(shape))
    out, kernel = _run(ocl_engine, x, sizes, **attrs)
    assert kernel == KERNEL
    assert_close(out, resize_ref(x, sizes, **ref_kw), rtol=1e-5, atol=1e-5)


def test_resize_fsv16_leaves_channel_resizes_to_the_reference(ocl_engine, rng):
    """A resize of the channel axis is not this kernel's: resize_ref runs it, still correct."""
    x = f32(rng.standard_normal((1, 4, 3, 3)))
    out, kernel = _run(ocl_engine, x, (1, 8, 3, 3), mode="nearest", coordinate_transformation_mode="asymmetric",
                       nearest_mode="floor")
    assert kernel == "resize_ref"
    assert_close(out, resize_ref(x, (1, 8, 3, 3), ctm="asymmetric", nearest_mode="floor"), rtol=0, atol=0)
