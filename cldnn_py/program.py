"""Program: a Topology compiled for one Engine (clDNN ``program``).

Build sequence (clDNN ``program.cpp`` ``build_program``): validate the topology → make program_nodes → run the
PIPELINE (``passes/__init__.py``): layouts, trimming, flags, kernel selection and batched kernel build → upload
every Data to the device. The build is all-or-nothing: the graph is built in a ``ProgramBuilder`` and the Program
object exists only when every step succeeded, so a failure leaves nothing half-built behind.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from . import env
from .engine import Engine
from .errors import TopologyError
from .memory import Memory
from .pass_manager import PassManager
from .primitives.base import Primitive
from .program_node import ProgramNode, topological_order
from .topology import Topology

log = logging.getLogger("cldnn_py.program")


@dataclass
class BuildOptions:
    """Options of a Program build.

    outputs: ids that are network outputs in addition to the primitives nobody consumes.
    optimize_data: run the optimizing passes (issue 4 adds them; the reference pipeline ignores it).
    force_implementations: {primitive id: kernel name}, merged over ``CLDNN_PY_FORCE_IMPL``.
    progress: called as ``progress(kernels_built, kernels_total)`` after each batch of kernels is compiled
        (the CLI draws a tqdm bar with it; the library itself prints nothing).
    tuning: ``"cache"`` (default): take the tuning cache's winner (kernel and variant, e.g. the pixel block of the
        fsv16 convolution) where one is stored for this device and shape, the priority rules elsewhere;
        ``"tune"``: first time every tunable kernel variant of each node that has no stored winner on the device
        (a few ms per variant plus its compile, ~0.2-0.5 s) and store the fastest in the user's cache file;
        ``"off"``: priority rules only (clDNN ``tuning_config``, kernel_selector/tuning_cache.py).
    tuning_cache: the user's tuning cache file; None: ``CLDNN_PY_TUNING_CACHE`` or the platformdirs user cache.
    """

    outputs: list[str] | None = None
    optimize_data: bool = True
    force_implementations: dict[str, str] = field(default_factory=dict)
    progress: Callable[[int, int], None] | None = None
    tuning: str = "cache"
    tuning_cache: str | Path | None = None

    def __post_init__(self) -> None:
        from kernel_selector.tuning_cache import TUNING_MODES

        if self.tuning not in TUNING_MODES:
            raise ValueError(f"BuildOptions.tuning must be one of {', '.join(TUNING_MODES)}; got {self.tuning!r}")


def resolve(nodes: dict[str, ProgramNode], removed: dict[str, tuple[str, str]], pid: str) -> str:
    """Follow ``removed`` (id → (type, host)) from a fused primitive to the node that holds its result."""
    while pid not in nodes and pid in removed and removed[pid][1]:
        pid = removed[pid][1]
    return pid


class ProgramBuilder:
    """The mutable graph state passes work on: ``nodes`` {id: ProgramNode}, ``order`` (dependencies first),
    ``outputs`` (ids), the engine and what compile_graph produces (``cl_programs``, ``entry_program``)."""

    def __init__(self, engine: Engine, topology: Topology, options: BuildOptions) -> None:
        self.engine = engine
        self.options = options
        ids = topology.validate()
        self.nodes: dict[str, ProgramNode] = {pid: ProgramNode(topology[pid]) for pid in ids}
        for node in self.nodes.values():
            for dep in node.primitive.dependencies():
                d = self.nodes[dep]
                node.dependencies.append(d)
                d.users.append(node)
        self.order: list[ProgramNode] = topological_order(self.nodes)
        self.outputs = self._outputs(topology, options)
        self.forced_impls = {**env.forced_impls(), **options.force_implementations}
        self.cl_programs: list[Any] = []
        self.device_caps: dict[str, str] = {}  # compile_graph: cldnn_py.device_probe.device_caps
        self.binary_cache_hits = 0  # compile_graph: programs loaded from the kernel binary cache
        self.entry_program: dict[str, int] = {}
        self.kernels_built = 0
        # primitives that no longer have a node: {id: (type name, host id it was fused into, or "")}
        self.removed: dict[str, tuple[str, str]] = {}
        # memory pool plan (prepare_memory_dependencies): node id -> shared buffer slot, slot sizes in bytes,
        # and the nodes whose kernels must finish before a node may write its (reused) buffer
        self.memory_slots: dict[str, int] = {}
        self.slot_bytes: list[int] = []
        self.memory_deps: dict[str, list[str]] = {}
        self.memory_zero: set[str] = set()

    def fuse(self, node: ProgramNode, host: ProgramNode) -> None:
        """Remove ``node`` whose work ``host`` now does: node's users read host, node's id resolves to host."""
        for u in node.users:
            u.dependencies = [host if d is node else d for d in u.dependencies]
            if u not in host.users:
                host.users.append(u)
        host.users = [u for u in host.users if u is not node]
        for d in node.dependencies:
            d.users = [u for u in d.users if u is not node]
        if node.is_output:
            host.is_output = True
        self.removed[node.id] = (node.kind, host.id)
        self.nodes.pop(node.id, None)
        node.dependencies, node.users = [], []

    def resolve(self, pid: str) -> str:
        """The node id holding primitive ``pid``'s result (itself, or the node it was fused into)."""
        return resolve(self.nodes, self.removed, pid)

    def _outputs(self, topology: Topology, options: BuildOptions) -> list[str]:
        if topology.outputs is not None:
            sinks = list(topology.outputs)
        else:
            sinks = [n.id for n in self.order if not n.users and n.kind not in ("data", "input_layout")]
        named = list(options.outputs or [])
        for o in named + sinks:
            if o not in self.nodes:
                raise TopologyError(f"output '{o}' (BuildOptions.outputs or Topology.outputs) is not in the topology")
        out = sinks + [o for o in named if o not in sinks]
        if not out:
            raise TopologyError("the topology has no output: every primitive is Data or an input")
        return out


