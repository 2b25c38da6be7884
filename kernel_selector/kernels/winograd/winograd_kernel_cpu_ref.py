"""winograd_input_cpu_ref, winograd_output_cpu_ref: the CPU engine's reference Winograd F(4x4, 3x3) transforms, in
numpy on logical arrays (float64 arithmetic)."""

from __future__ import annotations

import numpy as np

from cldnn_py.ops.winograd import ALPHA, AT, BT, TILE, WinogradInputAttrs, WinogradOutputAttrs

from ...cpu_kernel_base import CpuRefKernel
from ...params import Params
from ...selector import register
from .winograd_input_kernel_b_fs_yx_fsv16 import winograd_input_reason
from .winograd_output_kernel_b_fs_yx_fsv16 import winograd_output_reason


@register
class WinogradInputKernelCpuRef(CpuRefKernel):
    """V = Bᵀ d B of every 6×6 tile (semantics in :class:`cldnn_py.primitives.winograd.WinogradInput`): the input
    (N, C, H, W), any format, zero-padded to cover every tile, its tiles gathered with strides, transformed by two
    einsums; output (36, N·tiles, C), or (1, 36·C, N·tiles, 1) with ``channel_major``."""

    name = "winograd_input_cpu_ref"
    primitive = "winograd_input"
    supports_fused_ops = False

    def validate(self, params: Params) -> str | None:
        """:func:`winograd_input_reason`."""
        return winograd_input_reason(params)

    def compute(self, params: Params, inputs: list[np.ndarray]) -> np.ndarray:
        """The (36, N·tiles_y·tiles_x, C) output."""
        a = params.attrs_as(WinogradInputAttrs)
        x = inputs[0].astype(np.float64)
        n, c, h, w = x.shape
        hp, wp = a.tiles_y * TILE + 2, a.tiles_x * TILE + 2
        pad = np.zeros((n, c, hp, wp))
        src = x[:, :, :max(0, min(h, hp - a.pad_y)), :max(0, min(w, wp - a.pad_x))]
        pad[:, :, a.pad_y:a.pad_y + src.shape[2], a.pad_x:a.pad_x + src.shape[3]] = src
        s = pad.strides
        d = np.lib.stride_tricks.as_strided(pad, (n, c, a.tiles_y, a.tiles_x, ALPHA, ALPHA),
                                            (s[0], s[1], s[2] * TILE, s[3] * TILE, s[2], s[3]))
        v = np.einsum("ik,nctukl,jl->ijntuc", BT, d, BT).reshape(ALPHA * ALPHA, n * a.tiles_y * a.tiles_x, c)
        if a.channel_major:  # (1, 36·C, N·tiles, 1)
            return v.transpose(0, 2, 1).reshape(1, ALPHA * ALPHA * c, v.shape[1], 1)
        return v


@register
class WinogradOutputKernelCpuRef(CpuRefKernel):
    """y = Aᵀ M A per tile plus the bias (semantics in :class:`cldnn_py.primitives.winograd.WinogradOutput`); fused
    ops by the base; output (N, OC, out_y, out_x), any format."""

    name = "winograd_output_cpu_ref"
    primitive = "winograd_output"
    n_data_inputs = 1

    def validate(self, params: Params) -> str | None:
        """:func:`winograd_output_reason`."""
        return winograd_output_reason(params)

    def compute(self, params: Params, inputs: list[np.ndarray]) -> np.ndarray:
        """The (N, OC, out_y, out_x) output."""
        a = params.attrs_as(WinogradOutputAttrs)
        m = inputs[0].astype(np.float64)
        if a.channel_major:  # (1, 36·OC, N·tiles, 1) back to (36, N·tiles, OC)
            m = m.reshape(ALPHA * ALPHA, m.shape[1] // (ALPHA * ALPHA), m.shape[2]).transpose(0, 2, 1)
        oc = m.shape[2]
        n = m.shape[1] // (a.tiles_y * a.tiles_x)
        m = m.reshape(ALPHA, ALPHA, n, a.tiles_y, a.tiles_x, oc)
        y = np.einsum("ik,klntuo,jl->notiuj", AT, m, AT).reshape(n, oc, a.tiles_y * TILE, a.tiles_x * TILE)
        y = y[:, :, :a.out_y, :a.out_x]
        if len(inputs) > 1:
            y = y + inputs[1].astype(np.float64).reshape(1, oc, 1, 1)
        return y
