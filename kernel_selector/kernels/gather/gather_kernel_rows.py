"""gather_rows: Gather of contiguous rows (unpadded bfyx) with 8-element vector copies (CPU tier).

``gather_ref`` gives each work-item one output element through the N-D index macros: an attention block's q / k / v
split (Gather of index 0, 1, 2 on the leading axis of a (3, 1, 3, 197, 64) tensor) took 0.05 ms each on PoCL, and a
token embedding lookup is the same shape of work. Here a work-item copies a chunk of one gathered row.
"""

from __future__ import annotations

from cldnn_py.layout import DataType, Format
from cldnn_py.ops import GatherAttrs

from ...jitter import JitConstants
from ...kernel_base import FORCE_PRIORITY_3, KernelBase
from ...params import Params, SupportedKey
from ...selector import register
from .gather_kernel_ref import GatherKernelRef

CHUNK = 512  # elements of a row one work-item copies
TYPES = frozenset({DataType.f32, DataType.i32})
VECTORS = {DataType.f32: "float8", DataType.i32: "int8"}
MIN_INNER = 8  # rows shorter than one vector: gather_ref


def geometry(params: Params) -> tuple[int, int, int, int]:
    """(outer, axis size, number of indices, inner): the products of the axes before and after the gather axis."""
    x, idx = params.inputs[0], params.inputs[1]
    ax = int(params.attrs_as(GatherAttrs).axis) % x.rank
    outer = inner = 1
    for s in x.shape[:ax]:
        outer *= s
    for s in x.shape[ax + 1:]:
        inner *= s
    return outer, x.shape[ax], idx.count(), inner


@register
class GatherKernelRows(KernelBase):
    """Gather (``gather_ref``'s semantics, numpy.take / ONNX Gather with negative indices from the end and the index
    clamped into range) when data and output are unpadded bfyx f32 / i32 (the same type) and the rows after the
    gather axis have at least MIN_INNER elements; indices i32 unpadded bfyx of any shape (or one with
    ``scalar_index``). gws = (outer · indices, ceil(inner / CHUNK)), lws = (1, 1) (cl_kernels/gather_rows.cl)."""

    name = "gather_rows"
    primitive = "gather"
    tier = "cpu"  # work-groups of one work-item
    n_data_inputs = 1

    def supported_key(self) -> SupportedKey:
        """OpenCL; data f32 / i32, indices i32; bfyx, no padding."""
        return SupportedKey(input_dtypes=TYPES, output_dtypes=TYPES, input_formats=frozenset({Format.bfyx}),
                            output_formats=frozenset({Format.bfyx}), padded_inputs=False, padded_output=False)

    def validate(self, params: Params) -> str | None:
        """gather_ref's checks, data and output of one type, rows of at least MIN_INNER elements."""
        why = GatherKernelRef().validate(params)
        if why:
            return why
        if params.inputs[0].dtype != params.output.dtype:
            return f"data {params.inputs[0].dtype.value} and output {params.output.dtype.value} types differ"
        inner = geometry(params)[3]
        if inner < MIN_INNER:
            return f"rows of {inner} elements after the gather axis (under {MIN_INNER}: gather_ref)"
        return None

    def priority(self, params: Params) -> int:
        """Ahead of the reference."""
        return FORCE_PRIORITY_3

    def jit_constants(self, params: Params) -> JitConstants:
        """Tensors, GR_T8, GR_AXIS, GR_NIDX, GR_INNER, GR_CHUNK."""
        j = super().jit_constants(params)
        _, axis, nidx, inner = geometry(params)
        return j.update({"GR_T8": VECTORS[params.inputs[0].dtype], "GR_AXIS": axis, "GR_NIDX": nidx,
                         "GR_INNER": inner, "GR_CHUNK": CHUNK})

    def dispatch(self, params: Params) -> tuple[tuple[int, ...], tuple[int, ...] | None]:
        """(outer · indices, chunks per row), lws (1, 1)."""
        outer, _, nidx, inner = geometry(params)
        return (outer * nidx, -(-inner // CHUNK)), (1, 1)
