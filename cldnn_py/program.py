"""Program: a Topology compiled for one Engine (clDNN ``program``).

Build sequence (clDNN ``program.cpp`` ``build_program``): validate the topology → make program_nodes → run the
PIPELINE (``passes/__init__.py``): layouts, trimming, flags, kernel selection and batched kernel build → upload
every Data to the device. The build is all-or-nothing: the graph is built in a ``ProgramGraph`` (program_graph.py)
and the Program object exists only when every step succeeded, so a failure leaves nothing half-built behind.
``BuildOptions`` lives in build_options.py and is importable from here as before.
"""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from .build_options import BuildOptions
from .engine import Engine
from .errors import TopologyError
from .memory import Memory
from .pass_manager import PassManager
from .primitives.base import Primitive
from .program_graph import ProgramGraph, resolve
from .program_node import ProgramNode
from .topology import Topology

log = logging.getLogger("cldnn_py.program")

ConstantEvaluator = Callable[[Engine, Topology], dict[str, np.ndarray]]
"""Runs a constant subgraph on an engine: (engine, topology with no inputs) -> {output id: array}."""

_constant_evaluator: ConstantEvaluator | None = None


def set_constant_evaluator(fn: ConstantEvaluator) -> None:
    """Install how propagate_constants runs constant subgraphs. Running a graph is the Network's job, and the Network
    is built from a Program, so the package (``cldnn_py/__init__.py``) installs a Network-based evaluator when it is
    imported; this keeps ``program`` from importing ``network`` (no import circle)."""
    global _constant_evaluator
    _constant_evaluator = fn


def _evaluate_constants(engine: Engine, topology: Topology) -> dict[str, np.ndarray]:
    """The installed evaluator on ``engine``; raises RuntimeError when none is installed."""
    if _constant_evaluator is None:
        raise RuntimeError("no constant evaluator installed (cldnn_py/__init__.py installs it: import cldnn_py)")
    return _constant_evaluator(engine, topology)


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
        from the kernel binary cache); hint_batches (a loaded Program: kernel batches whose driver build started
        from the build hint, :mod:`cldnn_py.program_build_hint`); pass_timings_ms.
    Raises:
        TopologyError, ShapeError, DTypeError, UnsupportedError, KernelBuildError, DeviceError.
    """

    def __init__(self, engine: Engine, topology: Topology, options: BuildOptions | None = None) -> None:
        t0 = time.perf_counter()
        opts = options or BuildOptions()
        if topology.is_dynamic:
            raise TopologyError(f"{topology!r} has dynamic input dimensions or shape-determining inputs: build it "
                                f"with Network(engine, topology), which specializes it per input signature, or "
                                f"call topology.specialize(shapes, values) first")
        b = ProgramGraph(engine, topology, opts)
        pm = PassManager()
        from .passes import pipeline  # lazy: the passes import kernel_selector, which imports cldnn_py.layout

        pm.run(b, pipeline(opts.optimize_data, evaluate=lambda topo: _evaluate_constants(engine, topo)))
        constants: dict[str, Memory] = {}
        for node in b.order:
            if node.kind == "data":
                lay = node.layout()
                constants[node.id] = engine.upload(lay, lay.to_physical(node.primitive.array),  # type: ignore[attr-defined]
                                                   owner=node.id)
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
        self.hint_batches = 0  # built here: no build hint
        self.constants = constants
        self.removed = b.removed
        self.memory_slots = b.memory_slots
        self.slot_bytes = b.slot_bytes
        self.memory_deps = b.memory_deps
        self.memory_zero = b.memory_zero
        self.pass_timings_ms = pm.timings_ms
        self.input_signature = dict(topology.input_signature)
        self.output_signature = dict(topology.output_signature)
        self.empty_outputs = dict(topology.empty_outputs)
        self.build_time_ms = (time.perf_counter() - t0) * 1e3
        self.source = ""  # the file a loaded Program came from ("" when built here)
        log.info("program built in %.0f ms: %d nodes, %d kernels in %d cl programs", self.build_time_ms,
                 len(self.nodes), self.kernels_built, len(self.cl_programs))

    def save(self, path: str | os.PathLike[str]) -> int:
        """Write this Program to ``path`` (format: :mod:`cldnn_py.program_io`; OpenVINO's ``export_model``): the
        optimized graph, the kernel of each node, the memory plan and the constants in their device layouts; no
        code. Returns the file size in bytes. Raises ProgramFileError, OSError."""
        from . import program_io  # lazy: it imports kernel_selector, which imports cldnn_py.layout

        return program_io.save(self, path)

    @classmethod
    def load(cls, engine: Engine, path: str | os.PathLike[str], map_constants: bool = False) -> Program:
        """A Program read from a file ``save`` wrote, for ``engine``: no pass and no kernel selection run; the
        kernels are made again from the package's own templates and built through the caches (OpenVINO's
        ``import_model``). ``build_time_ms`` is the load time. ``map_constants``: on a device that works on host
        memory (PoCL's CPU device, the CPU engine) the constants are the file's mapped pages, not copies; the file
        must then never be changed in place while the Program lives (the warm-start cache's entries never are).

        Raises ProgramFileError for a file that is not a program, is truncated or tampered (checksum, graph
        checks), or was saved by another format or package version, engine kind or device; KernelBuildError and
        DeviceError as a build does. Nothing is left allocated on failure."""
        from . import program_io  # lazy: it imports kernel_selector, which imports cldnn_py.layout

        state = program_io.load(engine, path, map_constants)
        prog = cls.__new__(cls)
        prog.engine = engine
        for k in (*program_io.STATE, "build_time_ms"):
            setattr(prog, k, state[k])
        prog.source = str(path)
        return prog

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
