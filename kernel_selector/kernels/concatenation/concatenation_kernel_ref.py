"""concatenation_ref: one enqueue per input, each copying its input into its slice of the output; any formats."""

from __future__ import annotations

from cldnn_py.layout import DataType
from cldnn_py.ops import ConcatenationAttrs

from ...common.concat import concat_axis4
from ...jitter import JitConstants, tensor_jit
from ...kernel_base import Arg, ClKernelData, KernelBase, KernelData
from ...params import FLOATS, Params, SupportedKey
from ...selector import register

_ALL = frozenset({DataType.f32, DataType.f16, DataType.i32, DataType.i8, DataType.u8})
_OFFSET = ("CONCAT_OFFSET_B", "CONCAT_OFFSET_F", "CONCAT_OFFSET_Y", "CONCAT_OFFSET_X")




@register
class ConcatenationKernelRef(KernelBase):
    """Reference concatenation (clDNN ``concatenation_gpu_ref``) along any axis of rank 1-4 tensors.

    KernelData holds one ClKernelData per input i: args ``[input i, output]``, the template sees input i as
    INPUT0 (its own format and padding) and adds ``CONCAT_OFFSET_{B,F,Y,X}`` (the sum of the previous inputs'
    sizes along the axis) to the output coordinate. gws = (x, y, f * b) of input i. Inputs may be in formats
    other than the output's; integer data types are copied unchanged (all inputs share the output's type), f32
    and f16 (storage) inputs may mix and are converted to the output's float type (stores to f16 round to nearest
    even).
    """

    name = "concatenation_ref"
    primitive = "concatenation"
    n_data_inputs = None

    def supported_key(self) -> SupportedKey:
        """f32, f16, i32, i8, u8 (data movement); any format, padding allowed."""
        return SupportedKey(input_dtypes=_ALL, output_dtypes=_ALL)

    def validate(self, params: Params) -> str | None:
        """Same data type everywhere (or f32 / f16 mixed); shapes agree except along the axis, whose sizes sum to
        the output's."""
        out = params.output
        r = out.rank
        if not -r <= int(params.attrs_as(ConcatenationAttrs).axis) < r:
            return f"axis {params.attrs_as(ConcatenationAttrs).axis} out of range for rank {r}"
        ax = concat_axis4(params)
        total = 0
        for i, x in enumerate(params.inputs):
            if x.dtype != out.dtype and not (x.dtype in FLOATS and out.dtype in FLOATS):
                return f"input {i} data type {x.dtype.value} differs from output {out.dtype.value}"
            if x.rank != r or any(a != b for d, (a, b) in enumerate(zip(x.dims4, out.dims4)) if d != ax):
                return f"input {i} shape {x.shape} does not match output {out.shape} except along axis {ax}"
            total += x.dims4[ax]
        if total != out.dims4[ax]:
            return f"inputs sum to {total} along axis {ax}, output has {out.dims4[ax]}"
        return None

    def input_jit(self, params: Params, i: int, offset: int) -> JitConstants:
        """Constants of the enqueue for input ``i``: that input as INPUT0, the OUTPUT, and the slice offset."""
        ax = concat_axis4(params)
        j = tensor_jit("INPUT0", params.inputs[i])
        j.update(tensor_jit("OUTPUT", params.output))
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
            b, f, y, xs = x.dims4
            kd.kernels.append(ClKernelData(entry, src, (xs, y, f * b), None, [Arg("input", i), Arg("output", 0)]))
            offset += x.dims4[ax]
        return kd
