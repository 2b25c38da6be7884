"""Partition an ONNX model between the engine and the host: ``load_onnx(model, fallback="onnxruntime")`` for nodes
the engine cannot run, and always around operators whose output size depends on the data (``cldnn_py/host_ops``).

The capability check of an ONNX Runtime execution provider (``GetCapability`` in the oneDNN and OpenVINO providers),
done on the ONNX graph before import:

1. Constants: initializers, Constant nodes and nodes computed from constants only (the engine's importer folds
   them; a host stage computes them itself) belong to no stage: each stage's subgraph gets a copy of the
   constants it reads. Nodes no graph output depends on are dropped.
2. Each remaining node, in graph order, is of one of three kinds: *host* (an operator of ``host_ops.HOST_OPS``,
   such as NonMaxSuppression, or one of ``host_ops.FOLLOWERS`` that reads a host node's result: run by numpy),
   *engine* (a converter exists for its operator version: ``onnx.unsupported_reason``), or *onnxruntime* (the
   rest; an error without ``fallback="onnxruntime"``, listing every such node).
3. Stages by a greedy topological walk (Kahn's algorithm that keeps taking ready nodes of the current kind while
   there are any, then switches kind, engine first): each stage is a maximal run of one kind, and since a stage
   only reads graph inputs and earlier stages' outputs, grouping never makes a cycle (a node that would close one
   waits for the next stage of its kind).
4. Each stage becomes a subgraph with its crossing tensors as inputs and outputs (types from ONNX shape inference):
   an engine stage is imported by ``load_onnx`` (static or dynamic: one that reads a host stage's data-dependent
   result is dynamic, specialized per size), a host or onnxruntime stage is kept as bytes for its runner. With the
   fallback, an engine stage whose import finds a node it cannot convert after all (an attribute value a converter
   refuses) gets that node moved to onnxruntime and the partition is redone.

A model the engine runs whole is imported as without fallback (no stage, no cost).
"""

from __future__ import annotations

from typing import Any

from ..errors import CldnnError, UnsupportedError
from ..host_ops import FOLLOWERS, HOST_OPS
from ..partitioned_network import EngineStage, HostStage, PartitionedTopology
from ..topology import Topology
from .onnx import (
    DEFAULT_DOMAINS,
    SHAPE_ONLY,
    _opset,
    import_checked,
    raise_unsupported,
    since_version,
    unsupported_reason,
)

NONDETERMINISTIC = ("RandomNormal", "RandomUniform", "RandomNormalLike", "RandomUniformLike", "Multinomial",
                    "Bernoulli")
"""Operators that are never constants, even with constant inputs."""


def has_host_ops(m: Any) -> bool:
    """Whether model ``m`` has a node of an operator that runs on the host (``host_ops.HOST_OPS``)."""
    return any(n.op_type in HOST_OPS and (n.domain or "") in DEFAULT_DOMAINS for n in m.graph.node)


def partition(m: Any, name: str, shapes: dict[str, tuple[int, ...]], fallback: str = "onnxruntime") -> Topology:
    """The Topology of checked model ``m``: the whole-model import when the engine runs every node, else a
    PartitionedTopology (see the module docstring). ``fallback`` is ``"onnxruntime"`` (unsupported nodes run there)
    or ``"none"`` (they are an error). Raises UnsupportedError listing the unsupported nodes without the fallback,
    or when onnxruntime is missing and a node needs it; ShapeError for bad ``shapes``; the stages' import errors
    other than unsupported nodes."""
    import onnx

    m = _named_copy(m)
    opset = _opset(m)
    moved: set[str] = set()
    typed = _inferred_types(onnx, m, shapes)
    for _ in range(len(m.graph.node) + 1):
        kinds = _kinds(m, opset, moved, typed)
        if fallback != "onnxruntime":
            _refuse_unsupported(m, name, opset, kinds)
        if set(kinds.values()) <= {"engine"}:
            try:
                return import_checked(m, name, shapes)
            except CldnnError as e:
                _move_to_onnxruntime(e, moved, fallback)
                continue
        if "onnxruntime" in kinds.values():
            _require_onnxruntime(m, kinds)
        try:
            return _build(m, name, shapes, kinds, typed)
        except CldnnError as e:
            _move_to_onnxruntime(e, moved, fallback)
    raise UnsupportedError(f"'{name}': partitioning did not settle")  # unreachable: each retry moves one node


