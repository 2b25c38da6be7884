"""reorder_gpu_wg: reorder_ref's element copy with explicit work-groups for GPUs (the GPU tier)."""

from __future__ import annotations

from cldnn_py.layout import DataType

from ...common.gpu_dispatch import wg_tensor_dispatch, wg_tensor_guard, wg_tensor_validate
from ...common.to_output import to_output_jit
from ...jitter import JitConstants
from ...kernel_base import FORCE_PRIORITY_3, KernelBase
from ...params import Params, SupportedKey
from ...selector import register

_ALL = frozenset({DataType.f32, DataType.f16, DataType.i32, DataType.i8, DataType.u8})


@register
class ReorderKernelGpuWg(KernelBase):
    """Reorder (clDNN ``reorder_data``) of rank 1-4 tensors: any format (plain, ``b_fs_yx_fsv16``, weight formats)
    and padding to any other, with reorder_ref's data type conversion (``convert_mode`` round / truncate / bool).

    One work-item per output element (b, f, y, x): gws (X, Y, F * B) of the output rounded up to lws
    (:func:`..common.gpu_dispatch.wg_dispatch`: 64-256 work-items, x fastest, so a bfyx output is written with
    consecutive addresses), guarded by ``WG_OUT_OF_RANGE``. No local memory. A blocked output's tail (features past
    C in the last 16-slice) is not written: the buffer's zeros stay, as with reorder_ref.
    """

    name = "reorder_gpu_wg"
    primitive = "reorder"
    tier = "gpu"

    def supported_key(self) -> SupportedKey:
        """f32, f16 (storage), i32, i8, u8 in and out; any format, padding allowed."""
        return SupportedKey(input_dtypes=_ALL, output_dtypes=_ALL)

    def validate(self, params: Params) -> str | None:
        """Rank <= 4 (rank 5-6 go to reorder_ref) and a work-group the device accepts."""
        return wg_tensor_validate(params.output, params.caps)

    def priority(self, params: Params) -> int:
        """Ahead of reorder_ref in the GPU tier."""
        return FORCE_PRIORITY_3

    def jit_constants(self, params: Params) -> JitConstants:
        """Tensors, ``WG_OUT_OF_RANGE`` and ``TO_OUTPUT(v)`` (reorder_ref's conversion rules)."""
        j = super().jit_constants(params).update(wg_tensor_guard("OUTPUT"))
        return j.add("TO_OUTPUT(v)", to_output_jit(params))

    def dispatch(self, params: Params) -> tuple[tuple[int, ...], tuple[int, ...]]:
        """gws (X, Y, F * B) of the output rounded up to lws (wg_dispatch)."""
        return wg_tensor_dispatch(params.output, params.caps)
