"""Helpers of the GPU-tier data-movement and per-channel kernel tests (reorder, concatenation, reshape, permute,
batch_norm, scale ``*_gpu_wg``): build options forcing the GPU tier, a padded-buffer run through the GPU tier, and
Params for the described GPU (no device needed)."""

from __future__ import annotations

import numpy as np

import cldnn_py as cl
from kernel_selector import Params, selector
from kernel_selector.device_caps import GPU_LIKE
from tests.helpers import typed_attrs
from tests.ocl.padded import SENTINEL, padding_mask


def gpu(forced: dict[str, str] | None = None) -> cl.BuildOptions:
    """BuildOptions of the GPU tier, ``forced``: {primitive id: kernel name}."""
    return cl.BuildOptions(kernel_tier="gpu", force_implementations=dict(forced or {}))


def gpu_like_choice(kind: str, inputs: list, output, attrs: dict) -> str:
    """The kernel the selector picks for these layouts on the described GPU (GPU_LIKE, gpu tier)."""
    params = Params(kind=kind, engine="ocl", inputs=list(inputs), output=output, attrs=typed_attrs(kind, attrs),
                    caps=GPU_LIKE, kernel_tier="gpu")
    return selector.select(params)[0].name


def run_gpu_padded(engine, kind: str, inputs: list, output, attrs: dict, arrays: list[np.ndarray],
                   kernel: str) -> np.ndarray:
    """Force ``kernel`` (gpu tier, the engine's caps) on padded layouts: input padding holds NaN (or the integer
    maximum), the output's padding a sentinel that must survive; returns the logical output."""
    params = Params(kind=kind, engine=engine.kind, inputs=list(inputs), output=output, attrs=typed_attrs(kind, attrs),
                    layer_id=kind, device=engine.info, caps=engine.info.caps, kernel_tier="gpu")
    _, kd = selector.select(params, kernel)
    mems = []
    for lay, arr in zip(inputs, arrays):
        mem = engine.allocate(lay)
        phys = lay.to_physical(arr)
        phys[padding_mask(lay)] = np.nan if phys.dtype.kind == "f" else np.iinfo(phys.dtype).max
        engine.write_buffer(mem.buffer, phys)
        mems.append(mem)
    out = engine.allocate(output)
    fill = np.nan if output.dtype.numpy.kind == "f" else 0
    phys = np.full(output.buffer_size, fill, dtype=output.dtype.numpy)
    out_mask = padding_mask(output)
    phys[out_mask] = SENTINEL if output.dtype.numpy.kind == "f" else 77
    engine.write_buffer(out.buffer, phys)
    for k in kd.kernels:
        assert k.lws is not None and all(g % lw == 0 for g, lw in zip(k.gws, k.lws)), (k.gws, k.lws)
        bound = engine.bind(k, lambda kind_, i: mems[i].buffer if kind_ == "input" else out.buffer)
        engine.enqueue_kernel(bound, k.gws, k.lws).wait()
    raw = np.empty(output.buffer_size, dtype=output.dtype.numpy)
    engine.read_buffer(out.buffer, raw)
    assert (raw[out_mask] == phys[out_mask]).all(), "the kernel wrote into the output's padding"
    return output.from_physical(raw)