def _move_to_onnxruntime(e: CldnnError, moved: set[str], fallback: str) -> None:
    """Re-raise ``e`` unless the fallback is on and it is an unsupported node not yet moved; else add that node to
    ``moved``."""
    node = getattr(e, "onnx_node", None)
    if fallback != "onnxruntime" or not isinstance(e, UnsupportedError) or not node or node in moved:
        raise e
    moved.add(node)


def _refuse_unsupported(m: Any, name: str, opset: int, kinds: dict[str, str]) -> None:
    """Without the fallback: one UnsupportedError listing every node of kind onnxruntime (none: nothing happens)."""
    bad = [unsupported_reason(n, opset, m) or f"{n.op_type} (node '{n.name}'): a tensor of rank above 6"
           for n in m.graph.node if kinds.get(n.name) == "onnxruntime"]
    raise_unsupported(bad, name)


def _named_copy(m: Any) -> Any:
    """A copy of ``m`` whose unnamed nodes are named ``<OpType>_<index>`` (stages, retries and profiling name
    nodes)."""
    import onnx

    c = onnx.ModelProto()
    c.CopyFrom(m)
    used = {n.name for n in c.graph.node if n.name}
    for i, n in enumerate(c.graph.node):
        if not n.name:
            n.name = f"{n.op_type}_{i}"
            while n.name in used:
                n.name += "_"
            used.add(n.name)
    return c


def node_inputs(node: Any) -> list[str]:
    """The tensors a node reads: its inputs and, for If/Loop/Scan, the outer-scope names its subgraphs use."""
    names = [t for t in node.input if t]
    for attr in node.attribute:
        for g in ([attr.g] if attr.HasField("g") else []) + list(attr.graphs):
            inner = {i.name for i in g.input} | {i.name for i in g.initializer}
            for n in g.node:
                names += [t for t in node_inputs(n) if t not in inner]
                inner |= set(n.output)
    return list(dict.fromkeys(names))


def _constants(m: Any) -> tuple[set[str], set[int]]:
    """(constant tensor names, indices of constant nodes)."""
    const = {i.name for i in m.graph.initializer}
    nodes = set()
    for i, n in enumerate(m.graph.node):
        ins = node_inputs(n)
        if n.op_type == "Constant" or (ins and n.op_type not in NONDETERMINISTIC and all(t in const for t in ins)):
            nodes.add(i)
            const |= {o for o in n.output if o}
    return const, nodes


def _live(m: Any, const_nodes: set[int]) -> list[int]:
    """Indices of the non-constant nodes some graph output depends on, in graph order."""
    producer = {o: i for i, n in enumerate(m.graph.node) for o in n.output if o}
    need = [o.name for o in m.graph.output]
    live: set[int] = set()
    while need:
        i = producer.get(need.pop())
        if i is None or i in live or i in const_nodes:
            continue
        live.add(i)
        need += node_inputs(m.graph.node[i])
    return sorted(live)


def _kinds(m: Any, opset: int, moved: set[str], typed: dict[str, Any]) -> dict[str, str]:
    """{node name: "host" | "engine" | "onnxruntime"} of the live non-constant nodes, in graph order: host for an
    operator version of HOST_OPS, or one of FOLLOWERS that reads a host node's result; onnxruntime when named in
    ``moved``, when no converter takes its operator version, or when it reads or writes a tensor of rank above 6
    (the engine's layouts); engine otherwise."""
    const, const_nodes = _constants(m)
    producer = {o: n.name for n in m.graph.node for o in n.output if o}
    out: dict[str, str] = {}
    for i in _live(m, const_nodes):
        n = m.graph.node[i]
        default = (n.domain or "") in DEFAULT_DOMAINS
        reads_host = any(out.get(producer.get(t, "")) == "host" for t in node_inputs(n) if t not in const)
        if default and n.op_type in HOST_OPS and n.name not in moved and since_version(n, opset) in HOST_OPS[n.op_type]:
            out[n.name] = "host"
            continue
        if default and n.op_type in FOLLOWERS and reads_host and n.name not in moved:
            out[n.name] = "host"
            continue
        ok = n.name not in moved and (n.op_type in SHAPE_ONLY and default or unsupported_reason(n, opset, m) is None)
        ok = ok and all(_rank(typed, t) <= 6 for t in list(node_inputs(n)) + list(n.output) if t not in const)
        out[n.name] = "engine" if ok else "onnxruntime"
    return out


