"""The build hint of a saved Program: its kernels' SHA-256 digests in the file, their sources in this machine's
kernel cache, so that a load starts the driver's build at once instead of after every kernel is made again.

A warm start of ResNet-50 on PoCL spent its time in turn: reading the entry (10 ms), the nodes (45 ms), the 38
kernels made again from their templates (60 ms), then PoCL's build of them from its own cache (90-130 ms, one
program), then the Network (40 ms). The build waited for the last kernel's source. Now ``Program.save`` writes each
kernel's entry name and the SHA-256 of its source in the manifest (``kernel_digests``: data, not code) and puts the
sources in the engine's kernel cache (the same private folder, and the same checked envelope, as the kernel
binaries; key: :func:`store_key`). A load that finds all of a batch's sources there (their digests checked) hands
them to the driver on a worker thread before it decodes the nodes
(:meth:`cldnn_py.passes.compile_graph.ProgramBuilder.prebuild`), and the build overlaps the rest of the load.

**Nothing here is trusted.** The file never holds code. The kernels are still made again from the package's
templates, and a batch takes the hint's build only when every one of its sources is, character for character, the
one the templates made; otherwise the batch builds from the templates' sources as without a hint (the hint's build
is wasted, nothing else). A digest list that is malformed, or sources missing from the cache or not matching their
digest, give no hint. A Program loaded on another machine, or after ``cldnn-py cache clear``, simply has none.
"""

from __future__ import annotations

import hashlib
import re
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .engine import Engine
    from .program import Program

_HEX64 = re.compile(r"[0-9a-f]{64}")


def digest(source: str) -> str:
    """SHA-256 (hex) of a kernel source."""
    return hashlib.sha256(source.encode()).hexdigest()


def store_key(source_digest: str) -> str:
    """The kernel cache key of the source whose digest is ``source_digest`` (never a binary's key: those hash a JSON
    list, :meth:`cldnn_py.kernel_cache.KernelCache.key`)."""
    return hashlib.sha256(b"cldnn_py kernel source\0" + source_digest.encode()).hexdigest()


def sources(program: Program) -> list[tuple[str, str]]:
    """[(entry, source)] of the OpenCL kernels ``program`` runs, in the order a load makes them again (its nodes'
    order, each entry once): the order :class:`~cldnn_py.passes.compile_graph.ProgramBuilder` batches them in."""
    from kernel_selector import ClKernelData

    out: dict[str, str] = {}
    for node in program.order:
        if node.impl is None:
            continue
        for k in node.impl.kernels:
            if isinstance(k, ClKernelData) and k.entry not in out:
                out[k.entry] = k.source
    return list(out.items())


def record(program: Program) -> list[list[str]]:
    """The manifest's ``kernel_digests`` ([[entry, SHA-256 of its source]]) of ``program``; each source is put in
    the engine's kernel cache as it goes (nothing when the engine has no cache, or it is off)."""
    cache = getattr(program.engine, "kernel_cache", None)
    out = []
    for entry, src in sources(program):
        d = digest(src)
        if cache is not None and cache.enabled:
            cache.store(store_key(d), src.encode())
        out.append([entry, d])
    return out


def lookup(engine: Engine, listed: Any) -> list[tuple[str, str]]:
    """The hint for a file's ``kernel_digests`` ``listed``: [(entry, source)] from ``engine``'s kernel cache, each
    source's digest checked; all or nothing (a partial hint would start builds of batches the load never forms).
    Empty for a malformed list, a source missing or not matching its digest, or without a cache. Never raises for
    what is on disk."""
    cache = getattr(engine, "kernel_cache", None)
    if cache is None or not cache.enabled or not isinstance(listed, list):
        return []
    out: list[tuple[str, str]] = []
    for item in listed:
        if not (isinstance(item, list) and len(item) == 2 and isinstance(item[0], str) and isinstance(item[1], str)
                and _HEX64.fullmatch(item[1])):
            return []
        raw = cache.load(store_key(item[1]))
        if raw is None or hashlib.sha256(raw).hexdigest() != item[1]:
            return []
        try:
            out.append((item[0], raw.decode()))
        except UnicodeDecodeError:
            return []
    return out


__all__ = ["digest", "store_key", "sources", "record", "lookup"]
