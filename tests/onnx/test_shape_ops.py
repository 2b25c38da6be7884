"""Shape-op converters vs onnxruntime on one-node models: Concat, Flatten, Reshape, Transpose, Squeeze, Unsqueeze,
Slice, Split, Pad, Expand, Tile, Gather, Identity, Dropout, Cast across the opsets they claim (attributes before,
constant inputs after), negative axes and indices, clamped and negative slice steps, rank 5-6 chains (ShuffleNet's
channel shuffle, DepthToSpace), and the blocked b_fs_yx_fsv16 path after a convolution. Resize/Upsample:
test_resize_ops.py."""

from __future__ import annotations

import numpy as np
import pytest
from onnx import TensorProto, helper

import cldnn_py as cl
from cldnn_py.errors import UnsupportedError
from cldnn_py.frontend.onnx import load_onnx
from tests.onnx.ort_compare import build, compare, randf32

ort = pytest.importorskip("onnxruntime")


def one(op, opset, feeds, inits=None, attrs=None, inputs=None, outputs=("y",), out_types=None):
    """A one-node model of ``op``; its inputs are ``inputs`` or the feeds then the initializers, in order."""
    inits = inits or {}
    names = list(inputs) if inputs is not None else list(feeds) + list(inits)
    return build([helper.make_node(op, names, list(outputs), **(attrs or {}))], feeds, inits, list(outputs), opset,
                 out_types)


def _i64(*v):
    return np.array(v, dtype=np.int64)


# ----- Concat, Flatten, Reshape, Squeeze, Unsqueeze -----------------------------------------------------------------
def test_concat(engine, rng):
    compare(engine, one("Concat", 11, {"a": randf32(rng, 2, 3, 4)}, {"b": randf32(rng, 2, 3, 2)}, {"axis": -1}),
            {"a": randf32(rng, 2, 3, 4)})
    feeds = {"a": randf32(rng, 2, 1, 3, 4), "b": randf32(rng, 2, 3, 3, 4), "c": randf32(rng, 2, 2, 3, 4)}
    compare(engine, one("Concat", 4, feeds, attrs={"axis": 1}), feeds)
    feeds = {"a": randf32(rng, 2, 3, 2, 2, 3), "b": randf32(rng, 2, 3, 2, 4, 3)}            # rank 5 along dimension 3
    compare(engine, one("Concat", 13, feeds, attrs={"axis": 3}), feeds)


@pytest.mark.parametrize("opset,shape,axis", [(7, (2, 3, 4, 5), 2), (9, (2, 3, 4), 0), (13, (2, 3, 4, 5), -3)])
def test_flatten(engine, rng, opset, shape, axis):
    x = randf32(rng, *shape)
    compare(engine, one("Flatten", opset, {"x": x}, attrs={"axis": axis}), {"x": x})


@pytest.mark.parametrize("opset,shape,target,allowzero", [
    (5, (2, 3, 4), (0, -1), 0),               # 0 copies the input's dimension
    (13, (2, 12, 5), (2, 3, 4, 5, 1), 0),      # to rank 5
    (14, (2, 3, 4), (4, 6), 1),
    (19, (4, 6), (-1, 2, 3, 1, 2, 1), 0),      # to rank 6
])
def test_reshape(engine, rng, opset, shape, target, allowzero):
    x = randf32(rng, *shape)
    attrs = {"allowzero": allowzero} if opset >= 14 else {}
    compare(engine, one("Reshape", opset, {"x": x}, {"s": _i64(*target)}, attrs), {"x": x})


@pytest.mark.parametrize("opset", [11, 13])
def test_squeeze_unsqueeze(engine, rng, opset):
    x = randf32(rng, 1, 3, 1, 4)
    axes = _i64(-2, 0)
    if opset < 13:
        sq, un = one("Squeeze", opset, {"x": x}, attrs={"axes": [-2, 0]}), \
            one("Unsqueeze", opset, {"x": x}, attrs={"axes": [4, 0]})
    else:
        sq, un = one("Squeeze", opset, {"x": x}, {"axes": axes}), one("Unsqueeze", opset, {"x": x}, {"a": _i64(-1, 0)})
    compare(engine, sq, {"x": x})
    compare(engine, un, {"x": x})
    compare(engine, one("Squeeze", opset, {"x": x}), {"x": x})                     # every size-1 axis