def _rank(typed: dict[str, Any], t: str) -> int:
    """The rank of tensor ``t`` by shape inference; 0 when unknown."""
    tp = typed.get(t)
    return len(tp.tensor_type.shape.dim) if tp is not None and tp.tensor_type.HasField("shape") else 0


def _require_onnxruntime(m: Any, kinds: dict[str, str]) -> None:
    try:
        import onnxruntime  # noqa: F401
    except ImportError:
        ops = sorted({n.op_type for n in m.graph.node if kinds.get(n.name) == "onnxruntime"})
        raise UnsupportedError(f"unsupported node(s) ({', '.join(ops)}) would run in onnxruntime "
                               f"(fallback='onnxruntime'), which is not installed: pip install "
                               f"'cldnn_py[fallback]'") from None


def _stages(m: Any, kinds: dict[str, str]) -> list[tuple[str, list[int]]]:
    """[(kind, node indices in graph order)] by the greedy walk of the module docstring."""
    index = {n.name: i for i, n in enumerate(m.graph.node) if n.name in kinds}
    producer = {o: i for i, n in enumerate(m.graph.node) if n.name in kinds for o in n.output if o}
    deps = {i: {producer[t] for t in node_inputs(m.graph.node[i]) if t in producer} - {i} for i in index.values()}
    users: dict[int, list[int]] = {i: [] for i in deps}
    for i, ds in deps.items():
        for d in ds:
            users[d].append(i)
    ready = sorted(i for i, ds in deps.items() if not ds)
    stages: list[tuple[str, list[int]]] = []
    kind = ""
    while ready:
        avail = {kinds[m.graph.node[i].name] for i in ready}
        other = [k for k in ("engine", "host", "onnxruntime") if k in avail and k != kind]
        kind = other[0] if other else kind
        group, queue = [], [i for i in ready if kinds[m.graph.node[i].name] == kind]
        ready = [i for i in ready if kinds[m.graph.node[i].name] != kind]
        while queue:
            queue.sort()
            i = queue.pop(0)
            group.append(i)
            for u in users[i]:
                deps[u].discard(i)
                if not deps[u]:
                    (queue if kinds[m.graph.node[u].name] == kind else ready).append(u)
        stages.append((kind, sorted(group)))
        ready.sort()
    return stages


def _inferred_types(onnx: Any, m: Any, shapes: dict[str, tuple[int, ...]]) -> dict[str, Any]:
    """{tensor name: TypeProto} from ONNX shape inference with ``shapes`` fixed on the inputs (no data propagation:
    it would compute constant Range/Tile bombs)."""
    c = onnx.ModelProto()
    c.CopyFrom(m)
    for vi in c.graph.input:
        if vi.name in shapes and vi.type.tensor_type.HasField("shape"):
            for d, v in zip(vi.type.tensor_type.shape.dim, shapes[vi.name]):
                d.Clear()
                d.dim_value = int(v)
    try:
        c = onnx.shape_inference.infer_shapes(c)
    except Exception:  # noqa: BLE001 - inference is best effort; the declared types remain
        pass
    g = c.graph
    return {vi.name: vi.type for vi in list(g.input) + list(g.value_info) + list(g.output)}


