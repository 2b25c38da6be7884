"""reorder_cpu_half: the f32 <-> f16 conversion that ``inference_precision="f16"`` inserts on the CPU engine
(``<producer>__to_f16`` / ``__to_f32``, convert_precision), when it keeps the format: one numpy cast of the flat
buffer into the output's.

Where it runs: at the edges of the layers that store half on the CPU engine (the fully connected layers at small
batch: docs/precision.md), whose converting reorders keep their producer's format and are unpadded. Without it
they ran reorder_cpu_ref's index-map gather. numpy's cast (``np.copyto`` with ``casting="unsafe"``) is a straight
vectorized loop and rounds to nearest even with overflow to infinity, as the OpenCL stores and ``astype(np.float16)``;
no numba specialization is compiled for it. reorder_cpu_copy (numba row copies, f16 outside its key) keeps every
other reorder; a format change or a padded tensor with half on either side runs reorder_cpu_ref.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from cldnn_py.layout import DataType
from cldnn_py.ops import ReorderAttrs

from ...common.cpu_launch import viewer
from ...cpu_kernel_base import CPU, CpuKernelBase
from ...kernel_base import FORCE_PRIORITY_3
from ...params import FLOATS, Params, SupportedKey
from ...selector import register


@register
class ReorderKernelCpuHalf(CpuKernelBase):
    """Reorder between f32 and f16 (either way, or f16 to f16) in one plain format, both sides unpadded: y = x cast
    element by element over the flat buffer (the same physical order on both sides).

    Refused (validate()): neither side f16 (reorder_cpu_copy's), a format change, a blocked format (its block tail
    must keep its content), the ``bool`` conversion, different shapes, fused ops."""

    name = "reorder_cpu_half"
    primitive = "reorder"
    supports_fused_ops = False

    def supported_key(self) -> SupportedKey:
        """CPU, f32 / f16 in and out, any format, no padding."""
        return SupportedKey(engines=CPU, input_dtypes=FLOATS, output_dtypes=FLOATS, padded_inputs=False,
                            padded_output=False)

    def validate(self, params: Params) -> str | None:
        """f16 on at least one side, one plain format on both, same shape, a cast (not ``bool``), no fused ops."""
        x, out = params.inputs[0], params.output
        if DataType.f16 not in (x.dtype, out.dtype):
            return "no f16 side: an f32 copy is reorder_cpu_copy's"
        if x.format != out.format:
            return f"format change {x.format.value} -> {out.format.value}: reorder_cpu_ref converts it"
        if x.format.is_blocked:
            return f"blocked format {x.format.value}: the block tail must keep its content"
        if x.shape != out.shape:
            return f"input shape {x.shape} and output shape {out.shape} differ"
        if params.attrs_as(ReorderAttrs).convert_mode == "bool":
            return "the bool conversion is reorder_cpu_ref's"
        return "fused ops are not supported" if params.fused_ops else None

    def priority(self, params: Params) -> int:
        """Ahead of the reference whenever it validates."""
        return FORCE_PRIORITY_3

    def make_fn(self, params: Params) -> Callable[..., None]:
        """fn(input, output): the first ``count`` elements of the input buffer cast into the output buffer's."""
        x, out = params.inputs[0], params.output
        count = x.count()
        src, dst = viewer(x), viewer(out)

        def fn(*bufs: Any) -> None:
            with np.errstate(over="ignore"):  # past 65504: infinity, as the OpenCL stores
                np.copyto(dst(bufs[-1])[:count], src(bufs[0])[:count], casting="unsafe")

        return fn
