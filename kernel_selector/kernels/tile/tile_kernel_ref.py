"""tile_ref: one work-item per output element; rank 1-6, any format and padding (rank <= 4)."""

from __future__ import annotations

from cldnn_py.ops import TileAttrs

from ...common.nd_index import nd_check, nd_jit, nd_output_coords
from ...jitter import JitConstants
from ...kernel_base import CopyKernelBase
from ...params import Params
from ...selector import register


@register
class TileKernelRef(CopyKernelBase):
    """Reference tile (clDNN ``tile_ref``, numpy.tile): ``y[o] = x[o_d mod n_d]`` per dimension.

    INPUT0 and OUTPUT in any format, possibly padded (rank <= 4; unpadded bfyx for rank 5-6), same rank, each
    output size a multiple of the input's. gws = (x, y, f * b) of the output's dims4. The value is copied in its
    own type; f32, f16, i32, i8, u8.
    """

    name = "tile_ref"
    primitive = "tile"

    def validate(self, params: Params) -> str | None:
        """Same rank; output = input * repeats."""
        x, out = params.inputs[0], params.output
        reps = tuple(params.attrs_as(TileAttrs).repeats)
        if x.rank != out.rank or tuple(n * r for n, r in zip(x.shape, reps)) != out.shape:
            return f"input {x.shape} tiled {reps} is not the output {out.shape}"
        return nd_check(params.inputs, out)

    def jit_constants(self, params: Params) -> JitConstants:
        """Tensors and N-D indexing."""
        j = super().jit_constants(params)
        return j.update(nd_jit("INPUT0", params.inputs[0])).update(nd_jit("OUTPUT", params.output)).update(
            nd_output_coords())
