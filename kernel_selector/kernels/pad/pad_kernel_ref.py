"""pad_ref: one work-item per output element; constant/reflect/edge/wrap borders; rank 1-6, any format."""

from __future__ import annotations

from cldnn_py.ops import PadAttrs

from ...common.nd_index import MAX_RANK, nd_check, nd_jit, nd_output_coords
from ...jitter import JitConstants
from ...kernel_base import CopyKernelBase
from ...params import FLOATS, Params
from ...selector import register

_MODES = {"constant": 0, "reflect": 1, "edge": 2, "wrap": 3}


@register
class PadKernelRef(CopyKernelBase):
    """Reference pad (clDNN ``border_ref``): output coordinate o reads input coordinate ``i = o - PAD_BEGIN_d``
    per dimension; a coordinate outside [0, n) gives ``PAD_VALUE`` (constant), or is mapped back into range:
    reflect (period 2(n-1), the edge not repeated; n = 1 reads 0), edge (clamped), wrap (i mod n), all as numpy.pad.

    INPUT0 and OUTPUT in any format, possibly padded (rank <= 4; unpadded bfyx for rank 5-6). gws = (x, y, f * b)
    of the output's dims4. Values are copied in their own type (the constant converted to it); f32, f16, i32, i8, u8.
    """

    name = "pad_ref"
    primitive = "pad"

    def validate(self, params: Params) -> str | None:
        """Output size = input + pads in every dimension; known mode."""
        x, a = params.inputs[0], params.attrs_as(PadAttrs)
        shape = tuple(n + lo + hi for n, lo, hi in zip(x.shape, a.pads_begin, a.pads_end))
        if len(a.pads_begin) != x.rank or shape != params.output.shape:
            return (f"input {x.shape} padded by {a.pads_begin}/{a.pads_end} is not the output "
                    f"{params.output.shape}")
        if a.mode not in _MODES:
            return f"unknown mode {a.mode!r}"
        return nd_check(params.inputs, params.output)

    def jit_constants(self, params: Params) -> JitConstants:
        """Tensors, N-D indexing, ``PAD_BEGIN_0..5``, ``PAD_MODE`` (0 constant, 1 reflect, 2 edge, 3 wrap),
        ``PAD_VALUE``."""
        j = super().jit_constants(params)
        x, a = params.inputs[0], params.attrs_as(PadAttrs)
        j.update(nd_jit("INPUT0", x)).update(nd_jit("OUTPUT", params.output)).update(nd_output_coords())
        begin = tuple(a.pads_begin) + (0,) * (MAX_RANK - x.rank)
        for d, b in enumerate(begin):
            j.add(f"PAD_BEGIN_{d}", b)
        j.add("PAD_MODE", _MODES[a.mode])
        value = float(a.value)
        if params.output.dtype in FLOATS:  # a float (stored as half for an f16 output)
            j.add("PAD_VALUE", f"((OUTPUT_VAL_TYPE){value!r}f)" if value == value and abs(value) != float("inf")
                  else ("NAN" if value != value else ("INFINITY" if value > 0 else "(-INFINITY)")))
        else:
            j.add("PAD_VALUE", f"((OUTPUT_TYPE){int(value)})")
        return j
