"""Run the convolution_b_fs_yx_fsv16 kernel on a zero-halo input buffer (shared by test_convolution_fsv16 and
test_convolution_fsv16_variants)."""

from __future__ import annotations

import numpy as np

from kernel_selector import Params, selector
from tests.helpers import typed_attrs
from tests.ocl.padded import SENTINEL, padding_mask

FAST = "convolution_b_fs_yx_fsv16"


def run_zero_halo(engine, inputs, output, attrs, arrays, variant=None) -> np.ndarray:
    """Like padded.run_kernel_padded, but the input's y/x padding holds zeros (the contract of the no-check
    variant: the producer wrote the interior of a zero-filled buffer); feature block tails stay NaN. ``variant``:
    a tuning variant of the fast kernel (its ``tune_variants``) instead of the selector's choice."""

    from kernel_selector.kernels.convolution.convolution_kernel_b_fs_yx_fsv16 import ConvolutionKernelBFsYxFsv16

    params = Params("convolution", engine.kind, list(inputs), output, typed_attrs("convolution", attrs))
    if variant is None:
        _, kd = selector.select(params, FAST)
    else:
        kd = ConvolutionKernelBFsYxFsv16().kernel_data(params, variant)
    mems = []
    for lay, arr in zip(inputs, arrays):
        if lay.format.block is not None and lay.format.block[0] == "f":
            n, c = arr.shape[:2]
            ext = np.full((n, -(-c // 16) * 16) + arr.shape[2:], np.nan, np.float32)
            ext[:, :c] = arr
            phys = lay.with_(shape=ext.shape).to_physical(ext)  # same buffer: NaN in tails, 0 in the halo
        else:
            phys = lay.to_physical(arr)
        mem = engine.allocate(lay)
        engine.write_buffer(mem.buffer, phys)
        mems.append(mem)
    out = engine.allocate(output)
    phys = np.full(output.buffer_size, np.nan, np.float32)
    mask = padding_mask(output)
    phys[mask] = SENTINEL
    engine.write_buffer(out.buffer, phys)
    (k,) = kd.kernels
    knl = engine.bind(k, lambda kind, i: mems[i].buffer if kind == "input" else out.buffer)
    engine.enqueue_kernel(knl, k.gws, k.lws).wait()
    raw = np.empty(output.buffer_size, np.float32)
    engine.read_buffer(out.buffer, raw)
    assert (raw[mask] == SENTINEL).all(), "the kernel wrote into the output's padding or block tail"
    return output.from_physical(raw)
