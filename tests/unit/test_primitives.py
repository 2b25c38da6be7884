"""Primitive shape inference without a device: calc_output_layout of convolution, pooling, reshape, permute, crop,
concatenation, eltwise and roi_align, and the TopologyError / ShapeError (DTypeError) their constructors and
checks raise (naming the id).

Expected sizes are written out by hand or enumerated window by window, not recomputed with the library's formula.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import cldnn_py as cl
from cldnn_py.layout import DataType, Format, Layout

F32 = DataType.f32


def L(*shape: int, fmt: Format = Format.bfyx, dtype: DataType = F32) -> Layout:
    """A Layout of this shape."""
    return Layout(dtype, fmt, shape)


# ----- convolution -------------------------------------------------------------------------------------------------
def conv(x: Layout, w: Layout, b: Layout | None = None, **kw) -> Layout:
    """Output layout of a Convolution 'conv1' on these input layouts."""
    prim = cl.Convolution("conv1", "x", weights="w", bias="b" if b is not None else None, **kw)
    return prim.calc_output_layout([x, w] + ([b] if b is not None else []))


@pytest.mark.parametrize("x,w,kw,expected", [
    # 3x3 pad 1 keeps 9x11
    (L(1, 3, 9, 11), L(5, 3, 3, 3), {"pad": 1}, (1, 5, 9, 11)),
    # stride (2, 1), pads top 0 / bottom 2, left 1 / right 0: OH = (10+2-3)//2+1 = 5, OW = (9+1-2)//1+1 = 9
    (L(2, 4, 10, 9), L(6, 4, 3, 2), {"stride": (2, 1), "pad": (0, 1), "pad_end": (2, 0)}, (2, 6, 5, 9)),
    # dilation 3: effective kernel 7; (15-7)//2+1 = 5
    (L(1, 1, 15, 15), L(2, 1, 3, 3), {"stride": 2, "dilation": 3}, (1, 2, 5, 5)),
    # groups 3, dilation 2, pad 2: effective kernel 5, 12+4-5+1 = 12
    (L(1, 6, 12, 12), L(9, 2, 3, 3), {"dilation": 2, "pad": 2, "groups": 3}, (1, 9, 12, 12)),
    # depthwise stride 2 pad 1: (7+2-3)//2+1 = 4
    (L(1, 8, 7, 7), L(8, 1, 3, 3), {"stride": 2, "pad": 1, "groups": 8}, (1, 8, 4, 4)),
    # asymmetric dilation (y 2, x 1) and only-end padding: OH = (6+0+1-5)+1 = 3, OW = (5+0+0-3)+1 = 3
    (L(1, 2, 6, 5), L(4, 2, 3, 3), {"dilation": (2, 1), "pad": 0, "pad_end": (1, 0)}, (1, 4, 3, 3)),
], ids=["same", "asym-pads", "dilated-strided", "groups", "depthwise", "asym-dilation"])
def test_convolution_output_shape(x, w, kw, expected):
    assert conv(x, w, **kw) == L(*expected)


def test_convolution_keeps_input_format_and_checks_bias():
    x = L(1, 19, 5, 5, fmt=Format.b_fs_yx_fsv16)
    assert conv(x, L(4, 19, 1, 1), L(4)) == L(1, 4, 5, 5, fmt=Format.b_fs_yx_fsv16)
    with pytest.raises(cl.ShapeError, match=r"convolution 'conv1': bias 'b' shape: expected \(4,\)"):
        conv(x, L(4, 19, 1, 1), L(5))


@pytest.mark.parametrize("x,w,kw,match", [
    (L(1, 3, 8, 8), L(4, 2, 3, 3), {}, "weights 'w' shape"),                    # C/groups mismatch
    (L(1, 6, 8, 8), L(4, 3, 3, 3), {"groups": 3}, "weights 'w' shape"),         # 3*3 != 6
    (L(1, 6, 8, 8), L(4, 3, 3, 3), {"groups": 4}, "groups=4"),                  # 6 % 4
    (L(1, 6, 8, 8), L(5, 2, 3, 3), {"groups": 3}, "weights 'w' shape"),         # OC 5 % 3
    (L(3, 8, 8), L(4, 3, 3, 3), {}, "input rank"),
    (L(1, 3, 8, 8), L(4, 3, 3), {}, "weights 'w' shape"),
    (L(1, 3, 4, 4), L(4, 3, 5, 5), {}, "output size"),                           # kernel larger than input
    (L(1, 3, 4, 4), L(4, 3, 3, 3), {"dilation": 2}, "output size"),             # effective kernel 5 > 4
    (L(1, 6, 4, 4), L(6, 6, 1, 1), {"block_diagonal": 4}, "block_diagonal"),    # 6 % 4
    (L(1, 8, 4, 4), L(8, 4, 1, 1), {"groups": 2, "block_diagonal": 2}, "block_diagonal"),  # with groups
], ids=["channels", "groups-channels", "groups-divide-c", "groups-divide-oc", "rank", "weights-rank",
        "too-small", "dilated-too-small", "block-diagonal-divides", "block-diagonal-groups"])
def test_convolution_shape_errors_name_the_primitive(x, w, kw, match):
    with pytest.raises(cl.ShapeError, match="convolution 'conv1'") as err:
        conv(x, w, **kw)
    assert match in str(err.value)


@pytest.mark.parametrize("kw,match", [
    ({"stride": 0}, "stride/dilation must be >= 1"),
    ({"dilation": (1, 0)}, "stride/dilation must be >= 1"),
    ({"pad": (-1, 0)}, "pads >= 0"),
    ({"pad_end": (0, -2)}, "pads >= 0"),
    ({"groups": 0}, "groups must be a positive int"),
    ({"stride": (1, 2, 3)}, "stride must be an int or a"),
    ({"pad": "same"}, "pad must be an int or a"),
    ({"weights": ""}, "input and weights ids are required"),
])
def test_convolution_constructor_errors(kw, match):
    args = {"weights": "w"} | kw
    with pytest.raises(cl.TopologyError, match="'conv1'") as err:
        cl.Convolution("conv1", "x", **args)
    assert match in str(err.value)


def test_empty_id_is_refused():
    with pytest.raises(cl.TopologyError, match="non-empty string"):
        cl.Convolution("", "x", weights="w")


# ----- pooling -----------------------------------------------------------------------------------------------------
def count_windows(size: int, k: int, s: int, pb: int, pe: int, ceil: bool) -> int:
    """Enumerate window starts in padded coordinates (0 = start of the begin pad).

    floor: the window fits in the padded input. ceil: the window may run past the end pad by less than a stride
    (that is, its start is <= the last floor start rounded up), but it must start inside the input or the begin
    pad, never in the end pad (ONNX / PyTorch rule).
    """
    n = 0
    for i in itertools.count():
        start = i * s
        fits = start + k <= size + pb + pe
        if ceil:
            ok = (start + k < size + pb + pe + s) and start < size + pb
        else:
            ok = fits
        if not ok:
            return n
        n += 1
    return n  # pragma: no cover


@pytest.mark.parametrize("ceil", [False, True], ids=["floor", "ceil"])
def test_pooling_output_size_matches_window_enumeration(ceil):
    for size, k, s, pb, pe in itertools.product(range(1, 9), range(1, 5), range(1, 4), range(3), range(3)):
        if max(pb, pe) >= k or size + pb + pe < k:
            continue
        prim = cl.Pooling("pool1", "x", kernel=(k, 1), stride=(s, 1), pad=(pb, 0), pad_end=(pe, 0), ceil_mode=ceil)
        out = prim.calc_output_layout([L(1, 2, size, 3)])
        assert out.shape[2] == count_windows(size, k, s, pb, pe, ceil), (size, k, s, pb, pe, ceil)


def test_pooling_ceil_mode_cases_by_hand():
    def oh(size, k, s, pb, pe, ceil):
        prim = cl.Pooling("p", "x", kernel=k, stride=s, pad=pb, pad_end=pe, ceil_mode=ceil)
        return prim.calc_output_layout([L(1, 1, size, size)]).shape[2]

    assert (oh(5, 2, 2, 0, 0, False), oh(5, 2, 2, 0, 0, True)) == (2, 3)
    assert (oh(6, 2, 2, 0, 0, False), oh(6, 2, 2, 0, 0, True)) == (3, 3)
    # 5 + 1 + 1 padded: ceil((7-2)/2)+1 = 4 windows, but the 4th starts at 6 = inside the end pad -> 3
    assert (oh(5, 2, 2, 1, 1, False), oh(5, 2, 2, 1, 1, True)) == (3, 3)
    # 112, k3 s2 p1: floor 56; ceil 57 (the 57th window starts at 112 = the last input row, so it stays)
    assert (oh(112, 3, 2, 1, 1, False), oh(112, 3, 2, 1, 1, True)) == (56, 57)
    # AlexNet-style 55, k3 s2 p0 -> 27; 56 -> 27 floor, 28 ceil
    assert (oh(55, 3, 2, 0, 0, False), oh(56, 3, 2, 0, 0, True)) == (27, 28)


def test_pooling_asymmetric_global_and_format():
    x = L(2, 19, 7, 5, fmt=Format.byxf)
    p = cl.Pooling("p", "x", kernel=(3, 2), stride=(2, 1), pad=(1, 0), pad_end=(0, 1))
    # OH = (7+1+0-3)//2+1 = 3, OW = (5+0+1-2)//1+1 = 5
    assert p.calc_output_layout([x]) == L(2, 19, 3, 5, fmt=Format.byxf)
    g = cl.Pooling("g", "x", mode=cl.PoolingMode.average, global_pooling=True, kernel=2, pad=1)
    assert g.calc_output_layout([x]) == L(2, 19, 1, 1, fmt=Format.byxf)


def test_pooling_errors():
    with pytest.raises(cl.ShapeError, match="pooling 'pool1': pads smaller than the kernel"):
        cl.Pooling("pool1", "x", kernel=2, pad=(2, 0)).calc_output_layout([L(1, 1, 8, 8)])
    with pytest.raises(cl.ShapeError, match="pooling 'pool1': input rank"):
        cl.Pooling("pool1", "x", kernel=2).calc_output_layout([L(1, 8, 8)])
    with pytest.raises(cl.ShapeError, match="pooling 'pool1': output size"):
        cl.Pooling("pool1", "x", kernel=(5, 1)).calc_output_layout([L(1, 1, 4, 4)])
    with pytest.raises(cl.TopologyError, match="pooling 'pool1': mode must be one of"):
        cl.Pooling("pool1", "x", mode="median")
    with pytest.raises(cl.TopologyError, match="pooling 'pool1': kernel/stride must be >= 1"):
        cl.Pooling("pool1", "x", kernel=(0, 2))
    with pytest.raises(cl.TopologyError, match="'pool1': stride must be an int or a"):
        cl.Pooling("pool1", "x", kernel=2, stride=None)


# ----- reshape -----------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("x,shape,expected", [
    (L(2, 3, 4, 5), (-1, 20), (6, 20)),
    (L(2, 3, 4, 5), (2, -1, 5), (2, 12, 5)),
    (L(2, 3, 4, 5), (-1,), (120,)),
    (L(6, 5), (1, 2, 3, -1), (1, 2, 3, 5)),
    (L(7), (1, 7, 1, 1), (1, 7, 1, 1)),
    (L(1, 19, 2, 2, fmt=Format.b_fs_yx_fsv16), (19, 4), (19, 4)),
])
def test_reshape_output_layout(x, shape, expected):
    assert cl.Reshape("r1", "x", shape=shape).calc_output_layout([x]) == L(*expected)   # always bfyx


@pytest.mark.parametrize("shape,match", [
    ((4, 31), "element count of shape (4, 31): expected 120, got 124"),
    ((7, -1), "element count: expected a multiple of 7, got 120"),
])
def test_reshape_count_errors(shape, match):
    with pytest.raises(cl.ShapeError, match="reshape 'r1'") as err:
        cl.Reshape("r1", "x", shape=shape).calc_output_layout([L(2, 3, 4, 5)])
    assert match in str(err.value)


@pytest.mark.parametrize("shape", [(-1, -1), (2, 0), (3, -2), (), (1, 2, 3, 4, 5, 6, 7), ("a", 2), 5], ids=str)
def test_reshape_constructor_errors(shape):
    with pytest.raises(cl.TopologyError, match="reshape 'r1'"):
        cl.Reshape("r1", "x", shape=shape)


# ----- permute -----------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("x,order,expected", [
    (L(2, 3, 4, 5, fmt=Format.byxf), (0, 2, 3, 1), (2, 4, 5, 3)),
    (L(2, 3, 4, 5), (3, 1, 0, 2), (5, 3, 2, 4)),
    (L(2, 3, 4), (2, 0, 1), (4, 2, 3)),
    (L(6, 7), (1, 0), (7, 6)),
    (L(9), (0,), (9,)),
])
def test_permute_output_layout(x, order, expected):
    assert cl.Permute("p1", "x", order=order).calc_output_layout([x]) == L(*expected)   # always bfyx


@pytest.mark.parametrize("order", [(0, 0, 1), (1, 2), (0, 1, 3), ("a", 0), None], ids=str)
def test_permute_constructor_errors(order):
    with pytest.raises(cl.TopologyError, match="permute 'p1': order must be"):
        cl.Permute("p1", "x", order=order)


def test_permute_rank_mismatch():
    with pytest.raises(cl.ShapeError, match=r"permute 'p1': order length \(input rank\): expected 4, got 3"):
        cl.Permute("p1", "x", order=(2, 0, 1)).calc_output_layout([L(2, 3, 4, 5)])


# ----- crop --------------------------------------------------------------------------------------------------------
def test_crop_output_layout_keeps_format():
    x = L(2, 19, 5, 6, fmt=Format.b_fs_yx_fsv16)
    c = cl.Crop("c1", "x", shape=(1, 15, 3, 4), offsets=(1, 4, 2, 2))
    assert c.calc_output_layout([x]) == L(1, 15, 3, 4, fmt=Format.b_fs_yx_fsv16)
    assert cl.Crop("c1", "x", shape=(3, 2)).offsets == (0, 0)
    assert cl.Crop("c1", "x", shape=(3, 2), offsets=(4, 5)).calc_output_layout([L(7, 7)]) == L(3, 2)


@pytest.mark.parametrize("shape,offsets,match", [
    ((2, 4, 3, 3), (1, 0, 0, 0), "crop box in dimension 0: expected offset + size <= 2, got 1 + 2"),
    ((1, 4, 3, 3), (0, 0, 0, 4), "crop box in dimension 3"),
    ((1, 4, 3), (0, 0, 0), "rank of shape/offsets: expected 4, got 3"),
])
def test_crop_shape_errors(shape, offsets, match):
    with pytest.raises(cl.ShapeError, match="crop 'c1'") as err:
        cl.Crop("c1", "x", shape=shape, offsets=offsets).calc_output_layout([L(2, 4, 5, 6)])
    assert match in str(err.value)


@pytest.mark.parametrize("shape,offsets", [((2, 2), (0,)), ((2, 0), (0, 0)), ((2, 2), (0, -1)), ((), None),
                                           (("a", 2), (0, 0)), (5, None)], ids=str)
def test_crop_constructor_errors(shape, offsets):
    with pytest.raises(cl.TopologyError, match="crop 'c1'"):
        cl.Crop("c1", "x", shape=shape, offsets=offsets)


# ----- concatenation -----------------------------------------------------------------------------------------------
def test_concatenation_output_layout():
    a, b = L(2, 3, 4, 5, fmt=Format.byxf), L(2, 7, 4, 5)
    assert cl.Concatenation("cat1", ["a", "b"], axis=1).calc_output_layout([a, b]) == L(2, 10, 4, 5, fmt=Format.byxf)
    assert cl.Concatenation("cat1", ["a", "b", "c"], axis=-1).calc_output_layout(
        [L(2, 3), L(2, 1), L(2, 4)]) == L(2, 8)
    assert cl.Concatenation("cat1", ["a", "b"], axis=0).calc_output_layout([L(1, 3, 4), L(5, 3, 4)]) == L(6, 3, 4)


@pytest.mark.parametrize("inputs,axis,match", [
    ([L(2, 3, 4, 5), L(2, 3, 5, 5)], 1, "shape of input 1 'b'"),
    ([L(2, 3, 4, 5), L(2, 3, 4)], 1, "shape of input 1 'b'"),
    ([L(2, 3), L(2, 3)], 2, "axis: expected in [-2, 2), got 2"),
    ([L(2, 3), L(2, 3, dtype=DataType.i32)], 1, "data type of input 1"),
])
def test_concatenation_shape_errors(inputs, axis, match):
    with pytest.raises(cl.ShapeError, match="concatenation 'cat1'") as err:
        cl.Concatenation("cat1", ["a", "b"], axis=axis).calc_output_layout(inputs)
    assert match in str(err.value)


@pytest.mark.parametrize("inputs", ["ab", [], ()], ids=repr)
def test_concatenation_constructor_errors(inputs):
    with pytest.raises(cl.TopologyError, match="concatenation 'cat1': needs a list of input ids"):
        cl.Concatenation("cat1", inputs)


# ----- eltwise -----------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("inputs,expected", [
    ([L(2, 3, 4, 5, fmt=Format.byxf), L(3, 1, 5)], L(2, 3, 4, 5, fmt=Format.byxf)),
    ([L(1, 3, 1, 1), L(2, 1, 4, 5, fmt=Format.byxf)], L(2, 3, 4, 5)),        # no input has the output shape
    ([L(5), L(2, 3, 4, 5, fmt=Format.b_fs_yx_fsv16)], L(2, 3, 4, 5, fmt=Format.b_fs_yx_fsv16)),
    ([L(4, 1), L(1, 6), L(4, 6, fmt=Format.yxfb)], L(4, 6, fmt=Format.yxfb)),
    ([L(2, 3), L(2, 3)], L(2, 3)),
])
def test_eltwise_broadcast_layout(inputs, expected):
    ids = [f"in{i}" for i in range(len(inputs))]
    got = cl.Eltwise("sum1", ids, mode=cl.EltwiseMode.sum).calc_output_layout(inputs)
    assert got == expected
    assert got.shape == np.broadcast_shapes(*(x.shape for x in inputs))


@pytest.mark.parametrize("inputs,match", [
    ([L(2, 3, 4, 5), L(1, 4, 1, 1)], "input shapes that broadcast"),
    ([L(2, 3), L(3, 2)], "input shapes that broadcast"),
    ([L(2, 3), L(2, 3, dtype=DataType.i32)], "input data types"),
])
def test_eltwise_shape_errors(inputs, match):
    with pytest.raises(cl.ShapeError, match="eltwise 'sum1'") as err:
        cl.Eltwise("sum1", ["a", "b"]).calc_output_layout(inputs)
    assert match in str(err.value)


@pytest.mark.parametrize("kw,match", [
    ({"inputs": ["a"]}, "needs a list of at least 2 input ids"),
    ({"inputs": "ab"}, "needs a list of at least 2 input ids"),
    ({"mode": "no_such_mode"}, "mode must be one of"),
    ({"mode": cl.EltwiseMode.prod, "coefficients": (1.0, 2.0)}, "coefficients need mode sum"),
    ({"coefficients": (1.0,)}, "coefficients need mode sum and one value per input (2)"),
])
def test_eltwise_constructor_errors(kw, match):
    args = {"inputs": ["a", "b"]} | kw
    with pytest.raises(cl.TopologyError, match="eltwise 'sum1'") as err:
        cl.Eltwise("sum1", **args)
    assert match in str(err.value)


def test_activation_parameter_defaults():
    assert (cl.Activation("s", "x", "swish").a, cl.Activation("s", "x", "swish").b) == (1.0, 0.0)
    assert (cl.Activation("h", "x", "hard_sigmoid").a, cl.Activation("h", "x", "hard_sigmoid").b) == (0.2, 0.5)
    assert cl.Activation("r", "x", "relu").a == 0.0
    assert cl.Activation("l", "x", "relu_negative_slope", a=0.3).a == 0.3


# ----- roi_align ---------------------------------------------------------------------------------------------------
def roi_layouts(x=(2, 3, 5, 6), rois=(4, 4), idx=(4,), xdt=F32, rdt=F32, idt=DataType.i32):
    """Layouts of a RoiAlign's (input, rois, batch_indices)."""
    return [L(*x, dtype=xdt), L(*rois, dtype=rdt), L(*idx, dtype=idt)]


