"""pad_gpu_wg: pad_ref's element copy (rank <= 4) with explicit work-groups for GPUs (the GPU tier)."""

from __future__ import annotations

from cldnn_py.layout import DataType
from cldnn_py.ops import PadAttrs

from ...common.gpu_dispatch import wg_tensor_dispatch, wg_tensor_guard, wg_tensor_validate
from ...common.nd_index import MAX_RANK, nd_jit, nd_output_coords
from ...jitter import JitConstants
from ...kernel_base import FORCE_PRIORITY_3, CopyKernelBase
from ...params import Params
from ...selector import register

_MODES = {"constant": 0, "reflect": 1, "edge": 2, "wrap": 3}


@register
class PadKernelGpuWg(CopyKernelBase):
    """Pad (numpy.pad; clDNN ``border``), GPU tier, rank 1-4 (rank 5-6 stay with pad_ref): output coordinate o
    reads input i = o - begin per dimension; outside [0, n): the constant, or reflect / edge / wrap as numpy.pad.

    INPUT0 and OUTPUT any format, possibly padded (through the N-D indexing of :mod:`..common.nd_index`). One
    work-item per output element: gws (X, Y, F * B) of the output rounded up to lws (64-256 work-items, x
    fastest), guarded by ``WG_OUT_OF_RANGE``. No local memory. f32, i32, i8, u8 (the constant converted).
    """

    name = "pad_gpu_wg"
    primitive = "pad"
    tier = "gpu"

    def validate(self, params: Params) -> str | None:
        """Rank <= 4, output = input + pads, a known mode, a fitting work-group."""
        x, a = params.inputs[0], params.attrs_as(PadAttrs)
        shape = tuple(n + lo + hi for n, lo, hi in zip(x.shape, a.pads_begin, a.pads_end))
        if len(a.pads_begin) != x.rank or shape != params.output.shape:
            return f"input {x.shape} padded by {a.pads_begin}/{a.pads_end} is not the output {params.output.shape}"
        if a.mode not in _MODES:
            return f"unknown mode {a.mode!r}"
        return wg_tensor_validate(x, params.caps) or wg_tensor_validate(params.output, params.caps)

    def priority(self, params: Params) -> int:
        """Ahead of pad_ref in the GPU tier."""
        return FORCE_PRIORITY_3

    def jit_constants(self, params: Params) -> JitConstants:
        """Tensors, the guard, N-D indexing, ``PAD_BEGIN_0..5``, ``PAD_MODE``, ``PAD_VALUE``."""
        j = super().jit_constants(params).update(wg_tensor_guard("OUTPUT"))
        x, a = params.inputs[0], params.attrs_as(PadAttrs)
        j.update(nd_jit("INPUT0", x)).update(nd_jit("OUTPUT", params.output)).update(nd_output_coords())
        for d, b in enumerate(tuple(a.pads_begin) + (0,) * (MAX_RANK - x.rank)):
            j.add(f"PAD_BEGIN_{d}", b)
        j.add("PAD_MODE", _MODES[a.mode])
        value = float(a.value)
        if params.output.dtype == DataType.f32:
            j.add("PAD_VALUE", f"((OUTPUT_TYPE){value!r}f)" if value == value and abs(value) != float("inf")
                  else ("NAN" if value != value else ("INFINITY" if value > 0 else "(-INFINITY)")))
        else:
            j.add("PAD_VALUE", f"((OUTPUT_TYPE){int(value)})")
        return j

    def dispatch(self, params: Params) -> tuple[tuple[int, ...], tuple[int, ...]]:
        """gws (X, Y, F * B) of the output rounded up to lws (wg_dispatch)."""
        return wg_tensor_dispatch(params.output, params.caps)
