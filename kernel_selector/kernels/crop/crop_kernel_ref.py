"""crop_ref: one work-item per output element; input and output in any format, input padding allowed."""

from __future__ import annotations

from cldnn_py.layout import DIMS
from cldnn_py.ops import CropAttrs

from ...jitter import JitConstants
from ...kernel_base import CopyKernelBase
from ...params import Params
from ...selector import register


@register
class CropKernelRef(CopyKernelBase):
    """Reference crop (clDNN ``crop``): y[b, f, y, x] = x[b + ob, f + of, y + oy, x + ox].

    INPUT0 in any format, possibly padded; OUTPUT of the crop's ``shape`` in the input's format. ``offsets`` are
    per logical dimension (rank 1-4), padded with zeros to (b, f, y, x) and emitted as ``OFFSET_B`` ...
    ``OFFSET_X``. gws = (x, y, f * b) of the output. The value is copied in its own type; f32, f16, i32, i8, u8.
    """

    name = "crop_ref"
    primitive = "crop"

    def validate(self, params: Params) -> str | None:
        """The box must lie inside the input."""
        x = params.inputs[0]
        given = params.attrs_as(CropAttrs).offsets
        offs = given + (0,) * (4 - len(given))
        if any(o + s > n for o, s, n in zip(offs, params.output.dims4, x.dims4)):
            return f"crop box {params.output.shape} at {given} leaves input {x.shape}"
        return None

    def jit_constants(self, params: Params) -> JitConstants:
        """Tensors plus ``OFFSET_B``, ``OFFSET_F``, ``OFFSET_Y``, ``OFFSET_X``."""
        j = super().jit_constants(params)
        offs = tuple(params.attrs_as(CropAttrs).offsets) + (0,) * (4 - len(params.attrs_as(CropAttrs).offsets))
        for d, o in zip(DIMS, offs):
            j.add(f"OFFSET_{d.upper()}", o)
        return j
