"""permute_tiled: transposes of unpadded bfyx data with 8-element vector accesses on both sides (CPU tier).

``permute_ref`` gives each work-item one output element, its input coordinate computed through the index macros: an
attention block's (197, 9, 64) → (9, 197, 64) head split ran at about 1 ns per element on PoCL (0.2 ms). Here the
permute is first reduced to its essential axes (:func:`..common.permute_plan.collapse`); then either the innermost
axis stays innermost, and each work-item copies a contiguous run, or it moves, and each work-item transposes an 8x8
tile (the classic tiled transpose; no local memory, the tile lives in eight vector registers).
"""

from __future__ import annotations

from cldnn_py.layout import DataType, Format
from cldnn_py.ops import PermuteAttrs

from ...common.permute_plan import collapse, strides
from ...jitter import JitConstants
from ...kernel_base import FORCE_PRIORITY_3, KernelBase
from ...params import Params, SupportedKey
from ...selector import register

CHUNK = 512  # elements of a run one work-item copies (PT_CASE 0)
TYPES = frozenset({DataType.f32, DataType.i32})
VECTORS = {DataType.f32: "float8", DataType.i32: "int8"}


def _offset_expr(var: str, dims: list[int], in_strides: list[int], out_strides: list[int] | None) -> str:
    """Statements that decompose ``var`` over ``dims`` (row-major, last fastest) and add each coordinate times its
    input (and output) stride to ``in_base`` (and ``out_base``)."""
    stmts, div = [], 1
    for k in range(len(dims) - 1, -1, -1):
        c = f"(({var} / {div}) % {dims[k]})" if div > 1 else f"({var} % {dims[k]})"
        if in_strides[k]:
            stmts.append(f"in_base += {c} * {in_strides[k]};")
        if out_strides is not None and out_strides[k]:
            stmts.append(f"out_base += {c} * {out_strides[k]};")
        div *= dims[k]
    return " ".join(stmts)


@register
class PermuteKernelTiled(KernelBase):
    """Permute (``permute_ref``'s semantics: output axis k is input axis ``order[k]``, numpy transpose) of an
    unpadded bfyx tensor of rank 1-6 into an unpadded bfyx output, f32 or i32 (the same in and out, copied as bits).

    Reduced to essential axes S with order O (:func:`collapse`): when O ends with the last axis (the inner run of
    PT_LEN elements kept), gws = (runs, ceil(PT_LEN / CHUNK)) and a work-item copies one chunk of a run; otherwise
    gws = (outer, ceil(NI / 8), ceil(NJ / 8)) with i the output's innermost axis (O[-1]) and j the input's innermost
    axis, and a work-item transposes an 8x8 tile (cl_kernels/permute_tiled.cl). lws = (1, ...) throughout.
    """

    name = "permute_tiled"
    primitive = "permute"
    tier = "cpu"  # work-groups of one work-item

    def supported_key(self) -> SupportedKey:
        """OpenCL, f32 / i32, bfyx, no padding."""
        bfyx = frozenset({Format.bfyx})
        return SupportedKey(input_dtypes=TYPES, output_dtypes=TYPES, input_formats=bfyx, output_formats=bfyx,
                            padded_inputs=False, padded_output=False)

    def validate(self, params: Params) -> str | None:
        """The order is a permutation of the input's rank; input and output of one data type."""
        order = tuple(params.attrs_as(PermuteAttrs).order)
        if sorted(order) != list(range(params.inputs[0].rank)):
            return f"order {order} is not a permutation of rank {params.inputs[0].rank}"
        if params.inputs[0].dtype != params.output.dtype:
            return f"input {params.inputs[0].dtype.value} and output {params.output.dtype.value} types differ"
        return None

    def priority(self, params: Params) -> int:
        """Ahead of the reference."""
        return FORCE_PRIORITY_3

    def plan(self, params: Params) -> tuple[tuple[int, ...], tuple[int, ...]]:
        """The essential (shape, order)."""
        return collapse(params.inputs[0].shape, tuple(params.attrs_as(PermuteAttrs).order))

    def jit_constants(self, params: Params) -> JitConstants:
        """Tensors, PT_T8, PT_CASE, PT_OUTER(q) (the base offsets of run / tile row q) and its case's sizes (PT_LEN,
        PT_CHUNK; or PT_NI, PT_NJ, PT_IS_I, PT_OS_J)."""
        j = super().jit_constants(params)
        shape, order = self.plan(params)
        j.add("PT_T8", VECTORS[params.inputs[0].dtype])
        ist = strides(shape)
        oshape = [shape[a] for a in order]
        ost = strides(tuple(oshape))
        r = len(shape)
        if order[-1] == r - 1:
            dims = oshape[:-1]
            stmts = _offset_expr("q", dims, [ist[a] for a in order[:-1]], None)
            j.update({"PT_CASE": 0, "PT_LEN": shape[-1], "PT_CHUNK": CHUNK})
            j.add("PT_OUTER(q)", f"{{ {stmts} }}" if stmts else "{}")
            return j
        t = order.index(r - 1)  # output position of the input's innermost axis
        others = [k for k in range(r) if k not in (t, r - 1)]
        stmts = _offset_expr("q", [oshape[k] for k in others], [ist[order[k]] for k in others],
                             [ost[k] for k in others])
        j.update({"PT_CASE": 1, "PT_NI": shape[order[-1]], "PT_NJ": shape[-1], "PT_IS_I": ist[order[-1]],
                  "PT_OS_J": ost[t]})
        j.add("PT_OUTER(q)", f"{{ {stmts} }}" if stmts else "{}")
        return j

    def dispatch(self, params: Params) -> tuple[tuple[int, ...], tuple[int, ...] | None]:
        """(runs, chunks) or (outer, tiles along i, tiles along j); lws of ones."""
        shape, order = self.plan(params)
        r = len(shape)
        count = params.inputs[0].count()
        if order[-1] == r - 1:
            return (count // shape[-1], -(-shape[-1] // CHUNK)), (1, 1)
        ni, nj = shape[order[-1]], shape[-1]
        return (count // (ni * nj), -(-ni // 8), -(-nj // 8)), (1, 1, 1)
