"""Register-block choice shared by the blocked OpenCL kernels (convolution_b_fs_yx_fsv16, fully_connected_gemm,
gemm_tiled)."""

from __future__ import annotations

MAX_BLOCK = 6  # pixels per work-item: 2 * P accumulators + 2 weights + 1 broadcast <= 16 ymm registers (AVX2)
MIN_BLOCK = 3


def choose_block(ow: int, max_block: int = MAX_BLOCK) -> int:
    """Output pixels per work-item for an output row of ``ow`` pixels.

    Each work-item loads 2 weight vectors per input channel and tap and reuses them over its P pixels, so a wider
    block is better, but the last block of a row is shifted back onto its neighbour and recomputes up to P-1
    pixels. Minimizes (computed pixels) * (1 + 2 / P) (the weight loads per FMA pair); ties go to the wider block.
    """
    if ow <= max_block:
        return ow
    cands = range(max_block, MIN_BLOCK - 1, -1)
    return min(cands, key=lambda p: (-(-ow // p) * p * (1 + 2 / p), -p))
