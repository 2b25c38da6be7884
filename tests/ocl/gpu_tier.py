"""Helpers for the GPU-tier kernel tests: run_kernel_padded with Params of the gpu tier."""

from __future__ import annotations

from typing import Any

import numpy as np

from tests.ocl.padded import run_kernel_padded


def run_gpu_padded(monkeypatch: Any, *args: Any, **kwargs: Any) -> np.ndarray:
    """``tests.ocl.padded.run_kernel_padded`` with ``kernel_tier="gpu"`` Params (``monkeypatch`` is unused; kept
    for the callers' signature)."""
    return run_kernel_padded(*args, kernel_tier="gpu", **kwargs)


def upload_inputs(engine: Any, params: Any, arrays: list[np.ndarray]) -> list[Any]:
    """Device memories holding ``arrays``: the logical inputs of ``params.inputs`` then of the fused ops' extra
    operands, in argument order (written unpoisoned)."""
    layouts = [*params.inputs, *(lay for op in params.fused_ops for lay in op.extra_inputs)]
    mems = []
    for lay, arr in zip(layouts, arrays, strict=True):
        mems.append(engine.allocate(lay))
        engine.write_buffer(mems[-1].buffer, lay.to_physical(arr))
    return mems


def run_every_variant(engine: Any, kernel: Any, params: Any, arrays: list[np.ndarray]
                      ) -> list[tuple[dict[str, int], np.ndarray]]:
    """Run ``kernel.kernel_data(params, variant)`` directly for each of its ``tune_variants(params)`` (asserted to
    be more than one) on ``arrays``: the logical inputs of ``params.inputs`` then of the fused ops' extra operands,
    in argument order. The output buffer is poisoned with NaN before each run. Returns [(variant, logical output)]."""
    mems = upload_inputs(engine, params, arrays)
    out_l = params.output
    out = engine.allocate(out_l)
    variants = kernel.tune_variants(params)
    assert len(variants) > 1
    results = []
    for variant in variants:
        (kc,) = kernel.kernel_data(params, variant).kernels
        engine.write_buffer(out.buffer, np.full(out_l.buffer_size, np.nan, dtype=np.float32))
        knl = engine.bind(kc, lambda kind, i: mems[i].buffer if kind == "input" else out.buffer)
        engine.enqueue_kernel(knl, kc.gws, kc.lws).wait()
        raw = np.empty(out_l.buffer_size, dtype=np.float32)
        engine.read_buffer(out.buffer, raw)
        results.append((variant, out_l.from_physical(raw)))
    return results
