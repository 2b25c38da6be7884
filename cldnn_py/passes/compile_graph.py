"""compile_graph: select a kernel for every node that runs one, then build all kernels in batched programs.

The kernel_selector is the only bridge between nodes and kernels: this pass turns a node into ``Params``
(layouts, attributes, fused ops; :func:`cldnn_py.kernel_params.node_params`), asks the selector, and stores the Impl.
Identical kernel sources (same template, same jit header) are built once. Sources are grouped into few
``cl.Program``s; a failed batch is rebuilt kernel by kernel to name the primitive, and KernelBuildError carries the
build log. With ``BuildOptions(tuning="cache" | "tune")`` the selector reads the tuning cache; in "tune" the nodes
without a stored winner are timed first (:mod:`cldnn_py.autotuner`) and the cache file is written at the pass end.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Any

from kernel_selector import ClKernelData, selector
from kernel_selector.tuning_cache import TuningCache

from ..errors import KernelBuildError
from ..kernel_cache import default_tuning_cache_path
from ..kernel_params import node_params
from ..pass_manager import BasePass
from ..program_graph import ProgramGraph
from ..program_node import Impl

if TYPE_CHECKING:
    from ..engine import Engine

log = logging.getLogger("cldnn_py.passes.compile_graph")



class CompileGraph(BasePass):
    """Selects and builds kernels; fills ``node.impl`` and ``program.cl_programs`` / ``program.entry_program``."""

    name = "compile_graph"

    def run(self, program: ProgramGraph) -> None:
        """Select per node, deduplicate sources, build in batches."""
        forced = program.forced_impls
        hits0 = program.engine.binary_cache_hits
        builder = ProgramBuilder(program.engine, program.options.progress)  # builds while the rest is selected
        mode = program.options.tuning
        cache = None if mode == "off" else TuningCache(program.options.tuning_cache or default_tuning_cache_path())
        from ..device_probe import device_caps

        program.device_caps = device_caps(program.engine, cache, mode)
        for node in program.order:
            if node.optimized_out:
                continue
            self.node = node.id
            params = node_params(program, node)
            if mode == "tune" and cache is not None and node.id not in forced \
                    and selector.stored_winner(params, cache) is None:  # none stored, or one that is ignored
                from ..autotuner import tune

                tune(program.engine, params, cache)
            kernel, kd = selector.select(params, forced.get(node.id), cache)
            node.impl = Impl(kd.kernel_name, kd.kernels, dict(kd.variant))
            log.debug("%s '%s': %s", node.kind, node.id, kd.kernel_name)
            for k in kd.kernels:
                if isinstance(k, ClKernelData):  # a CPU kernel is a numba callable: nothing to build here
                    builder.add(k.entry, k.source, node.id)
        program.cl_programs, program.entry_program = builder.finish()
        entries = list(builder.sources)
        program.kernels_built = len(entries)
        program.binary_cache_hits = program.engine.binary_cache_hits - hits0
        log.info("%d kernels in %d programs, %d programs from the kernel binary cache", len(entries),
                 len(program.cl_programs), program.binary_cache_hits)
        if cache is not None and mode == "tune":
            cache.save()


class ProgramBuilder:
    """Kernel sources built in batched ``cl.Program``s while the caller is still making them: every
    ``engine.kernels_per_program`` new entries start a batch build on a worker thread (clBuildProgram releases the
    GIL, so the build overlaps the caller's Python: kernel selection, or a loaded Program's kernel rebuild and
    constant upload; :meth:`flush` starts the last, partial batch early).
    Threads: ``engine.build_threads`` (one per core on a driver known to be safe); on any other driver (Oclgrind's
    checker crashes in any thread but the main one) every batch builds in the calling thread at :meth:`finish`.
    Program indices follow the batches' order (deterministic). ``users`` names the primitives in a KernelBuildError.
    """

    def __init__(self, engine: Engine, progress: Callable[[int, int], None] | None = None) -> None:
        self.engine, self.progress = engine, progress
        self.per_program = max(1, engine.kernels_per_program)
        self.sources: dict[str, str] = {}
        self.users: dict[str, list[str]] = {}
        self._pending: list[str] = []
        self._batches: list[list[str]] = []
        self._futures: list[Any] = []
        workers = max(1, engine.build_threads)
        self._pool = ThreadPoolExecutor(max_workers=workers) if workers > 1 else None
        self._early: dict[tuple[str, ...], tuple[dict[str, str], Any]] = {}
        self._from_hint: list[Any] = []  # the hint's builds that batches took

    def prebuild(self, hint: list[tuple[str, str]]) -> None:
        """Start building ``hint`` ([(entry, source)], untrusted: :mod:`cldnn_py.program_build_hint`) now, in the
        batches :meth:`add` will form if the same entries come in the same order. A batch :meth:`add` forms later
        takes the hint's build only when its entries and every source are identical; anything else builds from its
        own sources. No-op without worker threads (the hint would only add a build)."""
        if self._pool is None:
            return
        for i in range(0, len(hint), self.per_program):
            chunk = dict(hint[i:i + self.per_program])
            batch = list(chunk)
            if len(batch) != len(hint[i:i + self.per_program]):  # a repeated entry: not what add() forms
                continue
            users = {e: ["(build hint)"] for e in batch}
            self._early[tuple(batch)] = (chunk, self._pool.submit(_build, self.engine, batch, chunk, users))

    @property
    def early_used(self) -> int:
        """How many batches took the build hint's build (:meth:`prebuild`)."""
        return len(self._from_hint)

    def add(self, entry: str, source: str, user: str) -> None:
        """One kernel of primitive ``user`` (an entry already added is shared, not built twice)."""
        self.users.setdefault(entry, []).append(user)
        if entry in self.sources:
            return
        self.sources[entry] = source
        self._pending.append(entry)
        if len(self._pending) == self.per_program:
            self._submit()

    def _submit(self) -> None:
        batch, self._pending = self._pending, []
        self._batches.append(batch)
        if self._pool is not None:
            early = self._early.pop(tuple(batch), None)
            if early is not None and all(early[0][e] == self.sources[e] for e in batch):
                self._futures.append(early[1])  # the hint's build of exactly these sources
                self._from_hint.append(early[1])
                return
            self._futures.append(self._pool.submit(_build, self.engine, batch, self.sources, self.users))

    def flush(self) -> None:
        """Start building the entries added so far (a partial batch) now, not at :meth:`finish`: a caller with
        other work left (a loaded Program's constant upload) overlaps it with the build."""
        if self._pending:
            self._submit()

    def abandon(self) -> None:
        """Drop the batches not started and wait for the running ones (the caller failed; nothing is kept)."""
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)

    def finish(self) -> tuple[list[Any], dict[str, int]]:
        """Wait for every batch: (programs, {entry: program index}). Raises KernelBuildError."""
        if self._pending:
            self._submit()
        for _, unused in self._early.values():  # hint batches that matched nothing: not started, not wanted
            unused.cancel()
        programs: list[Any] = []
        entry_program: dict[str, int] = {}
        done = 0
        try:
            results: Iterable[Any] = (self._result(f, b) for f, b in zip(self._futures, self._batches)) \
                if self._pool is not None else (_build(self.engine, b, self.sources, self.users) for b in self._batches)
            for batch, result in zip(self._batches, results):
                for prg, built in result:
                    for e in built:
                        entry_program[e] = len(programs)
                    programs.append(prg)
                done += len(batch)
                if self.progress is not None:
                    self.progress(done, len(self.sources))
        finally:
            if self._pool is not None:
                self._pool.shutdown(wait=True, cancel_futures=True)
        return programs, entry_program

    def _result(self, future: Any, batch: list[str]) -> Any:
        """A batch's build; one from the hint that failed is built again from the batch's own sources here, so that
        a KernelBuildError names the primitives (the hint's build knew none)."""
        try:
            return future.result()
        except KernelBuildError:
            if future in self._from_hint:
                return _build(self.engine, batch, self.sources, self.users)
            raise


def _build(engine: Engine, batch: list[str], sources: dict[str, str],
           users: dict[str, list[str]]) -> list[tuple[object, list[str]]]:
    """[(cl.Program, entries in it)]: one program for the batch, or, if the batch does not build (a template
    that clashes with another one), one per kernel; a kernel that fails alone raises KernelBuildError."""
    from kernel_selector.kernel_base import common_header

    src = common_header() + "\n".join(sources[e] for e in batch)
    try:
        return [(engine.build(src), batch)]
    except KernelBuildError as batch_error:
        log.warning("batched build of %d kernels failed, building them one by one: %s", len(batch),
                    batch_error.build_log.splitlines()[:3])
        out = []
        for e in batch:  # find the culprit so the error names the primitive
            try:
                out.append((engine.build(common_header() + sources[e]), [e]))
            except KernelBuildError as err:
                name = e.split("__")[0]
                raise KernelBuildError(
                    f"kernel '{name}' of primitive(s) {users[e]} failed to build:\n{err.build_log}",
                    primitive_ids=users[e], kernel_name=name, build_log=err.build_log) from None
        return out
