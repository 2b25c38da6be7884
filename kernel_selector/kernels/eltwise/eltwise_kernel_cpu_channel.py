"""eltwise_cpu_channel: a tensor times (or plus) one value per (batch, channel), on the CPU engine: the
squeeze-and-excitation gate (x · sigmoid(fc(pool(x))) of MobileNetV3, EfficientNet, PP-LCNet) as one per-channel
affine pass (numba) instead of the reference's broadcast gather."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

import numpy as np

from cldnn_py.layout import Format, Layout
from cldnn_py.ops import EltwiseAttrs, EltwiseMode

from ...common.cpu_affine_base import CpuAffineKernel, affine_layout_reason
from ...common.cpu_epilogue import fused_reason
from ...common.cpu_layout import layout_offset
from ...kernel_base import FORCE_PRIORITY_3
from ...params import Params
from ...selector import register

MODES = (EltwiseMode.prod.value, EltwiseMode.sum.value)


def _gate_index(params: Params) -> int | None:
    """Index (0 or 1) of the input that holds one value per (batch, channel), the other input having the output's
    shape, or None."""
    if len(params.inputs) != 2:
        return None
    out = params.output
    b, f = out.dims4[:2]
    for i in (1, 0):
        g, x = params.inputs[i], params.inputs[1 - i]
        if x.shape != out.shape or g.rank != out.rank or out.rank < 2:
            continue
        gb, gf = g.dims4[:2]
        if gf == f and gb in (1, b) and g.count() == gb * gf and _per_channel_flat(g):
            return i
    return None


def _per_channel_flat(g: Layout) -> bool:
    """True when channel c of batch item n of ``g`` (spatial size 1) sits at offset + n·pitch_b + c."""
    if not g.padding.is_zero:
        return False
    if g.format == Format.b_fs_yx_fsv16:
        return True
    return g.format in (Format.bfyx, Format.byxf, Format.yxfb, Format.fyxb) and (g.dims4[1] == 1 or
                                                                                  g.pitches["f"] == 1)


@register
class EltwiseKernelCpuChannel(CpuAffineKernel):
    """y = x · g[n, c] (prod) or x + g[n, c] (sum), then the fused chain, for x (N, C[, H[, W]]) f32 in bfyx, byxf,
    yxfb, fyxb or b_fs_yx_fsv16 (padding allowed) and g of shape (N or 1, C, 1[, 1]) unpadded, in either input
    slot. Output: x's shape and format. Sum coefficients and other modes are left to the other eltwise kernels
    (validate() says why)."""

    name = "eltwise_cpu_channel"
    primitive = "eltwise"
    n_data_inputs = None

    def validate(self, params: Params) -> str | None:
        """Two inputs, prod or sum without coefficients, one of them one value per (batch, channel)."""
        a = params.attrs_as(EltwiseAttrs)
        if EltwiseMode(a.mode).value not in MODES:
            return f"mode {EltwiseMode(a.mode).value}: only {MODES}"
        if a.coefficients is not None and any(c != 1.0 for c in a.coefficients):
            return "sum coefficients"
        gi = _gate_index(params)
        if gi is None:
            return "no input holds exactly one value per (batch, channel) of the other's shape"
        return affine_layout_reason(params.inputs[1 - gi], params.output) or fused_reason(params)

    def priority(self, params: Params) -> int:
        """Ahead of the reference whenever it validates (eltwise_cpu_vec needs equal shapes)."""
        return FORCE_PRIORITY_3

    def make_fn(self, params: Params) -> Callable[..., None]:
        """fn(in0, in1, out, [chain operand]), data and gate in whichever slots they are."""
        gi = _gate_index(params)
        assert gi is not None
        if gi == 0:  # put the data first for the affine base
            inner = super().make_fn(dataclasses.replace(params, inputs=[params.inputs[1], params.inputs[0]]))
            return lambda *bufs: inner(bufs[1], bufs[0], *bufs[2:])
        return super().make_fn(params)

    def coefficients(self, params: Params) -> Callable[[tuple[Any, ...]], tuple[np.ndarray, int, np.ndarray, int]]:
        """The gate buffer itself as mul (prod) or add (sum); the other a constant vector."""
        g = params.inputs[1]
        c = g.dims4[1]
        off = layout_offset(g)
        pitch_b = g.pitches["b"] if g.dims4[0] > 1 else 0
        n = off + (g.dims4[0] - 1) * pitch_b + c
        prod = EltwiseMode(params.attrs_as(EltwiseAttrs).mode).value == EltwiseMode.prod.value
        const = np.full(c, 0.0 if prod else 1.0, np.float32)

        def coeffs(bufs: tuple[Any, ...]) -> tuple[np.ndarray, int, np.ndarray, int]:
            gate = bufs[1][:n * 4].view(np.float32)[off:]
            return (gate, pitch_b, const, 0) if prod else (const, 0, gate, pitch_b)

        return coeffs

