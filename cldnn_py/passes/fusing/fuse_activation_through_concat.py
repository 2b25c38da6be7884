"""Move an activation after a concatenation into the kernels that produce the concatenation's inputs.

An element-wise function commutes with a concatenation: ``act(concat(a, b)) = concat(act(a), act(b))``. When every
input of the concatenation is a kernel that can apply fused ops (a convolution, pooling ...) read by the
concatenation alone, the activation joins each input's fused chain and the activation node goes: one kernel and a
full read and write of the concatenated tensor saved, and the concatenation can still be done in place (its inputs
write straight into its buffer, ``prepare_buffer_fusing``). A QDQ model re-quantizes every concatenation's output
(SqueezeNet quantized by onnxruntime: 8 fire modules × 4 fake-quantization activations = 32 of its 48 activation
kernels). OpenVINO's graph transformations move element-wise operations through concatenations the same way.

Runs after ``fuse_activation`` (``fusing.RULES``), so each input already carries its own chain; the moved
activation is appended after it, with the activations fused into it (a chain of activations is one node by then).
The activation's id resolves to the concatenation (profiling: FUSED).
"""

from __future__ import annotations

from kernel_selector import FusedOp

from ...ops import ActivationAttrs, FusedActivationAttrs
from ...program_graph import ProgramGraph
from ...program_node import ProgramNode
from .common import can_host, sole_user


def fuse_activation_through_concat(program: ProgramGraph, act: ProgramNode) -> bool:
    """Apply the rule to ``act``; True when it moved."""
    if act.kind != "activation" or len(act.dependencies) != 1:
        return False
    concat = act.dependencies[0]
    if concat.kind != "concatenation" or concat.constant or sole_user(concat) is not act:
        return False
    ins = concat.dependencies
    if not ins or len({id(d) for d in ins}) != len(ins):
        return False  # an input concatenated twice would get the activation twice
    if any(not can_host(program, d) or sole_user(d) is not concat for d in ins):
        return False
    if any(d.output_layout is not None and act.output_layout is not None
           and d.output_layout.dtype != act.output_layout.dtype for d in ins):
        return False
    if any(op.kind != "activation" for op in act.fused_ops):
        return False  # an eltwise operand is indexed by the concatenated tensor
    a = act.primitive.attrs()
    assert isinstance(a, ActivationAttrs)
    for d in ins:  # the activation, then the activations fused into it (fuse_activation ran first)
        d.fused_ops.append(FusedOp("activation", FusedActivationAttrs(a.func.value, a.a, a.b), fused_id=act.id))
        d.fused_ops.extend(act.fused_ops)
    program.fuse(act, concat)
    return True