# ----- Transpose ----------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("shape,perm", [
    ((2, 3, 4), None),                      # default: reversed
    ((2, 3, 4, 5), (0, 2, 3, 1)),
    ((1, 3, 1, 4), (2, 1, 0, 3)),           # only size-1 axes move: a reshape
    ((2, 3, 4, 5), (1, 0, 2, 3)),
])
def test_transpose(engine, rng, shape, perm):
    x = randf32(rng, *shape)
    compare(engine, one("Transpose", 13, {"x": x}, attrs={} if perm is None else {"perm": perm}), {"x": x})


def test_channel_shuffle_becomes_shuffle_channels(engine, rng):
    """ShuffleNet: Reshape (N, g, C/g, H, W) → Transpose (0, 2, 1, 3, 4) → Reshape; the importer's chain (a rank-4
    permute between views) is folded by fold_channel_shuffle into one shuffle_channels node with group 3."""
    x = randf32(rng, 2, 12, 5, 6)
    nodes = [helper.make_node("Reshape", ["x", "s5"], ["r"]), helper.make_node("Transpose", ["r"], ["t"],
             perm=[0, 2, 1, 3, 4]), helper.make_node("Reshape", ["t", "s4"], ["y"])]
    model = build(nodes, {"x": x}, {"s5": _i64(2, 3, 4, 5, 6), "s4": _i64(2, 12, 5, 6)}, ["y"], 9)
    net = compare(engine, model, {"x": x})
    kinds = [n.kind for n in net.program.nodes.values()]
    assert "permute" not in kinds and kinds.count("shuffle_channels") == 1
    assert next(n for n in net.program.nodes.values() if n.kind == "shuffle_channels").primitive.group == 3


def test_depth_to_space_chain_rank6(engine, rng):
    """DepthToSpace (DCR) as Reshape → Transpose (0, 1, 4, 2, 5, 3) → Reshape: an irreducible rank-6 permute."""
    x = randf32(rng, 1, 8, 2, 3)
    nodes = [helper.make_node("Reshape", ["x", "s6"], ["r"]),
             helper.make_node("Transpose", ["r"], ["t"], perm=[0, 3, 4, 1, 5, 2]),
             helper.make_node("Reshape", ["t", "s4"], ["y"])]
    model = build(nodes, {"x": x}, {"s6": _i64(1, 2, 2, 2, 2, 3), "s4": _i64(1, 2, 4, 6)}, ["y"], 13)
    compare(engine, model, {"x": x})


# ----- Slice, Split -------------------------------------------------------------------------------------------------
def test_slice_opset1_attributes(engine, rng):
    x = randf32(rng, 4, 5, 6)
    compare(engine, one("Slice", 9, {"x": x}, attrs={"starts": [1, -4], "ends": [100, -1], "axes": [0, 2]}),
            {"x": x})


@pytest.mark.parametrize("opset,shape,starts,ends,axes,steps", [
    (10, (4, 5, 6), (1, 0), (3, 4), (2, 1), None),
    (11, (3, 19, 4, 5), (-1, 18), (-100, 0), (0, 1), (-1, -3)),           # negative steps, clamped
    (13, (6, 7), (2, -100), (2**62, 100), None, (2, 3)),
    (13, (2, 3, 4, 5, 6), (0, 4), (2, -7), (1, -2), (1, -2)),             # rank 5: strided_slice
    (13, (2, 3, 4, 5, 6), (1,), (3,), (3,), None),                        # rank 5, unit steps
])
def test_slice_inputs(engine, rng, opset, shape, starts, ends, axes, steps):
    x = randf32(rng, *shape)
    inits = {"s": _i64(*starts), "e": _i64(*ends)}
    if axes is not None or steps is not None:
        inits["a"] = _i64(*(axes if axes is not None else range(len(starts))))
    if steps is not None:
        inits["t"] = _i64(*steps)
    compare(engine, one("Slice", opset, {"x": x}, inits), {"x": x})


