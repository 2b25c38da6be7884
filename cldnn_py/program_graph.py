"""ProgramGraph: the mutable program graph the passes work on (clDNN keeps it inside ``program``; here it is a
module of its own so passes depend on the graph, not on ``Program``).

It is made from a validated Topology: one ProgramNode per primitive, edges both ways, ``order`` (dependencies
first) and ``outputs``. Passes edit it in place; ``Program`` publishes its final state. Raises TopologyError for an
output id that is not in the topology, or a topology with no output at all.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from . import env
from .build_options import BuildOptions
from .errors import TopologyError
from .program_node import ProgramNode, topological_order
from .topology import Topology

if TYPE_CHECKING:
    from .engine import Engine


def resolve(nodes: dict[str, ProgramNode], removed: dict[str, tuple[str, str]], pid: str) -> str:
    """Follow ``removed`` (id → (type, host)) from a fused primitive to the node that holds its result."""
    while pid not in nodes and pid in removed and removed[pid][1]:
        pid = removed[pid][1]
    return pid


class ProgramGraph:
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
        self.precision: str = options.inference_precision or topology.preferred_precision or "f32"
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
        if not out and not topology.empty_outputs:  # every output empty: nothing to compute, the Network returns them
            raise TopologyError("the topology has no output: every primitive is Data or an input")
        return out
