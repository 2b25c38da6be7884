"""The CPU engine's one answer to "can this fused chain be expressed": :func:`cpu_fused_reason`. Every CPU
epilogue (the numpy one of ``cpu_kernel_base.apply_fused``, the numba ones of ``common/cpu_epilogue.py`` and the
CPU convolutions) runs the activations and eltwise modes of the element-wise table
(:mod:`cldnn_py.ops.elementwise`); they differ only in how they address an eltwise operand, which the caller
checks (``operand``).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from cldnn_py.layout import Layout
from cldnn_py.ops.elementwise import ACTIVATIONS, ELTWISE

from ..params import Params

OperandCheck = Callable[[Layout, Layout], "str | None"]


def numpy_operand(lay: Layout, out: Layout) -> str | None:
    """Why an eltwise operand of layout ``lay`` does not numpy-broadcast to the output ``out``, or None."""
    try:
        ok = lay.rank <= out.rank and np.broadcast_shapes(lay.shape, out.shape) == out.shape
    except ValueError:
        ok = False
    return None if ok else f"fused eltwise operand {lay.shape} does not broadcast to the output {out.shape}"


def cpu_fused_reason(params: Params, operand: OperandCheck = numpy_operand,
                     max_eltwise: int | None = None) -> str | None:
    """Why the CPU epilogues cannot express ``params.fused_ops``, or None: activations of the table, eltwise modes
    marked ``fused_cpu`` with one operand that ``operand(layout, output)`` accepts, at most ``max_eltwise`` eltwise
    ops (None: any number; the numba epilogues take one operand buffer)."""
    n_elt = 0
    for op in params.fused_ops:
        if op.kind == "activation":
            if op.act().func not in ACTIVATIONS:
                return f"fused activation {op.act().func!r} unknown"
        elif op.kind == "eltwise":
            n_elt += 1
            d = ELTWISE.get(op.elt().mode)
            mode = d.name if d is not None else str(op.elt().mode)
            if d is None or not d.fused_cpu or len(op.extra_inputs) != 1:
                return f"fused eltwise {mode!r} with {len(op.extra_inputs)} operands"
            why = operand(op.extra_inputs[0], params.output)
            if why is not None:
                return why
        else:
            return f"fused op {op.kind!r} is not supported"
    if max_eltwise is not None and n_elt > max_eltwise:
        return f"{n_elt} fused eltwise ops: the epilogue takes {max_eltwise} operand"
    return None