@pytest.mark.parametrize("opset,shape,axis,split,num", [
    (7, (4, 6, 3), 1, [1, 2, 3], None),
    (11, (6, 4), -2, None, None),                # equal parts
    (13, (2, 5, 3, 4), 1, [2, 3], None),
    (18, (7, 4), 0, None, 3),                    # num_outputs, the last smaller
    (18, (2, 3, 2, 5, 2), 3, [1, 4], None),      # rank 5
])
def test_split(engine, rng, opset, shape, axis, split, num):
    x = randf32(rng, *shape)
    k = num or (len(split) if split else 3)
    attrs = {"axis": axis}
    inits = {}
    if split is not None and opset < 13:
        attrs["split"] = split
    elif split is not None:
        inits["sp"] = _i64(*split)
    if num:
        attrs["num_outputs"] = num
    compare(engine, one("Split", opset, {"x": x}, inits, attrs, outputs=[f"y{i}" for i in range(k)]), {"x": x})


# ----- Pad, Expand, Tile, Gather ------------------------------------------------------------------------------------
@pytest.mark.parametrize("opset,mode,pads,value,axes", [
    (7, "reflect", [0, 1, 2, 0, 2, 1], None, None),          # pads / value attributes
    (7, "constant", [1, 0, 0, 2, 1, 1], 1.5, None),
    (11, "edge", [1, 2, 3, 0, 3, 2], None, None),
    (13, "constant", [0, 1, -1, 1, 0, 2], -2.25, None),      # negative pad crops; constant_value input
    (18, "reflect", [2, 1, 1, 2], None, [2, -2]),            # axes input
    (19, "wrap", [1, 3, 2, 0, 4, 1], None, None),
])
def test_pad(engine, rng, opset, mode, pads, value, axes):
    x = randf32(rng, 2, 4, 5)
    if opset < 11:
        attrs = {"mode": mode, "pads": pads, **({"value": value} if value is not None else {})}
        model = one("Pad", opset, {"x": x}, attrs=attrs)
    else:
        inits = {"p": _i64(*pads)}
        names = ["x", "p"]
        if value is not None or axes is not None:
            names.append("v" if value is not None else "")
            if value is not None:
                inits["v"] = np.array(value, np.float32)
        if axes is not None:
            names.append("a")
            inits["a"] = _i64(*axes)
        model = one("Pad", opset, {"x": x}, inits, {"mode": mode}, inputs=names)
    compare(engine, model, {"x": x})


@pytest.mark.parametrize("opset,shape,target", [(8, (3, 1), (2, 3, 4)), (13, (2, 1, 4), (3, 1, 4, 1)),
                                                (13, (1, 3, 1, 1), (2, 1, 3, 2, 2))])
def test_expand(engine, rng, opset, shape, target):
    x = randf32(rng, *shape)
    compare(engine, one("Expand", opset, {"x": x}, {"s": _i64(*target)}), {"x": x})


@pytest.mark.parametrize("opset", [6, 13])
def test_tile(engine, rng, opset):
    x = randf32(rng, 2, 3, 4)
    compare(engine, one("Tile", opset, {"x": x}, {"r": _i64(2, 1, 3)}), {"x": x})


@pytest.mark.parametrize("opset,shape,indices,axis", [
    (7, (5, 4), np.array([[0, 4], [2, 1]]), 0),
    (11, (3, 19, 4), np.array([-1, 0, -19, 5]), 1),            # negative indices
    (13, (2, 3, 4, 5), np.array(2), 2),                         # scalar index drops the axis
    (13, (2, 3, 4), np.array([[1, -1, 0]]), -1),
])
def test_gather_constant_indices(engine, rng, opset, shape, indices, axis):
    x = randf32(rng, *shape)
    compare(engine, one("Gather", opset, {"x": x}, {"i": indices.astype(np.int64)}, {"axis": axis}), {"x": x})


def test_gather_runtime_indices(engine, rng):
    x = randf32(rng, 6, 5)
    idx = rng.integers(-6, 6, size=(2, 3)).astype(np.int64)
    compare(engine, one("Gather", 13, {"x": x, "i": idx}, attrs={"axis": 0}), {"x": x, "i": idx})


def test_scalar_index_shared_by_two_gathers(engine, rng):
    """One rank-0 index initializer read by two Gathers (onnxruntime's optimizer deduplicates the q / k / v indices
    of every attention block): the second Gather drops the axis too. It used to see the Data made for the first
    reader, shaped (1,), and keep the axis (a ViT preprocessed by onnxruntime failed to import)."""
    x = randf32(rng, 2, 3, 4, 5)
    nodes = [helper.make_node("Gather", ["x", "i"], ["a"], axis=1), helper.make_node("Relu", ["x"], ["r"]),
             helper.make_node("Gather", ["r", "i"], ["b"], axis=2), helper.make_node("Transpose", ["b"], ["y"],
                                                                                   perm=[0, 2, 1])]
    model = build(nodes, {"x": x}, {"i": np.array(2, np.int64)}, ["a", "y"], 13)
    compare(engine, model, {"x": x})


