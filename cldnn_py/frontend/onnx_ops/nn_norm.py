"""BatchNormalization → BatchNorm; InstanceNormalization and LayerNormalization → MVN; LRN → LRN."""

from __future__ import annotations

from typing import Any

from ...errors import UnsupportedError
from ...primitives.batch_norm import BatchNorm
from ...primitives.lrn import LRN
from ...primitives.mvn import MVN, MVNResult
from . import converter
from .nn_common import optional_input, where


@converter("BatchNormalization", versions=(7, 9, 14, 15))
def batch_normalization(ctx: Any, node: Any) -> None:
    """BatchNormalization, inference form: Y = (X − mean) / sqrt(var + epsilon) · scale + B per channel.

    Refused: ``training_mode=1`` (versions 14/15), ``spatial=0`` (version 7's per-activation statistics), and the
    running-statistics outputs (they exist only in training)."""
    a = ctx.attrs(node)
    if int(a.get("training_mode", 0)):
        raise UnsupportedError(f"{where(node)}: training_mode=1 is not supported (inference only)")
    if not int(a.get("spatial", 1)):
        raise UnsupportedError(f"{where(node)}: spatial=0 (per-activation statistics) is not supported")
    if any(o for o in node.output[1:]):
        raise UnsupportedError(f"{where(node)}: the mean/var outputs exist only in training mode")
    x, scale, bias, mean, var = node.input[:5]
    ctx.add(BatchNorm(node.output[0], ctx.ref(x), mean=ctx.ref(mean), variance=ctx.ref(var), scale=ctx.ref(scale),
                      shift=ctx.ref(bias), epsilon=float(a.get("epsilon", 1e-5))))


@converter("InstanceNormalization", versions=(6, 22))
def instance_normalization(ctx: Any, node: Any) -> None:
    """InstanceNormalization → MVN over the spatial axes of each (n, c), per-channel scale and B."""
    x, scale, bias = node.input[:3]
    rank = len(ctx.shape(x))
    if rank < 3:
        raise UnsupportedError(f"{where(node)}: input {ctx.shape(x)} needs at least one spatial dimension")
    ctx.add(MVN(node.output[0], ctx.ref(x), axes=tuple(range(2, rank)),
                epsilon=float(ctx.attrs(node).get("epsilon", 1e-5)), scale=ctx.ref(scale), bias=ctx.ref(bias),
                scale_axis=1))


@converter("LayerNormalization", versions=(17,))
def layer_normalization(ctx: Any, node: Any) -> None:
    """LayerNormalization → MVN over axes axis..rank-1 with Scale and B broadcast to the normalized shape; the
    optional Mean and InvStdDev outputs are MVNs of result mean / inv_std_dev (shape with the normalized axes
    1). ``stash_type`` only sets the precision of the statistics, which are float32 here either way."""
    a = ctx.attrs(node)
    x = node.input[0]
    scale, bias = node.input[1], optional_input(node, 2)
    rank = len(ctx.shape(x))
    axis = int(a.get("axis", -1))
    if not -rank <= axis < rank:
        raise UnsupportedError(f"{where(node)}: axis {axis} out of range for input {ctx.shape(x)}")
    axes = tuple(range(axis % rank, rank))
    eps = float(a.get("epsilon", 1e-5))
    xi = ctx.ref(x)
    results = [MVNResult.normalized, MVNResult.mean, MVNResult.inv_std_dev]
    for out, result in zip(node.output, results):
        if not out:
            continue
        if result == MVNResult.normalized:
            ctx.add(MVN(out, xi, axes=axes, epsilon=eps, scale=ctx.ref(scale),
                        bias=ctx.ref(bias) if bias else None))
        else:
            ctx.add(MVN(out, xi, axes=axes, epsilon=eps, result=result))


@converter("LRN", versions=(1, 13))
def lrn(ctx: Any, node: Any) -> None:
    """LRN → LRN across channels: size, alpha (divided by size), beta, bias (the LRN primitive's k)."""
    a = ctx.attrs(node)
    if "size" not in a:
        raise UnsupportedError(f"{where(node)}: the size attribute is required")
    ctx.add(LRN(node.output[0], ctx.ref(node.input[0]), size=int(a["size"]), alpha=float(a.get("alpha", 1e-4)),
                beta=float(a.get("beta", 0.75)), k=float(a.get("bias", 1.0))))
