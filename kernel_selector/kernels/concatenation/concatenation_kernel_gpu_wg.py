"""concatenation_gpu_wg: concatenation_ref's per-input copies with explicit work-groups for GPUs (the GPU tier)."""

from __future__ import annotations

from cldnn_py.layout import DataType
from cldnn_py.ops import ConcatenationAttrs

from ...common.concat import concat_axis4
from ...common.gpu_dispatch import wg_tensor_dispatch, wg_tensor_guard, wg_tensor_validate
from ...jitter import JitConstants, tensor_jit
from ...kernel_base import FORCE_PRIORITY_3, Arg, ClKernelData, KernelBase, KernelData
from ...params import FLOATS, Params, SupportedKey
from ...selector import register

_ALL = frozenset({DataType.f32, DataType.f16, DataType.i32, DataType.i8, DataType.u8})
_OFFSET = ("CONCAT_OFFSET_B", "CONCAT_OFFSET_F", "CONCAT_OFFSET_Y", "CONCAT_OFFSET_X")


@register
class ConcatenationKernelGpuWg(KernelBase):
    """Concatenation (clDNN ``concatenation_gpu_ref`` shape) along any axis of rank 1-4 tensors, GPU tier.

    One enqueue per input i (args ``[input i, output]``; input i is INPUT0 of its own enqueue, any format and
    padding): one work-item per element of input i, gws (X, Y, F * B) of input i rounded up to lws (64-256
    work-items, x fastest: :func:`..common.gpu_dispatch.wg_dispatch`), guarded by ``WG_OUT_OF_RANGE``; the element
    goes to the output at its coordinate plus ``CONCAT_OFFSET_{B,F,Y,X}``. No local memory. Data types i32, i8, u8
    copied unchanged (all inputs share the output's type); f32 and f16 (storage) inputs may mix, converted to the
    output's float type.
    """

    name = "concatenation_gpu_wg"
    primitive = "concatenation"
    n_data_inputs = None
    tier = "gpu"

    def supported_key(self) -> SupportedKey:
        """f32, f16, i32, i8, u8; any format, padding allowed."""
        return SupportedKey(input_dtypes=_ALL, output_dtypes=_ALL)

    def validate(self, params: Params) -> str | None:
        """Rank <= 4, same data type everywhere (or f32 / f16 mixed), shapes agree except along the axis (summing
        to the output's)."""
        out = params.output
        r = out.rank
        if r > 4:
            return f"rank {r} > 4 (the reference kernel handles it)"
        if not -r <= int(params.attrs_as(ConcatenationAttrs).axis) < r:
            return f"axis {params.attrs_as(ConcatenationAttrs).axis} out of range for rank {r}"
        ax = concat_axis4(params)
        total = 0
        for i, x in enumerate(params.inputs):
            if x.dtype != out.dtype and not (x.dtype in FLOATS and out.dtype in FLOATS):
                return f"input {i} data type {x.dtype.value} differs from output {out.dtype.value}"
            if x.rank != r or any(a != b for d, (a, b) in enumerate(zip(x.dims4, out.dims4)) if d != ax):
                return f"input {i} shape {x.shape} does not match output {out.shape} except along axis {ax}"
            reason = wg_tensor_validate(x, params.caps)
            if reason:
                return f"input {i}: {reason}"
            total += x.dims4[ax]
        if total != out.dims4[ax]:
            return f"inputs sum to {total} along axis {ax}, output has {out.dims4[ax]}"
        return None

    def priority(self, params: Params) -> int:
        """Ahead of concatenation_ref in the GPU tier."""
        return FORCE_PRIORITY_3

    def input_jit(self, params: Params, i: int, offset: int) -> JitConstants:
        """Input ``i`` as INPUT0, the OUTPUT, the slice offset and the guard over input ``i``."""
        ax = concat_axis4(params)
        j = tensor_jit("INPUT0", params.inputs[i])
        j.update(tensor_jit("OUTPUT", params.output)).update(wg_tensor_guard("INPUT0"))
        for d, name in enumerate(_OFFSET):
            j.add(name, offset if d == ax else 0)
        return j

    def kernel_data(self, params: Params) -> KernelData:
        """One enqueue per input, in input order, each writing its own slice of the output."""
        ax = concat_axis4(params)
        kd = KernelData(self.name)
        offset = 0
        for i, x in enumerate(params.inputs):
            entry, src = self.make_source(self.input_jit(params, i, offset))
            gws, lws = wg_tensor_dispatch(x, params.caps)
            kd.kernels.append(ClKernelData(entry, src, gws, lws, [Arg("input", i), Arg("output", 0)]))
            offset += x.dims4[ax]
        return kd
