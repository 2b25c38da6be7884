"""Element-wise activations: Relu, LeakyRelu, Sigmoid, Tanh, Elu, ... → Activation."""

from __future__ import annotations

from typing import Any

from ...primitives import Activation
from . import converter


@converter("Relu", versions=(1, 6, 13, 14))
def relu(ctx: Any, node: Any) -> None:
    """Relu → activation relu."""
    ctx.add(Activation(node.output[0], ctx.ref(node.input[0]), "relu"))
