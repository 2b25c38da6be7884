"""A model split between the engine and the host (onnxruntime or numpy): stages run in order, tensors cross at
the stage edges.

Where an execution provider of ONNX Runtime (oneDNN's, OpenVINO's) claims the nodes it supports
(``GetCapability``) and leaves the rest to the default CPU provider, the ONNX importer here
(``frontend/onnx_partition.py``, asked by ``load_onnx(model, fallback="onnxruntime")``) cuts the graph into
*stages*: each maximal run of supported nodes becomes an :class:`EngineStage` (a Topology of its own, compiled by
the usual Program: blocked layouts and fusions stay inside it, reorders only at its edges), each maximal run of
unsupported nodes a :class:`HostStage` (the extracted ONNX subgraph, run by an onnxruntime session created once at
build). Without any fallback, ``load_onnx`` cuts the same way around operators whose output size depends on the
data (NonMaxSuppression, NonZero ...: ``cldnn_py/host_ops``): those run in host stages of their own
(``runner="host"``, numpy), with the engine stages before and after them. ``Network(engine, topology)`` on a
:class:`PartitionedTopology` makes a :class:`PartitionedNetwork`.

Data crosses stages as host arrays in the plain (logical, row-major) layout, under the model's tensor names, only
where an edge of the graph crosses stages. The stages are in a topological order of the graph (each reads only
graph inputs, constants and earlier stages' outputs), so a run is one pass over them.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .build_options import BuildOptions
from .engine import Engine
from .errors import CldnnError, TopologyError, UnsupportedError
from .host_ops import HostRunner
from .io_signature import TensorSignature, as_feed
from .network import Network, NetworkOutput, ProfilingEntry
from .topology import Topology


@dataclass
class EngineStage:
    """Supported nodes: ``topology`` (static or dynamic) reads ``inputs`` and produces ``outputs`` (tensor names)."""

    name: str
    topology: Topology
    inputs: list[str]
    outputs: list[str]
    ops: list[str] = field(default_factory=list)
    """The ONNX nodes inside, as "OpType 'node name'"."""


@dataclass
class HostStage:
    """Nodes run on the host: ``model`` (serialized ONNX ModelProto of the subgraph) reads ``inputs`` and produces
    ``outputs`` (tensor names); ``ops`` lists its nodes as "OpType 'node name'". ``runner`` is ``"onnxruntime"``
    (unsupported nodes, ``fallback="onnxruntime"``) or ``"host"`` (operators with data-dependent output sizes and
    their followers, run by :class:`cldnn_py.host_ops.HostRunner`)."""

    name: str
    model: bytes
    inputs: list[str]
    outputs: list[str]
    ops: list[str] = field(default_factory=list)
    runner: str = "onnxruntime"


class PartitionedTopology(Topology):
    """A topology made of stages (see the module docstring); holds no primitives itself. ``input_signature`` /
    ``output_signature`` are the whole model's; ``outputs`` its graph outputs."""

    is_partitioned = True

    def __init__(self, stages: list[EngineStage | HostStage], input_signature: dict[str, TensorSignature],
                 output_signature: dict[str, TensorSignature], name: str) -> None:
        super().__init__()
        self.stages = list(stages)
        self.input_signature = dict(input_signature)
        self.output_signature = dict(output_signature)
        self.outputs = list(output_signature)
        self.name = name

    def describe(self) -> str:
        """One line per stage: kind, name, ops, the tensors it reads and writes (``cldnn-py dump-graph`` prints it)."""
        lines = []
        for s in self.stages:
            kind = "engine" if isinstance(s, EngineStage) else s.runner
            lines.append(f"{s.name} [{kind}] {len(s.ops)} node(s): {', '.join(s.ops)}\n"
                         f"    reads {s.inputs} -> writes {s.outputs}")
        return "\n".join(lines)

    def __repr__(self) -> str:
        kinds = ["engine" if isinstance(s, EngineStage) else s.runner for s in self.stages]
        return f"PartitionedTopology({self.name!r}, stages={kinds})"


def _host_session(stage: HostStage) -> Any:
    """The runner of a host stage: a :class:`HostRunner` (``runner="host"``) or an onnxruntime CPU session;
    UnsupportedError naming the stage when onnxruntime is missing or refuses the subgraph."""
    if stage.runner == "host":
        return HostRunner(stage.model, stage.name)
    try:
        import onnxruntime as ort
    except ImportError:
        raise UnsupportedError(f"{stage.name}: running unsupported nodes through onnxruntime needs the onnxruntime "
                               f"package (pip install 'cldnn_py[fallback]')") from None
    opts = ort.SessionOptions()
    opts.log_severity_level = 3
    try:
        return ort.InferenceSession(stage.model, opts, providers=["CPUExecutionProvider"])
    except Exception as e:  # noqa: BLE001 - onnxruntime raises its own exception types
        raise UnsupportedError(f"{stage.name}: onnxruntime cannot run the fallback subgraph ({', '.join(stage.ops)})"
                               f": {str(e).splitlines()[0]}") from None


