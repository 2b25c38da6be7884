"""reduce_flat_vec8: a whole unpadded bfyx tensor reduced to one value by one work-item reading float8.

DynamicQuantizeLinear computes the min and max of every activation it quantizes (dynamically quantized
transformers and LSTMs: one per MatMulInteger); reduce_ref gives each output element one work-item that computes a
GET_INDEX per reduced element, 1.7 ms per 64x55x55 tensor on PoCL. Here the buffer is read straight as float8
(CPU tier: one work-item, as the CPU-tier kernels of DESIGN.md section 5).
"""

from __future__ import annotations

from cldnn_py.layout import Format
from cldnn_py.ops import ReduceAttrs, ReduceMode, normalize_axes

from ...jitter import JitConstants
from ...kernel_base import FORCE_PRIORITY_5, KernelBase
from ...params import FLOATS, Params, SupportedKey
from ...selector import register

_MODES = (ReduceMode.sum, ReduceMode.mean, ReduceMode.max, ReduceMode.min)


@register
class ReduceKernelFlatVec8(KernelBase):
    """Reduce over every axis (sum, mean, max, min) of an unpadded bfyx input (rank 1-6, f32 or f16 storage)
    into a one-element output: gws = lws = (1), float8 loads, max / min propagate NaN like numpy (and reduce_ref).
    The sum's order differs from reduce_ref's (8 partial sums, then the tail): float rounding apart, the same."""

    name = "reduce_flat_vec8"
    primitive = "reduce"
    tier = "cpu"

    def supported_key(self) -> SupportedKey:
        """f32 / f16 in and out, bfyx input without padding."""
        return SupportedKey(input_dtypes=FLOATS, output_dtypes=FLOATS, input_formats=frozenset({Format.bfyx}),
                            padded_inputs=False)

    def validate(self, params: Params) -> str | None:
        """Every axis reduced (one output element); mode sum, mean, max or min."""
        x, a = params.inputs[0], params.attrs_as(ReduceAttrs)
        try:
            axes = normalize_axes(tuple(a.axes), x.rank)
        except ValueError as e:
            return str(e)
        if len(axes) != x.rank and any(x.shape[i] != 1 for i in range(x.rank) if i not in axes):
            return "not every axis is reduced"
        if ReduceMode(a.mode) not in _MODES:
            return f"mode {ReduceMode(a.mode).value} (only {', '.join(m.value for m in _MODES)})"
        return None

    def priority(self, params: Params) -> int:
        """Ahead of reduce_ref."""
        return FORCE_PRIORITY_5

    def jit_constants(self, params: Params) -> JitConstants:
        """Tensors plus REDUCE_COUNT and REDUCE_MODE_<mode>."""
        j = super().jit_constants(params)
        mode = ReduceMode(params.attrs_as(ReduceAttrs).mode).value
        return j.update({"REDUCE_COUNT": params.inputs[0].count(), f"REDUCE_MODE_{mode.upper()}": 1})

    def dispatch(self, params: Params) -> tuple[tuple[int, ...], tuple[int, ...]]:
        """One work-item."""
        return (1,), (1,)
