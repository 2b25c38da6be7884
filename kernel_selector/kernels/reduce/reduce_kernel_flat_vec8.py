"""reduce_flat_vec8: the trailing axes of an unpadded bfyx tensor reduced by one work-item per row reading float8.

DynamicQuantizeLinear computes the min and max of every activation it quantizes (dynamically quantized
transformers and LSTMs: one per MatMulInteger); reduce_ref gives each output element one work-item that computes a
GET_INDEX per reduced element, 1.7 ms per 64x55x55 tensor on PoCL. Here the buffer is read straight as float8
(CPU tier: one work-item, as the CPU-tier kernels of DESIGN.md section 5). The same loop serves a reduction of the
trailing axes, one work-item per row: the ReduceMean over the last axis of a transformer's LayerNorm (exported
decomposed at opset 13) took reduce_ref 0.5 ms per (1, 197, 192) tensor.
"""

from __future__ import annotations

from cldnn_py.layout import Format, Layout
from cldnn_py.ops import ReduceAttrs, ReduceMode, normalize_axes

from ...jitter import JitConstants
from ...kernel_base import FORCE_PRIORITY_5, KernelBase
from ...params import FLOATS, Params, SupportedKey
from ...selector import register

_MODES = (ReduceMode.sum, ReduceMode.mean, ReduceMode.max, ReduceMode.min)


def trailing_rows(x: Layout, axes: tuple[int, ...]) -> tuple[int, int] | None:
    """(rows, row length) when the reduced axes of size > 1 all follow the kept axes of size > 1 (each row a
    contiguous run of a bfyx buffer), else None."""
    kept = [i for i in range(x.rank) if i not in axes and x.shape[i] > 1]
    red = [i for i in axes if x.shape[i] > 1]
    if kept and red and max(kept) > min(red):
        return None
    length = 1
    for i in axes:
        length *= x.shape[i]
    return x.count() // length, length


@register
class ReduceKernelFlatVec8(KernelBase):
    """Reduce over the trailing axes (sum, mean, max, min) of an unpadded bfyx input (rank 1-6, f32 or f16
    storage): gws = (rows,), lws = (1,), float8 loads, max / min propagate NaN like numpy (and reduce_ref). One row
    (every axis reduced) writes the one-element output in any layout; several rows need an unpadded bfyx output
    (element g of row g). The sum's order differs from reduce_ref's (8 partial sums, then the tail): float rounding
    apart, the same. An unpadded b_fs_yx_fsv16 input reduced to one value is read the same way, its last slice's
    padding lanes skipped (:meth:`validate`)."""

    name = "reduce_flat_vec8"
    primitive = "reduce"
    tier = "cpu"

    def supported_key(self) -> SupportedKey:
        """f32 / f16 in and out, bfyx or b_fs_yx_fsv16 input without padding."""
        return SupportedKey(input_dtypes=FLOATS, output_dtypes=FLOATS,
                            input_formats=frozenset({Format.bfyx, Format.b_fs_yx_fsv16}), padded_inputs=False)

    def validate(self, params: Params) -> str | None:
        """The reduced axes are the trailing ones (:func:`trailing_rows`), an unpadded bfyx output for several
        rows; mode sum, mean, max or min. A b_fs_yx_fsv16 input only reduced to one value (the input of a
        DynamicQuantizeLinear between blocked convolutions): with whole 16-channel slices its buffer holds every
        element once, in an order a sum, mean, max or min of all of them does not see; otherwise the last slice's
        padding lanes are skipped (RF_FSV16_TAIL)."""
        x, a = params.inputs[0], params.attrs_as(ReduceAttrs)
        try:
            axes = normalize_axes(tuple(a.axes), x.rank)
        except ValueError as e:
            return str(e)
        rows = trailing_rows(x, axes)
        if rows is None:
            return "the reduced axes are not the trailing ones (rows not contiguous)"
        out = params.output
        if x.format == Format.b_fs_yx_fsv16 and rows[0] > 1:
            return f"a b_fs_yx_fsv16 input is only reduced to one value, got {x} reduced over {axes}"
        if rows[0] > 1 and (out.format != Format.bfyx or not out.padding.is_zero):
            return f"several rows need an unpadded bfyx output, got {out}"
        if ReduceMode(a.mode) not in _MODES:
            return f"mode {ReduceMode(a.mode).value} (only {', '.join(m.value for m in _MODES)})"
        return None

    def priority(self, params: Params) -> int:
        """Ahead of reduce_ref."""
        return FORCE_PRIORITY_5

    def _rows(self, params: Params) -> tuple[int, int]:
        x, a = params.inputs[0], params.attrs_as(ReduceAttrs)
        axes = normalize_axes(tuple(a.axes), x.rank)
        rows = trailing_rows(x, axes)
        assert rows is not None
        return rows

    def jit_constants(self, params: Params) -> JitConstants:
        """Tensors plus REDUCE_ROWS, REDUCE_COUNT (a row's elements) and REDUCE_MODE_<mode>."""
        j = super().jit_constants(params)
        mode = ReduceMode(params.attrs_as(ReduceAttrs).mode).value
        rows, length = self._rows(params)
        j.update({"REDUCE_ROWS": rows, "REDUCE_COUNT": length, f"REDUCE_MODE_{mode.upper()}": 1})
        x = params.inputs[0]
        if x.format == Format.b_fs_yx_fsv16 and x.dims4[1] % 16:
            b, f, y, xx = x.dims4
            j.update({"RF_FSV16_TAIL": f % 16, "RF_SLICES": -(-f // 16), "RF_PIXELS": y * xx})
        return j

    def dispatch(self, params: Params) -> tuple[tuple[int, ...], tuple[int, ...]]:
        """One work-item per row."""
        return (self._rows(params)[0],), (1,)