def test_roi_align_output_layout():
    prim = cl.RoiAlign("ra", "x", "rois", "bi", output_height=3, output_width=5)
    out = prim.calc_output_layout(roi_layouts(x=(2, 7, 5, 6), rois=(4, 4), idx=(4,)))
    assert out.shape == (4, 7, 3, 5) and out.dtype == F32 and out.format == Format.bfyx
    assert prim.calc_output_layout(roi_layouts(xdt=DataType.f16)).dtype == DataType.f16
    assert prim.dependencies() == ["x", "rois", "bi"]


@pytest.mark.parametrize("kw, error, match", [
    (dict(rois=(4, 5)), cl.ShapeError, r"roi_align 'ra': rois 'rois' shape: expected \(num_rois, 4\), got \(4, 5\)"),
    (dict(rois=(4,), idx=(4,)), cl.ShapeError, r"roi_align 'ra': rois 'rois' shape"),
    (dict(idx=(3,)), cl.ShapeError, r"roi_align 'ra': batch_indices 'bi' shape: expected \(4,\) .*got \(3,\)"),
    (dict(idx=(4, 1)), cl.ShapeError, r"roi_align 'ra': batch_indices 'bi' shape"),
    (dict(x=(2, 3, 5)), cl.ShapeError, r"roi_align 'ra': input rank \(N, C, H, W\): expected 4, got 3"),
    (dict(rdt=DataType.i32), cl.DTypeError, r"roi_align 'ra': rois 'rois' data type: expected f32 or f16, got i32"),
    (dict(xdt=DataType.i32), cl.DTypeError, r"roi_align 'ra': input data type: expected f32 or f16, got i32"),
    (dict(idt=F32), cl.DTypeError, r"roi_align 'ra': batch_indices 'bi' data type: expected i32, got f32"),
])
def test_roi_align_bad_inputs_name_the_primitive(kw, error, match):
    with pytest.raises(error, match=match):
        cl.RoiAlign("ra", "x", "rois", "bi").calc_output_layout(roi_layouts(**kw))


@pytest.mark.parametrize("kw, match", [
    (dict(mode="sum"), "mode must be one of"),
    (dict(coordinate_transformation_mode="align_corners"), "coordinate_transformation_mode must be one of"),
    (dict(sampling_ratio=-1), "sampling_ratio must be >= 0"),
    (dict(output_height=0), "output_height and output_width must be >= 1"),
    (dict(output_width="wide"), "output_height, output_width and sampling_ratio must be ints"),
    (dict(spatial_scale=0.0), "spatial_scale must be a finite positive float"),
    (dict(spatial_scale=float("nan")), "spatial_scale must be a finite positive float"),
    (dict(rois=""), "rois must be a primitive id"),
])
def test_roi_align_constructor_errors(kw, match):
    args = {"input": "x", "rois": "rois", "batch_indices": "bi", **kw}
    with pytest.raises(cl.TopologyError, match=f"roi_align 'ra': {match}"):
        cl.RoiAlign("ra", **args)
