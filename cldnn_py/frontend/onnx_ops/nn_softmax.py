"""Softmax and LogSoftmax → Softmax (versions 1/11: coerce to 2-D at axis; version 13: one axis)."""

from __future__ import annotations

from typing import Any

from ...primitives.softmax import Softmax
from . import converter
from .nn_common import since_version


def _softmax(ctx: Any, node: Any, log: bool) -> None:
    """Versions 1 and 11 flatten the input to 2-D at ``axis`` (default 1) and normalize each row; version 13
    normalizes along ``axis`` alone (default -1)."""
    legacy = since_version(ctx, node) < 13
    axis = int(ctx.attrs(node).get("axis", 1 if legacy else -1))
    ctx.add(Softmax(node.output[0], ctx.ref(node.input[0]), axis=axis, log=log, coerce_2d=legacy))


@converter("Softmax", versions=(1, 11, 13))
def softmax(ctx: Any, node: Any) -> None:
    """Softmax → Softmax."""
    _softmax(ctx, node, log=False)


@converter("LogSoftmax", versions=(1, 11, 13))
def log_softmax(ctx: Any, node: Any) -> None:
    """LogSoftmax → Softmax(log=True)."""
    _softmax(ctx, node, log=True)
