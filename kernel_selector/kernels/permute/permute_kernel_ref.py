"""permute_ref: one work-item per output element; reads any input format/padding, writes the bfyx output."""

from __future__ import annotations

from cldnn_py.layout import DIMS
from cldnn_py.ops import PermuteAttrs

from ...common.nd_index import MAX_RANK, nd_jit, nd_output_coords
from ...jitter import JitConstants
from ...kernel_base import CopyKernelBase
from ...params import Params
from ...selector import register


def input_coords(order: tuple[int, ...]) -> list[str]:
    """For each input dimension (b, f, y, x), the output coordinate variable that indexes it, or ``0``.

    ONNX Transpose / numpy.transpose: output dimension i is input dimension ``order[i]``, so input dimension
    ``order[i]`` is indexed by output coordinate i. Dimensions beyond the logical rank (the trailing ones of
    ``dims4``) have coordinate 0.
    """
    coords = ["0"] * 4
    for i, d in enumerate(order):
        coords[d] = DIMS[i]
    return coords


@register
class PermuteKernelRef(CopyKernelBase):
    """Reference permute (clDNN ``permute_ref``): y[i0..ir] = x[j] with j[order[k]] = i[k] (logical rank 1-6).

    INPUT0 is any format, possibly padded; OUTPUT is bfyx of the permuted shape. gws = (x, y, f * b) of the
    output's dims4; ``IN_B/IN_F/IN_Y/IN_X`` name the output coordinate that indexes each input dimension (see
    :func:`input_coords`). Rank 5-6 tensors (unpadded bfyx) take the ``PERMUTE_ND`` path of the template with
    six coordinates (:mod:`..nd_index`). The value is copied in its own type; data types f32, f16, i32, i8, u8.
    """

    name = "permute_ref"
    primitive = "permute"

    def validate(self, params: Params) -> str | None:
        """The order must be a permutation of the input's logical rank."""
        order = tuple(params.attrs_as(PermuteAttrs).order)
        if sorted(order) != list(range(params.inputs[0].rank)):
            return f"order {order} is not a permutation of rank {params.inputs[0].rank}"
        return None

    def jit_constants(self, params: Params) -> JitConstants:
        """Tensors plus ``IN_B``, ``IN_F``, ``IN_Y``, ``IN_X``; for rank 5-6 (unpadded bfyx), ``PERMUTE_ND`` with the
        N-D indexing of :mod:`..nd_index` and ``IN_0`` .. ``IN_5`` (the output coordinate ``o<i>`` indexing each
        input dimension)."""
        j = super().jit_constants(params)
        order = tuple(params.attrs_as(PermuteAttrs).order)
        if len(order) > 4:
            j.add("PERMUTE_ND", 1).update(nd_output_coords())
            j.update(nd_jit("INPUT0", params.inputs[0])).update(nd_jit("OUTPUT", params.output))
            coords = ["0"] * MAX_RANK
            for i, d in enumerate(order):
                coords[d] = f"o{i}"
            for d, c in enumerate(coords):
                j.add(f"IN_{d}", c)
            return j
        for name, c in zip(DIMS, input_coords(order)):
            j.add(f"IN_{name.upper()}", c)
        return j