class Program:
    """A compiled Topology.

    Args:
        engine: the Engine to build for.
        topology: the user's Topology (not modified).
        options: BuildOptions (defaults when None).
    Attributes:
        nodes: {id: ProgramNode} after the passes; ``order``: execution order; ``outputs``: output ids;
        constants: {Data id: Memory} uploaded to the device; build_time_ms; kernels_built (distinct kernels);
        device_caps (the device probe's verdict the kernels were compiled for); binary_cache_hits (programs loaded
        from the kernel binary cache); pass_timings_ms.
    Raises:
        TopologyError, ShapeError, DTypeError, UnsupportedError, KernelBuildError, DeviceError.
    """

    def __init__(self, engine: Engine, topology: Topology, options: BuildOptions | None = None) -> None:
        t0 = time.perf_counter()
        from .passes import pipeline

        opts = options or BuildOptions()
        b = ProgramBuilder(engine, topology, opts)
        pm = PassManager()
        pm.run(b, pipeline(opts.optimize_data))
        constants: dict[str, Memory] = {}
        for node in b.order:
            if node.kind == "data":
                mem = engine.allocate(node.layout(), owner=node.id)
                mem.write(node.primitive.array)  # type: ignore[attr-defined]
                constants[node.id] = mem
        # success: publish
        self.engine = engine
        self.options = opts
        self.nodes = b.nodes
        self.order = b.order
        self.outputs = b.outputs
        self.cl_programs = b.cl_programs
        self.entry_program = b.entry_program
        self.kernels_built = b.kernels_built
        self.device_caps = b.device_caps
        self.binary_cache_hits = b.binary_cache_hits
        self.constants = constants
        self.removed = b.removed
        self.memory_slots = b.memory_slots
        self.slot_bytes = b.slot_bytes
        self.memory_deps = b.memory_deps
        self.memory_zero = b.memory_zero
        self.pass_timings_ms = pm.timings_ms
        self.build_time_ms = (time.perf_counter() - t0) * 1e3
        log.info("program built in %.0f ms: %d nodes, %d kernels in %d cl programs", self.build_time_ms,
                 len(self.nodes), self.kernels_built, len(self.cl_programs))

    def __reduce__(self) -> Any:
        raise TypeError("a cldnn_py Program holds live OpenCL objects and cannot be pickled; pass the Topology "
                        "(or a model path / bytes) and the device spec, and build it again")

    def resolve(self, pid: str) -> str:
        """The node id holding primitive ``pid``'s result (itself, or the node it was fused into)."""
        return resolve(self.nodes, self.removed, pid)

    def node(self, pid: str) -> ProgramNode:
        """The node of a primitive id (or of the node it was fused into); raises TopologyError if it was trimmed or
        never existed."""
        pid = self.resolve(pid)
        if pid not in self.nodes:
            raise TopologyError(f"primitive '{pid}' is not in the program (trimmed or unknown)")
        return self.nodes[pid]

    def primitive(self, pid: str) -> Primitive:
        """The primitive descriptor of an id."""
        return self.node(pid).primitive
