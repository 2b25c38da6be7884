"""Data-movement operators that keep every element: Concat, Flatten, Reshape, Transpose, Squeeze, Unsqueeze,
Identity, Dropout, Cast (``slicing.py``: Slice, Split, Pad, Expand, Tile, Gather; ``resize.py``: Resize, Upsample).

Only non-constant tensors reach these converters: nodes whose inputs are all constants are folded at import.
Shape-only operators become a ``Reshape`` (or no kernel at all when the shape does not change: an alias).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...errors import UnsupportedError
from ...layout import DataType
from ...primitives.concatenation import Concatenation
from ...primitives.permute import Permute
from ...primitives.reorder import Reorder
from ...primitives.reshape import Reshape
from . import converter

MAX_RANK = 6


def reshape_to(ctx: Any, out: str, src: str, shape: tuple[int, ...], node: Any) -> None:
    """Tensor ``out`` = tensor ``src`` viewed as ``shape`` (rank 0 becomes (1,)): a Reshape, or an alias when the
    shape is unchanged; an empty constant for a zero-size shape. Raises UnsupportedError for a rank above 6."""
    shape = tuple(int(s) for s in shape) or (1,)
    if min(shape) == 0:
        ctx.empty(out, shape, src)
        return
    if len(shape) > MAX_RANK or min(shape) < 1:
        raise UnsupportedError(f"{node.op_type} '{node.name}': output shape {shape} (rank > {MAX_RANK} or "
                               f"zero-size tensors are not supported)")
    if ctx.shape(src) == shape:
        ctx.alias(out, src)
    else:
        ctx.add(Reshape(out, ctx.ref(src), shape=shape))


def axes_input(ctx: Any, node: Any, index: int, attr: str = "axes") -> list[int] | None:
    """The ``axes`` of a node: attribute before opset 13 (18 for some ops), constant input ``index`` after."""
    a = ctx.attrs(node)
    if attr in a:
        return [int(v) for v in a[attr]]
    if len(node.input) > index and node.input[index]:
        return [int(v) for v in np.asarray(ctx.const(node.input[index])).reshape(-1)]
    return None


@converter("Concat", versions=(4, 11, 13))
def concat(ctx: Any, node: Any) -> None:
    """Concat → concatenation along ``axis`` (negative from the end). Ranks 5-6 along a dimension >= 3 (which the
    kernel's 4-D view folds into x) concatenate a (before, axis, after) rank-3 view of each input instead. Empty
    inputs (zero-size constants) are dropped."""
    ins = [i for i in node.input if i and not ctx.is_empty(i)] or [node.input[0]]
    shape = ctx.shape(ins[0])
    r = len(shape)
    ax = int(ctx.attrs(node)["axis"]) % r
    if len(ins) == 1:
        ctx.alias(node.output[0], ins[0])
        return
    if r <= 4 or ax <= 2:
        ctx.add(Concatenation(node.output[0], [ctx.ref(i) for i in ins], axis=ax))
        return
    views = []
    for i in ins:
        s = ctx.shape(i)
        v = ctx.fresh(node.output[0] + "_in")
        ctx.add(Reshape(v, ctx.ref(i), shape=(int(np.prod(s[:ax])), s[ax], int(np.prod(s[ax + 1:])))))
        views.append(v)
    cat = ctx.add(Concatenation(ctx.fresh(node.output[0] + "_cat"), views, axis=1))
    out_shape = list(shape)
    out_shape[ax] = sum(ctx.shape(i)[ax] for i in ins)
    ctx.add(Reshape(node.output[0], cat, shape=tuple(out_shape)))


@converter("Flatten", versions=(1, 9, 11, 13, 21, 23, 24, 25))
def flatten(ctx: Any, node: Any) -> None:
    """Flatten → reshape to (prod(shape[:axis]), prod(shape[axis:])); negative axis counts from the end."""
    shape = ctx.shape(node.input[0])
    axis = int(ctx.attrs(node).get("axis", 1))
    axis = axis + len(shape) if axis < 0 else axis
    reshape_to(ctx, node.output[0], node.input[0],
               (int(np.prod(shape[:axis])), int(np.prod(shape[axis:]))), node)


@converter("Reshape", versions=(5, 13, 14, 19, 21, 23, 24, 25))
def reshape(ctx: Any, node: Any) -> None:
    """Reshape with a constant ``shape``: 0 copies the input's dimension (unless ``allowzero``), -1 is
    inferred. A zero-size result (``allowzero`` with a 0) is refused."""
    src = ctx.shape(node.input[0])
    target = [int(v) for v in np.asarray(ctx.const(node.input[1])).reshape(-1)]
    allowzero = int(ctx.attrs(node).get("allowzero", 0))
    shape = [src[i] if v == 0 and not allowzero else v for i, v in enumerate(target)]
    if -1 in shape:
        known = int(np.prod([s for s in shape if s != -1]))
        total = int(np.prod(src))
        if known == 0 or total % known:
            raise UnsupportedError(f"Reshape '{node.name}': cannot reshape {src} to {target}")
        shape[shape.index(-1)] = total // known
    if int(np.prod(shape)) != int(np.prod(src)):
        raise UnsupportedError(f"Reshape '{node.name}': element count of {target} differs from input {src}")
    reshape_to(ctx, node.output[0], node.input[0], tuple(shape), node)


def canonical_permute(shape: tuple[int, ...], perm: tuple[int, ...]) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """The smallest equivalent transpose: (merged input shape, permutation of the merged dimensions).

    Size-1 dimensions are dropped, and input dimensions that stay adjacent and in order in the output are merged
    (row-major order is unchanged by both). ShuffleNet's channel shuffle (N, g, C/g, H, W) with perm
    (0, 2, 1, 3, 4) becomes (N, g, C/g, H*W) with (0, 2, 1, 3). An identity result has a sorted permutation.
    """
    kept = [d for d in range(len(shape)) if shape[d] != 1]
    pos = {d: k for k, d in enumerate(kept)}
    order = [pos[d] for d in perm if shape[d] != 1]
    groups: list[list[int]] = []
    for k in order:
        if groups and groups[-1][-1] + 1 == k:
            groups[-1].append(k)
        else:
            groups.append([k])
    by_input = sorted(range(len(groups)), key=lambda g: groups[g][0])
    merged = tuple(int(np.prod([shape[kept[k]] for k in groups[g]])) for g in by_input)
    new_perm = tuple(by_input.index(g) for g in range(len(groups)))
    return merged or (1,), new_perm or (0,)


@converter("Transpose", versions=(1, 13, 21, 23, 24, 25))
def transpose(ctx: Any, node: Any) -> None:
    """Transpose → permute of the canonical (merged, size-1-free) view (:func:`canonical_permute`), with
    reshapes around it when the view differs; a transpose that keeps the memory order is a reshape. The view is
    usually rank <= 4 (any format); irreducible rank 5-6 permutations (DepthToSpace chains) run on bfyx."""
    shape = ctx.shape(node.input[0])
    perm = tuple(int(p) for p in ctx.attrs(node).get("perm", range(len(shape) - 1, -1, -1)))
    permute_to(ctx, node.output[0], node.input[0], perm, node)


def permute_to(ctx: Any, out: str, src: str, perm: tuple[int, ...], node: Any) -> None:
    """Tensor ``out`` = numpy.transpose(tensor ``src``, ``perm``), as :func:`transpose` converts it (shared by the
    converters composed of transposes: DepthToSpace, CumSum, Einsum ...). ``src`` may be a tensor name or the id of
    a primitive a converter added."""
    shape = ctx.shape(src)
    out_shape = tuple(shape[p] for p in perm)
    merged, new_perm = canonical_permute(shape, perm)
    if list(new_perm) == sorted(new_perm):
        reshape_to(ctx, out, src, out_shape, node)
        return
    pid = ctx.ref(src)
    if merged != shape:
        pid = ctx.add(Reshape(ctx.fresh(out + "_view"), pid, shape=merged))
    merged_out = tuple(merged[p] for p in new_perm)
    if merged_out == out_shape:
        ctx.add(Permute(out, pid, order=new_perm))
    else:
        p = ctx.add(Permute(ctx.fresh(out + "_perm"), pid, order=new_perm))
        ctx.add(Reshape(out, p, shape=out_shape))


@converter("Squeeze", versions=(1, 11, 13, 21, 23, 24, 25))
def squeeze(ctx: Any, node: Any) -> None:
    """Squeeze → reshape without the listed size-1 axes (all size-1 axes when none are given)."""
    shape = ctx.shape(node.input[0])
    axes = axes_input(ctx, node, 1)
    r = len(shape)
    drop = {a % r for a in axes} if axes is not None else {d for d in range(r) if shape[d] == 1}
    if any(shape[d] != 1 for d in drop):
        raise UnsupportedError(f"Squeeze '{node.name}': axes {sorted(drop)} of {shape} are not all of size 1")
    reshape_to(ctx, node.output[0], node.input[0], tuple(s for d, s in enumerate(shape) if d not in drop), node)


@converter("Unsqueeze", versions=(1, 11, 13, 21, 23, 24, 25))
def unsqueeze(ctx: Any, node: Any) -> None:
    """Unsqueeze → reshape with size-1 axes inserted (axes index the output; negative from its end)."""
    shape = list(ctx.shape(node.input[0]))
    axes = axes_input(ctx, node, 1) or []
    r = len(shape) + len(axes)
    for a in sorted(a % r for a in axes):
        shape.insert(a, 1)
    reshape_to(ctx, node.output[0], node.input[0], tuple(shape), node)


@converter("Identity", versions=(1, 13, 14, 16, 19, 21, 23, 24, 25))
def identity(ctx: Any, node: Any) -> None:
    """Identity → alias of the input (no kernel; a copy when the output is a graph output)."""
    ctx.alias(node.output[0], node.input[0])


@converter("Dropout", versions=(7, 10, 12, 13, 22))
def dropout(ctx: Any, node: Any) -> None:
    """Dropout at inference → alias of the input; the optional mask output is an all-true constant.

    ``training_mode`` (opset 12+) must be a constant; training with a non-zero ratio is random and refused.
    """
    if len(node.input) > 2 and node.input[2]:
        training = bool(np.asarray(ctx.const(node.input[2])).reshape(-1)[0])
        ratio = float(np.asarray(ctx.const(node.input[1])).reshape(-1)[0]) if node.input[1] else 0.5
        if training and ratio != 0.0:
            raise UnsupportedError(f"Dropout '{node.name}': training_mode=true with ratio {ratio} is random; "
                                   f"only inference is supported")
    ctx.alias(node.output[0], node.input[0])
    if len(node.output) > 1 and node.output[1]:
        ctx.consts[node.output[1]] = np.ones(ctx.shape(node.input[0]), dtype=np.bool_)


# ONNX TensorProto element type -> (device data type, reorder convert_mode); doubles are computed as f32 and
# wide integers as i32 (the engine's storage of those types, see onnx_context.to_device_array)
_CAST = {1: (DataType.f32, "truncate"), 11: (DataType.f32, "truncate"), 6: (DataType.i32, "truncate"),
         7: (DataType.i32, "truncate"), 3: (DataType.i8, "truncate"), 2: (DataType.u8, "truncate"),
         9: (DataType.u8, "bool")}


@converter("Cast", versions=(6, 9, 13, 19, 21, 23, 24, 25, 28))
def cast(ctx: Any, node: Any) -> None:
    """Cast of a run-time tensor → reorder with ``dtype`` and ONNX's conversion rules (float → integer toward
    zero, integer narrowing wraps, bool = non-zero); an alias when the device type is unchanged. Targets: float,
    double (as f32), int32, int64 (as i32), int8, uint8, bool (as u8)."""
    to = int(ctx.attrs(node)["to"])
    if to not in _CAST:
        from onnx import TensorProto

        raise UnsupportedError(f"Cast '{node.name}': target type {TensorProto.DataType.Name(to)} is not supported "
                               f"(float, double, int32, int64, int8, uint8, bool are)")
    dtype, mode = _CAST[to]
    src = ctx.layout(node.input[0])
    if src.dtype == dtype and mode != "bool":
        ctx.alias(node.output[0], node.input[0])
        return
    ctx.add(Reorder(node.output[0], ctx.ref(node.input[0]), format=src.format, dtype=dtype, convert_mode=mode))
