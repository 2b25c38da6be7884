"""broadcast_ref: one work-item per output element; numpy broadcasting; rank 1-6, any format (rank <= 4)."""

from __future__ import annotations

from ...common.nd_index import MAX_RANK, nd_check, nd_jit, nd_output_coords
from ...jitter import JitConstants
from ...kernel_base import CopyKernelBase
from ...params import Params
from ...selector import register


@register
class BroadcastKernelRef(CopyKernelBase):
    """Reference broadcast (clDNN ``broadcast_gpu_ref``, numpy.broadcast_to): the input's r dimensions align
    with the output's last r; input dimension k reads output coordinate ``o_{k + R - r}`` when its size equals the
    output's, else 0 (size 1). ``IN_COORD_k`` names that coordinate (``o<j>`` or ``0``).

    INPUT0 and OUTPUT in any format, possibly padded (rank <= 4; unpadded bfyx for rank 5-6). gws = (x, y, f * b)
    of the output's dims4. The value is copied in its own type; f32, f16, i32, i8, u8.
    """

    name = "broadcast_ref"
    primitive = "broadcast"

    def validate(self, params: Params) -> str | None:
        """The input must broadcast to the output (numpy rule)."""
        x, out = params.inputs[0], params.output
        r, big = x.rank, out.rank
        if r > big or any(n not in (1, s) for n, s in zip(x.shape, out.shape[big - r:])):
            return f"input {x.shape} does not broadcast to {out.shape}"
        return nd_check(params.inputs, out)

    def jit_constants(self, params: Params) -> JitConstants:
        """Tensors, N-D indexing and ``IN_COORD_0..5``."""
        j = super().jit_constants(params)
        x, out = params.inputs[0], params.output
        j.update(nd_jit("INPUT0", x)).update(nd_jit("OUTPUT", out)).update(nd_output_coords())
        shift = out.rank - x.rank
        for k in range(MAX_RANK):
            same = k < x.rank and x.shape[k] == out.shape[k + shift] and x.shape[k] > 1
            j.add(f"IN_COORD_{k}", f"o{k + shift}" if same else "0")
        return j
