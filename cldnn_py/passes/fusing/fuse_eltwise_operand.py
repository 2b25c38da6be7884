"""Fold an element-wise op with a broadcast operand into the kernel that produces its other input.

``conv(x) · s + b`` with ``s`` and ``b`` computed at run time or held per channel (a dynamically quantized layer's
dequantization ``Mul(Cast(ConvInteger), x_scale · w_scale)`` and its ``Add(bias)``, frontend/onnx_dynamic_quant.py)
becomes one convolution kernel whose epilogue reads ``s`` and ``b``; ``min(max(round(x / s), lo), hi)`` with
one-element ``s``, ``lo``, ``hi`` becomes one eltwise kernel (a dynamic quantization's clamp). Each fused op saves a
full tensor write and read and a kernel (measured on a dynamically quantized SqueezeNet on PoCL: the unfused bias
Add ran ``eltwise_ref`` on the blocked output, 3.9 ms of 14 ms device time). clDNN fuses such eltwise ops as
``FusedOpType::ELTWISE`` with any broadcastable operand.

Conditions: the eltwise has two inputs, no coefficients, a mode both epilogue kinds have (``fused_cl`` and
``fused_cpu`` in ops/elementwise.py); the host (a convolution, or an eltwise when the operand has one element) is
its only reader and gives the eltwise's shape and type; the other input has the output's shape or broadcasts to it
along size-1 dimensions of the same rank, or has one element (:func:`kernel_selector.common.fused_ops.broadcasts`);
for a mode that is not commutative the host is the first input (``val OP operand``). The eltwise's own fused
activations move with it. A residual sum of the output's shape is ``fuse_eltwise_sum``'s, which runs earlier.

OpenCL engines only: on the CPU engine the packed-panel convolution with a fused one-element operand ran 2-3× slower
than the convolution and a separate eltwise kernel (dynamically quantized SqueezeNet: convolutions 12.8 → 28-36 ms,
its first layer 1.55 → 5.1 ms, same process; a fast one-element path in ``chain_span`` did not change it), so the
rule leaves CPU programs alone.
"""

from __future__ import annotations

from kernel_selector.common.fused_ops import broadcasts

from ...ops import EltwiseAttrs
from ...ops.elementwise import ELTWISE
from ...program_graph import ProgramGraph
from ...program_node import ProgramNode
from .common import can_host, fuse_eltwise_into, sole_user

COMMUTATIVE = frozenset({"sum", "prod", "max", "min"})
HOSTS = ("convolution", "eltwise")


def fuse_eltwise_operand(program: ProgramGraph, elt: ProgramNode) -> bool:
    """Apply the rule to ``elt``; True when it fused."""
    if elt.kind != "eltwise" or len(elt.dependencies) != 2 or elt.dependencies[0] is elt.dependencies[1]:
        return False
    a = elt.primitive.attrs()
    assert isinstance(a, EltwiseAttrs)
    mode = a.mode.value
    d = ELTWISE.get(mode)
    if d is None or not (d.fused_cl and d.fused_cpu) or a.coefficients is not None:
        return False
    if any(op.kind != "activation" or op.dep_indices for op in elt.fused_ops):
        return False  # only the eltwise's own activations move with it (no operand to re-index)
    out = elt.layout()
    for i in (0, 1) if mode in COMMUTATIVE else (0,):
        host, other = elt.dependencies[i], elt.dependencies[1 - i]
        if not can_host(program, host, HOSTS) or sole_user(host) is not elt:
            continue
        if host.kind == "eltwise" and other.layout().count() != 1:
            continue  # an eltwise kernel's flat form reads fused operands without coordinates: one element only
        if host.layout().shape != out.shape or host.layout().dtype != out.dtype or \
                other.layout().dtype != out.dtype or not broadcasts(other.layout(), out):
            continue
        if program.engine.kind == "cpu":
            continue  # measured slower there (module docstring)
        fuse_eltwise_into(program, elt, host, other)
        return True
    return False
