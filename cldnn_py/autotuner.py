"""Auto-tuning: time every tunable kernel variant of one Params on the device and keep the fastest (clDNN's
``auto_tuner``; the best tile differs per device, docs/tuning.md).

For a node, the candidates are the kernels the selector finds valid, minus the reference kernels when anything
better validates (a reference convolution can take seconds on a real shape), each with every variant of its
``tune_variants(params)``. Every candidate is built on its own and given buffers of the params' layouts (random
data, padding included); then all run round-robin, one warm-up round (PoCL compiles the work-group function at the
first launch) and ``runs`` timed rounds; a candidate's score is its median device time from the profiling events,
in ms. The priority rules' choice is kept unless another candidate is more than 5% faster (KEEP_DEFAULT): a
winner measured in isolation must not replace a sound default because of noise. The winner is stored in the
:class:`~kernel_selector.tuning_cache.TuningCache`; ``BuildOptions(tuning="tune")`` does this for every node in
compile_graph, ``tuning="cache"`` (the default) only reads stored winners.
"""

from __future__ import annotations

import logging
import statistics
from typing import TYPE_CHECKING, Any

import numpy as np

from kernel_selector import Params, selector
from kernel_selector.kernel_base import KernelData
from kernel_selector.selector import candidates, tunable
from kernel_selector.tuning_cache import TuningCache, Winner

from .errors import KernelBuildError
from .layout import Layout

if TYPE_CHECKING:
    from .engine import Engine

log = logging.getLogger("cldnn_py.autotuner")

RUNS = 9
KEEP_DEFAULT = 1.05  # a variant must beat the priority rules' choice by more than 5% to replace it


def tuning_candidates(params: Params) -> list[tuple[str, dict[str, int], KernelData]]:
    """[(kernel name, variant, KernelData)] to time for ``params``: every valid kernel's variants, reference
    kernels only when nothing else validates."""
    by_name = {k.name: k for k in candidates(params.kind, params.engine)}
    out = []
    for v in tunable(selector.explain(params)):
        k = by_name[v.kernel]
        for var in k.tune_variants(params):
            kd = k.kernel_data(params, var) if var else k.kernel_data(params)  # type: ignore[call-arg]
            out.append((k.name, var, kd))
    return out


def _layout_of_arg(params: Params, index: int) -> Layout:
    """The layout of argument ``("input", index)``: an own input, or a fused op's extra input by dep index."""
    if index < len(params.inputs):
        return params.inputs[index]
    for op in params.fused_ops:
        for dep, lay in zip(op.dep_indices, op.extra_inputs):
            if dep == index:
                return lay
    raise IndexError(f"{params.kind} '{params.layer_id}': kernel argument input {index} has no layout")


class _Bench:
    """Buffers for one Params on any engine (random normal data in every input buffer, padding included)."""

    def __init__(self, engine: Engine, params: Params, rng: np.random.Generator) -> None:
        self.engine, self.params, self.rng = engine, params, rng
        self.buffers: dict[tuple[str, int], Any] = {}

    def buffer(self, kind: str, index: int) -> Any:
        key = (kind, index)
        if key not in self.buffers:
            lay = self.params.output if kind == "output" else _layout_of_arg(self.params, index)
            data = (self.rng.standard_normal(max(lay.buffer_size, 1)) * 0.5).astype(lay.dtype.numpy)
            buf = self.engine.allocate_buffer(data.nbytes, owner=f"tuning {self.params.layer_id}")
            self.engine.write_buffer(buf, data)
            self.buffers[key] = buf
        return self.buffers[key]

    def prepare(self, kd: KernelData) -> list[tuple[Any, Any]]:
        """The KernelData's enqueues built (each on its own) and bound to this bench's buffers. Raises
        KernelBuildError."""
        return [(self.engine.bind(k, self.buffer, owner=self.params.layer_id), k) for k in kd.kernels]

    def run(self, kernels: list[tuple[Any, Any]]) -> float:
        """One run of prepared enqueues, in order; their device time in ms."""
        t = 0.0
        for kern, k in kernels:
            ev = self.engine.enqueue_kernel(kern, k.gws, k.lws)
            ev.wait()
            t += (ev.profile.end - ev.profile.start) / 1e6
        return t


def tune(engine: Engine, params: Params, cache: TuningCache, runs: int = RUNS) -> Winner | None:
    """Time every candidate of ``params`` on ``engine`` (built first, then ``runs`` rounds in which each runs
    once, after a warm-up round) and store the fastest median in ``cache``; the priority rules' own choice (the
    first candidate) stays unless another is more than 5% faster. Returns the winner, or None when there is only
    one candidate (nothing to choose; nothing is stored). A candidate that fails to build is skipped with a warning;
    if all fail, the last KernelBuildError is raised."""
    cands = tuning_candidates(params)
    if len(cands) <= 1:
        return None
    bench = _Bench(engine, params, np.random.default_rng(0))
    built: list[tuple[str, dict[str, int], list[tuple[Any, Any]]]] = []
    error: KernelBuildError | None = None
    for name, variant, kd in cands:
        try:
            built.append((name, variant, bench.prepare(kd)))
        except KernelBuildError as err:
            log.warning("%s '%s': %s %s does not build, skipped", params.kind, params.layer_id, name, variant)
            error = err
    if not built:
        assert error is not None
        raise error
    times: list[list[float]] = [[] for _ in built]
    for r in range(runs + 1):  # round-robin: drift of a shared machine hits every candidate alike; run 0 warms up
        for i, (_, _, kernels) in enumerate(built):
            t = bench.run(kernels)
            if r:
                times[i].append(t)
    ms = [statistics.median(t) for t in times]
    for (name, variant, _), m in zip(built, ms):
        log.debug("%s '%s': %s %s %.3f ms", params.kind, params.layer_id, name, variant, m)
    win = min(range(len(built)), key=lambda i: ms[i])
    if built[0][:2] == cands[0][:2] and ms[0] <= ms[win] * KEEP_DEFAULT:
        win = 0  # the priority rules' choice unless a variant is clearly faster: noise must not flip choices
    best = Winner(built[win][0], dict(built[win][1]), ms[win])
    cache.store(params.device, params, best)
    return best

