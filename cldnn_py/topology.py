"""Topology: the user's graph, an ordered {id: primitive} (clDNN ``topology``).

Primitives may be added in any order (an input may be added after its user); ``validate()``, run by Program,
checks that every referenced id exists (suggesting the closest one) and that the graph has no cycle.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterator

import numpy as np

from .errors import TopologyError
from .io_signature import TensorSignature
from .primitives.base import Primitive


class Topology:
    """An ordered set of primitives with unique ids. ``is_dynamic`` is True only for a topology that a Network
    specializes per input signature (see ``cldnn_py.dynamic_network``).

    Raises TopologyError from ``add`` for a duplicate id or a non-primitive (the Topology is then unchanged:
    ``add(a, b, c)`` adds all or none), and from ``validate`` for missing inputs or cycles.
    """

    is_dynamic = False
    is_partitioned = False  # True for partitioned_network.PartitionedTopology (stages: engine and onnxruntime)

    def __init__(self, *primitives: Primitive) -> None:
        self._prims: dict[str, Primitive] = {}
        self.outputs: list[str] | None = None
        """Declared outputs (the ONNX importer sets the graph outputs). When set, the network outputs are exactly
        these (plus ``BuildOptions.outputs``) and everything else no output needs is trimmed; when None, the
        outputs are the primitives nobody consumes."""
        self.input_signature: dict[str, TensorSignature] = {}
        """{graph input: its declared type} (the ONNX importer sets it): a Network accepts feeds of these dtypes and
        ranks (int64, bool, rank 0) and converts them to what the engine stores; a declared input that no output
        needs is accepted and ignored. Empty for a hand-built Topology: feeds must match the InputLayout."""
        self.output_signature: dict[str, TensorSignature] = {}
        """{graph output: its declared type}: ``Network.run`` returns these dtypes and ranks."""
        self.preferred_precision: str | None = None
        """``"f16"`` for a model stored in float16 (the ONNX importer sets it): a Program built with
        ``BuildOptions(inference_precision=None)`` (the default) and no ``CLDNN_PY_INFERENCE_PRECISION`` runs it
        with f16 storage, as it came; ``inference_precision="f32"`` promotes it. None: f32."""
        self.empty_outputs: dict[str, np.ndarray] = {}
        """{graph output: its value} for outputs that are empty (a dimension of 0): the engine has no zero-size
        buffers, so the Network returns these arrays as they are, after the computed outputs."""
        if primitives:
            self.add(*primitives)

    def add(self, *primitives: Primitive) -> Topology:
        """Add one or more primitives; all or none. Returns self for chaining."""
        seen: set[str] = set()
        for p in primitives:
            if not isinstance(p, Primitive):
                raise TopologyError(f"Topology.add expects primitives, got {type(p).__name__}: {p!r}")
            if p.id in self._prims or p.id in seen:
                raise TopologyError(f"duplicate primitive id '{p.id}': a {self._type_of(p.id, primitives)} with "
                                    f"this id is already in the topology")
            seen.add(p.id)
        for p in primitives:
            self._prims[p.id] = p
        return self

    def _type_of(self, pid: str, pending: tuple[Primitive, ...]) -> str:
        if pid in self._prims:
            return self._prims[pid].type_name
        return next(p.type_name for p in pending if p.id == pid)

    def __contains__(self, pid: object) -> bool:
        return pid in self._prims

    def __getitem__(self, pid: str) -> Primitive:
        return self._prims[pid]

    def __iter__(self) -> Iterator[Primitive]:
        return iter(self._prims.values())

    def __len__(self) -> int:
        return len(self._prims)

    def ids(self) -> list[str]:
        """Primitive ids in insertion order."""
        return list(self._prims)

    def validate(self) -> list[str]:
        """Check inputs and cycles; return the ids in a topological order (dependencies first).

        Raises TopologyError naming the primitive and the missing id (with the closest existing id), or the
        cycle as ``a -> b -> a``.
        """
        for p in self._prims.values():
            for dep in p.dependencies():
                if dep not in self._prims:
                    close = difflib.get_close_matches(str(dep), list(self._prims), n=1)
                    hint = f"; did you mean '{close[0]}'?" if close else ""
                    raise TopologyError(f"{p.type_name} '{p.id}': input '{dep}' does not exist in the "
                                        f"topology{hint}")
        order: list[str] = []
        state: dict[str, int] = {}  # 1 = on the stack, 2 = done
        for root in self._prims:
            if state.get(root) == 2:
                continue
            stack: list[tuple[str, Iterator[str]]] = [(root, iter(self._prims[root].dependencies()))]
            state[root] = 1
            while stack:
                node, it = stack[-1]
                nxt = next(it, None)
                if nxt is None:
                    stack.pop()
                    state[node] = 2
                    order.append(node)
                elif state.get(nxt) == 1:
                    path = [n for n, _ in stack]
                    cycle = path[path.index(nxt):] + [nxt]
                    raise TopologyError("cycle in topology: " + " -> ".join(reversed(cycle)))
                elif state.get(nxt) is None:
                    state[nxt] = 1
                    stack.append((nxt, iter(self._prims[nxt].dependencies())))
        return order

    def __repr__(self) -> str:
        return f"Topology({len(self)} primitives)"