def _build(m: Any, name: str, shapes: dict[str, tuple[int, ...]], kinds: dict[str, str],
           typed: dict[str, Any]) -> PartitionedTopology:
    from .onnx_dynamic import signatures

    ins, outs = signatures(m, shapes)
    plan = _stages(m, kinds)
    where = {o: s for s, (_, idx) in enumerate(plan) for i in idx for o in m.graph.node[i].output if o}
    const, const_nodes = _constants(m)
    graph_outs = [o.name for o in m.graph.output]
    missing = [o for o in graph_outs if o not in where]
    if missing:
        raise UnsupportedError(f"'{name}': graph output(s) {missing} are graph inputs or constants; a partitioned "
                               f"model computes every output in a stage")
    stages: list[EngineStage | HostStage] = []
    for s, (kind, idx) in enumerate(plan):
        nodes = [m.graph.node[i] for i in idx]
        produced = {o for n in nodes for o in n.output if o}
        reads = list(dict.fromkeys(t for n in nodes for t in node_inputs(n)))
        s_in = [t for t in reads if t not in produced and t not in const]
        later = {t for _, jdx in plan[s + 1:] for j in jdx for t in node_inputs(m.graph.node[j])}
        s_out = [t for n in nodes for t in n.output if t and (t in later or t in graph_outs)]
        sub = _submodel(m, f"{name}:stage{s}", nodes, s_in, s_out, [t for t in reads if t in const], const_nodes,
                        typed)
        ops = [f"{n.op_type} '{n.name}'" for n in nodes]
        label = f"stage{s}_{kind}"
        if kind == "engine":
            _known_ranks(typed, s_in, nodes)
            sub_shapes = {t: tuple(shapes[t]) for t in s_in if t in shapes}
            stages.append(EngineStage(label, import_checked(sub, f"{name} ({label})", sub_shapes), s_in, s_out,
                                      ops))
        else:
            stages.append(HostStage(label, sub.SerializeToString(), s_in, s_out, ops, runner=kind))
    init = {i.name for i in m.graph.initializer}
    return PartitionedTopology(stages, {k: v for k, v in ins.items() if k not in init}, outs, name)


def _known_ranks(typed: dict[str, Any], inputs: list[str], nodes: list[Any]) -> None:
    """An engine stage needs the rank of every tensor it reads (its layouts are built at import): raise an
    UnsupportedError naming the first node that reads one whose rank shape inference left unknown (the partition
    then moves that node to onnxruntime and tries again)."""
    for t in inputs:
        tp = typed.get(t)
        if tp is None or not tp.tensor_type.HasField("shape"):
            reader = next(n for n in nodes if t in node_inputs(n))
            e = UnsupportedError(f"{reader.op_type} '{reader.name}': reads '{t}', whose rank is unknown before run "
                                 f"time")
            e.onnx_node = reader.name  # type: ignore[attr-defined]
            raise e


def _submodel(m: Any, gname: str, nodes: list[Any], inputs: list[str], outputs: list[str], consts: list[str],
              const_nodes: set[int], typed: dict[str, Any]) -> Any:
    """The ONNX model of one stage: its nodes after copies of the constants they read (initializers and constant
    nodes, transitively), the crossing tensors as typed inputs and outputs. UnsupportedError names a crossing
    tensor without an inferred type."""
    import onnx
    from onnx import helper

    inits = {i.name: i for i in m.graph.initializer}
    producer = {o: i for i in const_nodes for o in m.graph.node[i].output if o}
    need, seen_nodes, seen_inits = list(consts), set(), []
    while need:
        t = need.pop()
        if t in producer and producer[t] not in seen_nodes:
            seen_nodes.add(producer[t])
            need += node_inputs(m.graph.node[producer[t]])
        elif t in inits and t not in seen_inits:
            seen_inits.append(t)

    def value_info(t: str) -> Any:
        tp = typed.get(t)
        if tp is None or not tp.HasField("tensor_type") or not tp.tensor_type.elem_type:
            raise UnsupportedError(f"{gname}: tensor '{t}' crosses between the engine and onnxruntime but its type "
                                   f"is unknown (ONNX shape inference gave none)")
        vi = onnx.ValueInfoProto()
        vi.name = t
        vi.type.CopyFrom(tp)
        return vi

    body = [m.graph.node[i] for i in sorted(seen_nodes)] + list(nodes)
    g = helper.make_graph(body, gname, [value_info(t) for t in inputs], [value_info(t) for t in outputs],
                          [inits[t] for t in seen_inits])
    sub = helper.make_model(g, opset_imports=list(m.opset_import), ir_version=m.ir_version)
    sub.functions.extend(m.functions)
    return sub
