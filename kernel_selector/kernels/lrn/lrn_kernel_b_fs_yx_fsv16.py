"""lrn_b_fs_yx_fsv16: LRN across channels on b_fs_yx_fsv16 data for CPU OpenCL (PoCL).

``lrn_ref`` runs one work-item per element, reads ``size`` inputs through GET_INDEX and calls ``exp``/``log`` once
per element; in AlexNet and GoogLeNet (where the LRNs sit between blocked convolutions) it took 10-16 ms per
network. Here one work-item walks the 16-channel slices of a few pixels, loads each slice once as two aligned
float8, builds the window sums from the neighbouring slices' squares in registers and calls the vector ``exp`` /
``log`` once per 8 channels (docs/performance.md).
"""

from __future__ import annotations

from cldnn_py.layout import Format
from cldnn_py.ops import LRNAttrs

from ...jitter import JitConstants
from ...kernel_base import FORCE_PRIORITY_3, KernelBase
from ...params import FLOATS, Params, SupportedKey
from ...selector import register
from .lrn_kernel_ref import LRNKernelRef

USE_BETA_075 = True
OUT_BLOCK = 4  # pixels per work-item (a rolled loop): fewer, larger work-groups of local size 1


@register
class LRNKernelBFsYxFsv16(KernelBase):
    """LRN across channels, ``lrn_ref``'s semantics (ONNX convention):
    y[c] = x[c] · (k + alpha / size · Σ x[c']²) ** −beta, c' in [c − (size−1)//2, c + size//2] ∩ [0, C).

    INPUT0 (N, C, H, W) and the output (same shape) in ``b_fs_yx_fsv16``, f32 or f16 (storage; float arithmetic);
    y/x/batch padding allowed, feature padding not. The block tail of the last slice counts as zero and is never
    written. The window may reach at most 16 channels to each side (size <= 33). gws (ceil(W / OUT_BLOCK), H, N),
    lws (1, 1, 1).
    """

    name = "lrn_b_fs_yx_fsv16"
    primitive = "lrn"
    tier = "cpu"  # work-groups of one work-item, registers as the tile: shaped for CPU devices

    def supported_key(self) -> SupportedKey:
        """OpenCL, f32 or f16 (storage) in and out, b_fs_yx_fsv16 in and out, padding allowed."""
        fsv16 = frozenset({Format.b_fs_yx_fsv16})
        return SupportedKey(input_formats=fsv16, output_formats=fsv16, input_dtypes=FLOATS, output_dtypes=FLOATS)

    def validate(self, params: Params) -> str | None:
        """Rank 4, size in [1, 33] (one neighbouring slice per side), no feature padding."""
        x, out = params.inputs[0], params.output
        if x.rank != 4:
            return f"input rank {x.rank} is not 4"
        size = int(params.attrs_as(LRNAttrs).size)
        if not 1 <= size <= 33:
            return f"size {size} not in [1, 33]: the window may reach only the neighbouring slices"
        for name, lay in (("input", x), ("output", out)):
            if lay.padding.lower[1] or lay.padding.upper[1]:
                return f"{name} padded along features"
        return None

    def priority(self, params: Params) -> int:
        """Well below the reference: it wins whenever it validates."""
        return FORCE_PRIORITY_3

    def jit_constants(self, params: Params) -> JitConstants:
        """Tensors, lrn_ref's LRN_PRE / LRN_POST / LRN_K / LRN_ALPHA_DIV_SIZE / LRN_BETA, and OUT_BLOCK."""
        j = LRNKernelRef().jit_constants(params)
        j.add("OUT_BLOCK", OUT_BLOCK)
        j.add("BETA_075", int(float(params.attrs_as(LRNAttrs).beta) == 0.75 and USE_BETA_075))
        return j

    def dispatch(self, params: Params) -> tuple[tuple[int, ...], tuple[int, ...]]:
        """gws (ceil(W / OUT_BLOCK), H, N), lws (1, 1, 1)."""
        b, _, y, x = params.output.dims4
        return (-(-x // OUT_BLOCK), y, b), (1, 1, 1)