# ----- Identity, Dropout, Cast --------------------------------------------------------------------------------------
def test_identity_and_dropout(engine, rng):
    x = randf32(rng, 2, 3, 4)
    compare(engine, one("Identity", 13, {"x": x}), {"x": x})
    nodes = [helper.make_node("Identity", ["x"], ["i"]), helper.make_node("Dropout", ["i"], ["d"], ratio=0.3),
             helper.make_node("Relu", ["d"], ["y"])]
    compare(engine, build(nodes, {"x": x}, {}, ["y"], 7), {"x": x})
    model = one("Dropout", 13, {"x": x}, {"r": np.array(0.4, np.float32), "t": np.array(False)},
                outputs=["y", "mask"], out_types={"mask": TensorProto.BOOL})
    compare(engine, model, {"x": x})


def test_dropout_training_is_refused(rng):
    model = one("Dropout", 13, {"x": randf32(rng, 2, 3)}, {"r": np.array(0.4, np.float32), "t": np.array(True)})
    model.graph.output[0].type.tensor_type.shape.dim.add().dim_value = 2
    model.graph.output[0].type.tensor_type.shape.dim.add().dim_value = 3
    with pytest.raises(UnsupportedError, match="training_mode"):
        load_onnx(model)


@pytest.mark.parametrize("to,feed", [
    (TensorProto.INT64, "float"), (TensorProto.UINT8, "float_pos"), (TensorProto.BOOL, "float"),
    (TensorProto.FLOAT, "int64"), (TensorProto.INT8, "int32"),
])
def test_cast(engine, rng, to, feed):
    """ONNX Cast truncates toward zero (float → int), wraps narrowing integers, and maps non-zero to true."""
    base = np.concatenate([np.arange(-4, 4, 0.5), rng.uniform(-200, 200, 32)]).reshape(2, 3, 8)
    base[0, 0, :3] = 0
    x = {"float": base.astype(np.float32), "float_pos": np.abs(base).astype(np.float32),
         "int64": np.trunc(base).astype(np.int64), "int32": np.trunc(base).astype(np.int32)}[feed]
    model = one("Cast", 13, {"x": x}, attrs={"to": to}, out_types={"y": to})
    compare(engine, model, {"x": x}, atol=0)


# ----- the blocked path ---------------------------------------------------------------------------------------------
def test_after_blocked_convolution(engine, rng):
    """Conv (3 → 32 channels) runs in b_fs_yx_fsv16; Slice, Pad, Gather, Split and Transpose read that blocked
    tensor directly (one model, one build)."""
    x = randf32(rng, 1, 3, 8, 9)
    w = (rng.standard_normal((32, 3, 3, 3)) * 0.3).astype(np.float32)
    inits = {"w": w, "s": _i64(1, 2), "e": _i64(17, 7), "a": _i64(1, 3), "t": _i64(3, 2),
             "p": _i64(0, 1, 2, 1, 0, 2, 1, 0), "i": _i64(17, -1, 3)}
    nodes = [helper.make_node("Conv", ["x", "w"], ["c"], pads=[1, 1, 1, 1]),
             helper.make_node("Slice", ["c", "s", "e", "a", "t"], ["slice"]),
             helper.make_node("Pad", ["c", "p"], ["pad"], mode="reflect"),
             helper.make_node("Gather", ["c", "i"], ["gather"], axis=1),
             helper.make_node("Split", ["c"], ["split0", "split1"], axis=1),
             helper.make_node("Transpose", ["c"], ["transpose"], perm=[0, 2, 3, 1])]
    outs = ["slice", "pad", "gather", "split0", "split1", "transpose"]
    net = compare(engine, build(nodes, {"x": x}, inits, outs, 13), {"x": x}, atol=1e-4)
    if engine.kind == "ocl":  # the CPU engine has no blocked convolution kernel, so its layout optimizer keeps bfyx
        assert net.get_output_layout("c").format == cl.Format.b_fs_yx_fsv16
