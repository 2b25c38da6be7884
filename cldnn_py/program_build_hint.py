"""The warm-start cache's build hint: the kernel sources of a stored Program, so that loading it starts the
driver's build at once instead of after every kernel has been made again.

A warm start of ResNet-50 on PoCL spent its time in turn: reading the entry (10 ms), the nodes (45 ms), the 38
kernels made again from their templates (60 ms), then PoCL's build of them from its own cache (90-130 ms, one
program), then the Network (40 ms). The build waits for the last kernel's source. With the hint, the sources the
entry was built from are built on a worker thread as the load starts, overlapping the nodes and the kernels
(:meth:`cldnn_py.passes.compile_graph.ProgramBuilder.prebuild`).

**Nothing here is trusted.** The hint is a member (``kernel_sources.json``) of the warm-start cache's own entries
only; a file ``Program.save`` writes for a user holds none, and ``Program.load`` of a user's file never reads one.
The kernels are still made again from the package's templates, and a program built from the hint is used only for
a batch whose every source is, character for character, the one the templates made; otherwise the batch is built
from the templates' sources as without a hint (the hint's build is wasted, nothing else). A hint that is not a list
of [entry, source] string pairs is ignored. The driver compiles the hint's text, but nothing of it runs unless it is
what the package itself would have built.
"""

from __future__ import annotations

import json
import os
import zipfile
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .program import Program

MEMBER = "kernel_sources.json"
MAX_BYTES = 64 << 20
"""A hint larger than this is ignored (ResNet-50's 38 kernels: about 0.3 MB)."""


def collect(program: Program) -> list[tuple[str, str]]:
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


def encode(pairs: list[tuple[str, str]]) -> bytes:
    """The member's bytes: JSON, a list of [entry, source]."""
    return json.dumps([list(p) for p in pairs], separators=(",", ":")).encode()


def read(path: str | os.PathLike[str]) -> list[tuple[str, str]] | None:
    """The hint stored in the program file at ``path``, or None when it has none or it is not a list of
    [entry, source] string pairs (a bad hint is ignored, never an error: the load checks the file itself)."""
    try:
        with zipfile.ZipFile(path) as z:
            info = z.getinfo(MEMBER)
            if info.file_size > MAX_BYTES:
                return None
            data: Any = json.loads(z.read(info))
    except (KeyError, OSError, ValueError, zipfile.BadZipFile, zipfile.LargeZipFile, EOFError):
        return None
    if not isinstance(data, list) or not all(
            isinstance(p, list) and len(p) == 2 and isinstance(p[0], str) and isinstance(p[1], str) for p in data):
        return None
    return [(p[0], p[1]) for p in data]


__all__ = ["MEMBER", "collect", "encode", "read"]