class PartitionedNetwork(Network):
    """Runs a :class:`PartitionedTopology`: one Network per engine stage (built at construction with ``options``),
    one runner per host stage (an onnxruntime session, or a HostRunner for operators with data-dependent output
    sizes). ``run`` / ``set_input_data`` + ``execute`` as on a Network; outputs are
    host arrays (their ``NetworkOutput.event`` is None). ``get_profiling_info`` lists every engine stage's
    primitives and one entry per host stage (type ``onnxruntime`` or ``host``, its nodes in ``kernel``, wall time in
    µs).

    Raises what the stages' builds raise, UnsupportedError when onnxruntime is missing or refuses a subgraph,
    TopologyError for an unknown or missing input."""

    def __init__(self, engine: Engine, topology: PartitionedTopology, options: BuildOptions | None = None) -> None:
        self.engine = engine
        self.topology = topology
        self.input_signature = topology.input_signature
        self.input_ids = list(topology.input_signature)
        self._outputs = list(topology.outputs or [])
        self._lock = threading.RLock()
        self._feeds: dict[str, np.ndarray] = {}
        self._nets: dict[str, Network] = {}
        self._sessions: dict[str, Any] = {}
        self._host_us: dict[str, float] = {}
        for s in topology.stages:
            if isinstance(s, EngineStage):
                self._nets[s.name] = Network(engine, s.topology, options)
            else:
                self._sessions[s.name] = _host_session(s)

    def set_input_data(self, pid: str, array: np.ndarray) -> None:
        """Keep an input (a copy) for the next ``execute``; TopologyError for a name that is not a model input."""
        self._accept(pid, np.array(as_feed(pid, array)))  # a copy: the caller may change its array before execute

    def _accept(self, pid: str, arr: np.ndarray) -> None:
        if pid not in self.input_signature:
            raise TopologyError(f"set_input_data: '{pid}' is not an input of this network (inputs: {self.input_ids})")
        with self._lock:
            self._feeds[pid] = arr

    def execute(self) -> dict[str, NetworkOutput]:
        """Run every stage in order on the inputs set; the graph outputs as NetworkOutputs holding host arrays."""
        with self._lock:
            values = self._run(self._feeds)
            return {k: NetworkOutput(k, None, None, None, values[k]) for k in self._outputs}

    def run(self, feeds: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
        """Run on ``feeds`` ({input name: array}); {output name: array} in the declared dtypes."""
        with self._lock:
            for k, v in feeds.items():  # no copy here: the engine stages copy what they read before run returns
                self._accept(k, as_feed(k, v))
            values = self._run(self._feeds)
            return {k: values[k] for k in self._outputs}

    def _run(self, feeds: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
        missing = [n for n in self.input_signature if n not in feeds]
        if missing:
            raise CldnnError(f"inputs never set: {missing} (set_input_data or run(feeds))")
        values: dict[str, np.ndarray] = dict(feeds)
        for s in self.topology.stages:
            ins = {n: values[n] for n in s.inputs}
            if isinstance(s, EngineStage):
                values.update(self._nets[s.name].run(ins))
            else:
                t0 = time.perf_counter()
                outs = self._sessions[s.name].run(s.outputs, ins)
                self._host_us[s.name] = (time.perf_counter() - t0) * 1e6
                values.update(zip(s.outputs, outs))
        return values

    # ----- introspection ----------------------------------------------------------------------------------------
    @property
    def stages(self) -> list[EngineStage | HostStage]:
        """The stages in run order."""
        return self.topology.stages

    def stage_network(self, name: str) -> Network:
        """The Network of engine stage ``name`` (KeyError for another name)."""
        return self._nets[name]

    @property
    def program(self) -> Any:  # type: ignore[override]
        """The Program of the first engine stage (None when every node runs on onnxruntime)."""
        return next((n.program for n in self._nets.values()), None)

    def get_profiling_info(self) -> list[ProfilingEntry]:
        """Engine stages' primitives (device time) and one entry per host stage (type ``onnxruntime`` or ``host``:
        where it ran; wall time of its run), in stage order, from the last execution."""
        out: list[ProfilingEntry] = []
        for s in self.topology.stages:
            if isinstance(s, EngineStage):
                out += self._nets[s.name].get_profiling_info()
            else:
                out.append(ProfilingEntry(s.name, s.runner, ", ".join(s.ops), "EXECUTED",
                                          self._host_us.get(s.name, 0.0)))
        return out

    def memory_info(self) -> dict[str, int]:
        """The engine stages' ``memory_info`` summed (bytes); onnxruntime's own memory is not counted."""
        total: dict[str, int] = {}
        for n in self._nets.values():
            for k, v in n.memory_info().items():
                total[k] = total.get(k, 0) + v
        return total

    def poison(self, value: float = float("nan")) -> None:
        """``Network.poison`` on every engine stage."""
        for n in self._nets.values():
            n.poison(value)

    def get_output_layout(self, pid: str) -> Any:
        """The Layout of primitive ``pid`` in the engine stage that has it; TopologyError otherwise."""
        for n in self._nets.values():
            try:
                return n.get_output_layout(pid)
            except (KeyError, CldnnError):
                continue
        raise TopologyError(f"'{pid}' is not a primitive of any engine stage")
