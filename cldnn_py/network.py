"""Network: a Program with memory, ready to run (clDNN ``network`` and ``primitive_inst``).

``execute()`` enqueues every kernel without a host wait between them: each enqueue carries the events of its
dependencies as its wait list (the queue is out-of-order when the device allows it). Outputs carry their events;
``NetworkOutput.numpy()`` and ``run()`` wait only on those. Profiling comes from the OpenCL events. An execution
waits for this network's previous one only (its last events), never for other networks on the same queue, so
several Networks of one Program run at once (``start_async``, :mod:`cldnn_py.infer_queue`).
"""

from __future__ import annotations

import difflib
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from .async_run import AsyncRun, RunWorker
from .engine import Engine
from .errors import CldnnError, DeviceError, DTypeError, ShapeError, TopologyError
from .host_io import InputBinding, OutputBinding, fill_output
from .io_signature import TensorSignature, as_feed, check_dims, check_dtype, from_engine, storage_dtype, to_engine
from .layout import Layout
from .memory import Memory
from .network_io import NetworkIO
from .program import BuildOptions, Program
from .program_node import ProgramNode
from .topology import Topology
from .watchdog import ThreadRun, wait_events

FLUSH_EVERY = 8
"""Kernels enqueued between two clFlush calls in execute(), so the device starts on the first kernels while Python
enqueues the rest (a flush costs a few µs; without them PoCL began only after the last enqueue)."""


@dataclass
class PrimitiveInst:
    """Runtime instance of one node: output memory, bound kernels (``Engine.bind_kernel``) with gws/lws, last
    events."""

    node: ProgramNode
    memory: Memory
    kernels: list[tuple[Any, tuple[int, ...], tuple[int, ...] | None]]
    events: list[Any]


@dataclass
class NetworkOutput:
    """One output of ``execute()``: its ``event`` (complete when the data is ready) and ``numpy()``."""

    id: str
    memory: Memory | None
    event: Any
    signature: TensorSignature | None = None
    value: np.ndarray | None = None
    """The output's value when it is known without a kernel (an empty output; ``memory`` is then None)."""
    binding: OutputBinding | None = None
    """The user's array ``Network.set_output_memory`` bound to this output, which ``numpy()`` fills and returns."""

    @property
    def layout(self) -> Any:
        """The output Layout (None for an empty output)."""
        return self.memory.layout if self.memory is not None else None

    def numpy(self) -> np.ndarray:
        """Wait for the event and return the logical array: shape ``layout.shape``, or, for an output with a
        declared ``signature`` (ONNX), the declared dtype and rank (int64, bool, rank 0).

        A plain output is copied once, from the device buffer into the returned array. An output bound with
        ``Network.set_output_memory`` returns the user's array itself, filled (docs/zero_copy.md)."""
        if self.binding is not None:
            return fill_output(self.binding, self.memory, self.event, self.signature, self.value)
        if self.memory is None:
            a = np.array(self.value)
        else:
            a = self.memory.read(wait_for=[self.event] if self.event is not None else None)
        return a if self.signature is None else from_engine(self.signature, a)


@dataclass(frozen=True)
class ProfilingEntry:
    """Per primitive: id, type, kernel name, status (EXECUTED, OPTIMIZED_OUT, INPUT), device time in µs."""

    id: str
    type: str
    kernel: str
    status: str
    time_us: float


def check_fits(program: Program) -> None:
    """Raise DeviceError before anything is allocated when the network's memory (pool slots, buffers of their own,
    constants, in bytes) exceeds the device's global memory; the message names the largest primitives."""
    own = {n.id: n.layout().bytes for n in program.order
           if n.kind != "data" and n.id not in program.memory_slots and n.buffer_of is None}
    consts = sum(m.bytes for m in program.constants.values())
    total = sum(program.slot_bytes) + sum(own.values()) + consts
    limit = program.engine.info.global_mem_bytes
    if total > limit:
        sizes = {**own, **{n.id: n.layout().bytes for n in program.order if n.id in program.memory_slots}}
        big = ", ".join(f"'{k}' {v} bytes" for k, v in sorted(sizes.items(), key=lambda kv: -kv[1])[:3])
        raise DeviceError(f"network needs {total} bytes (activations {total - consts}, constants {consts}) but the "
                          f"device has {limit} bytes of global memory; largest: {big}")


class Network(NetworkIO):
    """A runnable network. ``Network(program)`` or ``Network(engine, topology[, options])``.

    One Network used from several threads is serialized by a lock (each call runs whole). Raises the Program's
    errors when built from a topology; ``set_input_data`` raises TopologyError / ShapeError / DTypeError.
    ``set_input_memory`` / ``set_output_memory`` (from :class:`~cldnn_py.network_io.NetworkIO`) bind user arrays as
    input and output buffers instead of copying (docs/zero_copy.md).

    A dynamic topology (``topology.is_dynamic``: an ONNX model with dynamic dimensions or inputs that determine
    shapes) makes a :class:`cldnn_py.dynamic_network.DynamicNetwork`, which builds one static Network per input
    signature on first use; a partitioned one (``load_onnx(..., fallback="onnxruntime")`` with unsupported nodes) a
    :class:`cldnn_py.partitioned_network.PartitionedNetwork`.

    ``Network(program, stream=True)`` runs on a command queue of its own (:meth:`Engine.stream`), so its kernels
    and those of other Networks over the same Program run side by side on a GPU (what ``AsyncInferQueue`` does
    there); False (the default) enqueues on the engine's queue.
    """

    _async: AsyncRun | None = None  # the last start_async run (class defaults: subclasses skip __init__)
    _worker: RunWorker | None = None

    def __new__(cls, program_or_engine: Program | Engine, topology: Topology | None = None,
                options: BuildOptions | None = None, *, stream: bool = False) -> Network:
        if cls is Network and topology is not None and topology.is_partitioned:
            from .partitioned_network import PartitionedNetwork

            return super().__new__(PartitionedNetwork)
        if cls is Network and topology is not None and topology.is_dynamic:
            from .dynamic_network import DynamicNetwork

            return super().__new__(DynamicNetwork)
        return super().__new__(cls)

    def __init__(self, program_or_engine: Program | Engine, topology: Topology | None = None,
                 options: BuildOptions | None = None, *, stream: bool = False) -> None:
        if isinstance(program_or_engine, Program):
            program = program_or_engine
        elif isinstance(program_or_engine, Engine) and topology is not None:
            program = Program(program_or_engine, topology, options)
        else:
            raise TypeError("Network(program) or Network(engine, topology[, options])")
        self.program = program
        self.engine = program.engine.stream() if stream else program.engine
        self._lock = threading.RLock()
        self._running: str | None = None  # the primitive being enqueued (the CPU engine runs it meanwhile)
        self._broken = ""  # set when the watchdog gave up on a run whose kernel could not be interrupted
        self._insts: dict[str, PrimitiveInst] = {}
        self._inputs: dict[str, Any] = {}  # id -> host array kept alive while its copy runs (or its InputBinding)
        self._stage: dict[str, np.ndarray] = {}  # id -> the plain input's reused host array (_staged)
        self._stage_copy: dict[str, Any] = {}  # id -> the event of the last device copy from it
        self._in_bind: dict[str, InputBinding] = {}  # set_input_memory's bindings
        self._out_bind: dict[str, OutputBinding] = {}  # set_output_memory's bindings
        self._own_mem: dict[str, Memory] = {}  # the network's own Memory of each node whose buffer a binding replaced
        self._pinned: dict[int, tuple[np.ndarray, Any]] = {}  # new_input_array's page-locked arrays by address
        check_fits(program)
        slots = [self.engine.allocate_buffer(n, owner=f"memory pool slot {i}")
                 for i, n in enumerate(program.slot_bytes)]
        self._slot_bytes = sum(program.slot_bytes)
        self._own_bytes = 0
        mems: dict[str, Memory] = {}
        for node in program.order:  # buffers of their own first; views and in-place slices share them after
            if node.kind == "data":
                mems[node.id] = program.constants[node.id]
            elif node.id in program.memory_slots:
                mems[node.id] = Memory(self.engine, node.layout(), slots[program.memory_slots[node.id]])
            elif node.buffer_of is None:
                mems[node.id] = self.engine.allocate(node.layout(), owner=node.id)
                self._own_bytes += mems[node.id].bytes
        for node in program.order:
            if node.buffer_of is not None:
                mems[node.id] = Memory(self.engine, node.layout(), mems[node.buffer_of].buffer)
        for node in program.order:
            self._insts[node.id] = PrimitiveInst(node, mems[node.id],
                                                 self._bind_kernels(node, lambda pid: mems[pid].buffer), [])
        self.input_ids = [n.id for n in program.order if n.kind == "input_layout"]
        self.output_ids = list(program.outputs)
        self.empty_outputs = dict(program.empty_outputs)
        self.output_ids += [o for o in self.empty_outputs if o not in self.output_ids]
        self.input_signature: dict[str, TensorSignature] = dict(program.input_signature)
        self.output_signature: dict[str, TensorSignature] = dict(program.output_signature)
        # the enqueue plan, built once: per computed node, the instances whose events it waits for (its dependencies,
        # then the previous owners of its pool buffer and their readers) and whether its buffer is zero-filled first
        self._plan: list[tuple[PrimitiveInst, tuple[PrimitiveInst, ...], tuple[PrimitiveInst, ...], bool]] = []
        for inst in self._insts.values():
            if inst.node.kind in ("data", "input_layout"):
                continue
            deps = tuple(self._insts[d.id] for d in inst.node.dependencies)
            mdeps = tuple(self._insts[m] for m in program.memory_deps.get(inst.node.id, ()))
            self._plan.append((inst, deps, deps + mdeps, inst.node.id in program.memory_zero))
        self._set_run_order()

    def _set_run_order(self) -> None:
        """What orders an execution after this network's previous one (write-after-read) and after nothing else on
        the queue. ``_sinks``: the instances nothing waits for; once their events are complete, every command of
        that execution is (a command starts after its wait list). ``_roots``, per plan entry: a kernel whose wait
        list holds no kernel of the same execution; every other kernel waits for one of them, so execute() makes
        only these wait for the previous sinks, and set_input_data's copy waits for them too."""
        waited = {d.node.id for inst, deps, waits, _ in self._plan for d in (waits if inst.kernels else deps)}
        self._sinks = tuple(i for i in self._insts.values() if i.node.kind != "data" and i.node.id not in waited)
        from_run: dict[str, bool] = {}  # node id -> its events come from kernels of the same execution
        roots = []
        for inst, deps, _, _ in self._plan:
            after_kernel = any(from_run.get(d.node.id, False) for d in deps)
            from_run[inst.node.id] = bool(inst.kernels) or after_kernel
            roots.append(bool(inst.kernels) and not after_kernel)
        self._roots = tuple(roots)

    def _tail(self) -> list[Any]:
        """The events of the previous execution's sinks (empty before the first)."""
        return [e for i in self._sinks for e in i.events]

    def _bind_kernels(self, node: ProgramNode, buffer_of: Callable[[str], Any]
                      ) -> list[tuple[Any, tuple[int, ...], tuple[int, ...] | None]]:
        """``node``'s kernels bound (``Engine.bind``) to the buffers ``buffer_of(primitive id)`` gives for its
        dependencies and its own output, with their gws and clamped lws."""
        if node.impl is None:
            return []

        def buffer(kind: str, index: int) -> Any:
            return buffer_of(node.dependencies[index].id if kind == "input" else node.id)

        out = []
        for kd in node.impl.kernels:
            idx = self.program.entry_program.get(kd.entry)
            k = self.engine.bind(kd, buffer, self.program.cl_programs[idx] if idx is not None else None,
                                 owner=node.id)
            out.append((k, kd.gws, self.engine.clamp_lws(k, kd.gws, kd.lws)))
        return out

    def __reduce__(self) -> Any:
        raise TypeError("a cldnn_py Network holds live OpenCL objects and cannot be pickled; pass the Topology "
                        "(or a model path / bytes) and the device spec, and build it again")

    # ----- inputs -----------------------------------------------------------------------------------------------
    def set_input_data(self, pid: str, array: np.ndarray) -> None:
        """Copy a logical array (the InputLayout's shape and data type) to the input's device memory.

        An input with a declared signature (ONNX) also takes the model's own dtype and rank: int64 (narrowed to
        int32, each value checked), bool, rank-0 scalars; a declared input that no output needs is checked and
        ignored. Any ndarray layout is accepted (strided, Fortran-ordered, read-only, big-endian, a subclass: see
        ``io_signature.as_feed``). Raises TopologyError for an unknown id (suggesting the closest input), ShapeError
        for a wrong shape, DTypeError for a wrong dtype (a Python list of floats is float64), an int64 value outside
        int32 or a masked array with masked values. On error nothing is written.
        """
        arr = as_feed(pid, array)  # a plain native ndarray (np.matrix, big-endian, masked without masks ...)
        sig = self.input_signature.get(pid)
        if sig is not None and pid not in self.input_ids:  # declared, but trimmed: nothing reads it
            check_dims(sig, tuple(arr.shape))
            check_dtype(sig, arr, storage_dtype(sig.dtype))
            return
        if pid not in self.input_ids:
            close = difflib.get_close_matches(str(pid), self.input_ids, n=1)
            hint = f"; did you mean '{close[0]}'?" if close else ""
            raise TopologyError(f"set_input_data: '{pid}' is not an input of this network "
                                f"(inputs: {self.input_ids}){hint}")
        inst = self._insts[pid]
        lay = inst.memory.layout
        if sig is not None:
            if tuple(arr.shape) != lay.shape:  # the engine's own form (a scalar as (1,)) is accepted as it is
                check_dims(sig, tuple(arr.shape))
            arr = to_engine(sig, arr, lay.dtype.numpy, lay.shape)
        if tuple(arr.shape) != lay.shape:
            raise ShapeError(f"input_layout '{pid}': shape: expected {lay.shape}, got {tuple(arr.shape)}")
        if arr.dtype != lay.dtype.numpy:
            raise DTypeError(f"input_layout '{pid}': dtype: expected {lay.dtype.numpy} ({lay.dtype.value}), "
                             f"got {arr.dtype}")
        with self._lock:
            if pid in self._in_bind:  # fed by copy again: the network's own buffer, the user's array let go
                self._unbind_input(pid)
            phys = self._staged(pid, lay, arr)
            # the previous execution's commands finish before the buffer is overwritten (write-after-read), as does
            # an earlier copy to it (write-after-write); other networks' commands on the queue are not waited for
            wait = self._tail() + inst.events
            ev = self.engine.write_buffer(inst.memory.buffer, phys, wait_for=wait or None, blocking=False)
            inst.events = [ev]
            self._inputs[pid] = phys
            self._stage_copy[pid] = ev

    def _staged(self, pid: str, lay: Layout, arr: np.ndarray) -> np.ndarray:
        """The physical host array the device copy of input ``pid`` reads. A plain layout reuses one array per
        input, refilled once the previous copy from it has completed (normally long since): a new 600 KB array
        per run cost page faults, 0.1-0.15 ms of a 4 ms MobileNetV3 run on PoCL. Other layouts convert
        (:meth:`Layout.to_physical`)."""
        if not lay.is_plain:
            return lay.to_physical(arr)
        buf = self._stage.get(pid)
        if buf is None or buf.size != lay.buffer_size or buf.dtype != lay.dtype.numpy:
            buf = self._stage[pid] = np.empty(lay.buffer_size, dtype=lay.dtype.numpy)
        prev = self._stage_copy.pop(pid, None)
        if prev is not None:
            prev.wait()
        np.copyto(buf.reshape(lay.shape), arr)
        return buf

    # ----- execution --------------------------------------------------------------------------------------------
    def execute(self) -> dict[str, NetworkOutput]:
        """Enqueue every kernel in order, dependencies' events as wait lists; no host wait.

        Returns {output id: NetworkOutput}. Raises CldnnError naming inputs that were never set.
        """
        eng = self.engine
        with self._lock:
            missing = [i for i in self.input_ids if i not in self._inputs]
            if missing:
                raise CldnnError(f"execute: inputs {missing} were never set with set_input_data")
            self._stage_bound_inputs()
            with eng.execution_scope():
                # this network's previous execution finishes before this one writes any buffer (write-after-read):
                # its last events join the wait lists of the kernels that wait for no other kernel of this run (not
                # a marker: PoCL's markers wait for every command enqueued before them, other networks' too)
                after = self._tail()
                enqueued = 0
                for (inst, deps, waits, zero), root in zip(self._plan, self._roots):
                    if not inst.kernels:  # view / in-place concat: ready with its dependencies
                        inst.events = [e for d in deps for e in d.events]
                        continue
                    # dependencies, then (pool reuse) the buffer's previous owner and its readers
                    wait = [e for d in waits for e in d.events]
                    if root:
                        wait += after
                    if zero:  # reused buffer, padded layout: zero halo first
                        wait = [eng.enqueue_zero(inst.memory.buffer, inst.memory.bytes, wait)]
                    self._running = inst.node.id  # named by the watchdog if this primitive does not finish
                    inst.events = [eng.enqueue_kernel(k, gws, lws, wait) for k, gws, lws in inst.kernels]
                    enqueued += 1
                    if enqueued % FLUSH_EVERY == 0:  # let the device start while the rest is enqueued
                        eng.flush()
            eng.flush()
            outs = {o: (NetworkOutput(o, None, None, self.output_signature.get(o), self.empty_outputs[o])
                        if o in self.empty_outputs else
                        NetworkOutput(o, self._insts[self.program.resolve(o)].memory,
                                      self._event(self.program.resolve(o)), self.output_signature.get(o)))
                    for o in self.output_ids}
            for o, binding in self._out_bind.items():  # set_output_memory: numpy() fills the user's array
                outs[o].binding = binding
            return outs

    def _event(self, pid: str) -> Any:
        evs = self._insts[pid].events
        if len(evs) <= 1:
            return evs[0] if evs else None
        return self.engine.enqueue_marker(evs)

    def run(self, feeds: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
        """``set_input_data`` for each feed, ``execute()``, and the outputs as {id: array}.

        With a watchdog (``BuildOptions.watchdog_s``), a run that has not finished after that many seconds raises
        DeviceError naming the primitive still running (``cldnn_py/watchdog.py``); on the CPU engine the network is
        then unusable (its kernel cannot be interrupted) and later runs raise the same error at once."""
        if self._broken:
            raise DeviceError(self._broken)
        timeout = self.program.options.watchdog_s
        if timeout is None:
            return self._run(feeds)
        if self.engine.kind == "cpu":  # kernels run on the calling thread: run on a worker, wait with a deadline
            self._running = None
            try:
                return ThreadRun(lambda: self._run(feeds), timeout, lambda: self._running).run()
            except DeviceError as e:
                if "watchdog" in str(e):
                    self._broken = str(e)
                raise
        with self._lock:
            for k, v in feeds.items():
                self.set_input_data(k, v)
            outs = self.execute()
            wait_events([(inst.node.id, inst.events) for inst, _, _, _ in self._plan], timeout)
            return {k: o.numpy() for k, o in outs.items()}

    def _run(self, feeds: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
        with self._lock:
            for k, v in feeds.items():
                self.set_input_data(k, v)
            outs = self.execute()
            return {k: o.numpy() for k, o in outs.items()}

    def start_async(self, feeds: dict[str, np.ndarray], callback: Callable[[AsyncRun], Any] | None = None,
                    userdata: Any = None) -> AsyncRun:
        """Start one inference and return at once (OpenVINO's ``InferRequest.start_async``): the inputs are copied
        now, then the outputs are read to host arrays on this network's worker thread, which then calls
        ``callback(run)`` (on that thread; ``run.outputs``, ``run.userdata``, ``run.latency_ms``; also when the run
        failed, with ``run.error`` set). Returns the run's :class:`~cldnn_py.async_run.AsyncRun`: ``wait()``,
        ``result()`` -> {output id: array} as ``run()`` returns them.

        On an OpenCL device the kernels are enqueued on the caller's thread before this returns, and the run
        overlaps other Networks' runs on the device (several Networks of one Program: :mod:`cldnn_py.infer_queue`);
        on the CPU engine, and for a dynamic or partitioned network, the whole run happens on the worker thread.
        A second ``start_async`` first waits until the previous one's outputs are read (not for its callback). Do
        not call ``set_input_data`` / ``execute`` / ``run`` on this network while a run it started is not done:
        like a second ``execute()``, they would overwrite its inputs or outputs.

        Raises, here: what ``set_input_data`` raises for a bad feed (nothing is started then), DeviceError for a
        network a watchdog gave up on, CldnnError when a callback of this network starts a run while another is
        still unread (it would wait for itself). A failure during the run is raised by ``run.wait()``."""
        if getattr(self, "_broken", ""):  # set by __init__, which a dynamic or partitioned network skips
            raise DeviceError(self._broken)
        while True:
            with self._lock:
                if self._worker is None:
                    self._worker = RunWorker(self, "cldnn_py-network")
                prev = self._async
                if prev is None or prev._read.is_set():
                    return self._start(feeds, AsyncRun(callback, userdata), self._worker)
                if self._worker.on_worker():
                    raise CldnnError("start_async from a completion callback while another run of this network is "
                                     "pending: it would wait for itself; use another Network (an AsyncInferQueue)")
            prev._wait_read()  # not holding the lock: the CPU engine's worker takes it to run

    def _start(self, feeds: dict[str, np.ndarray], run: AsyncRun, worker: RunWorker) -> AsyncRun:
        """start_async under the lock, the previous run's outputs read."""
        if type(self) is not Network:  # dynamic or partitioned: their own run(), on the worker
            copies = {k: np.array(v, copy=True) for k, v in feeds.items()}
            self._async = run
            worker.submit(run, lambda: self.run(copies))
            return run
        for k, v in feeds.items():  # copied to the device's or the engine's buffers now: errors raise here
            self.set_input_data(k, v)
        missing = [i for i in self.input_ids if i not in self._inputs]
        if missing:
            raise CldnnError(f"start_async: inputs {missing} were never set (feeds or set_input_data)")
        self._async = run
        if self.engine.kind == "cpu":  # kernels run when enqueued: the whole run on the worker
            worker.submit(run, lambda: self.run({}))
            return run
        outs = self.execute()
        timeout = self.program.options.watchdog_s
        events = [(i.node.id, list(i.events)) for i, _, _, _ in self._plan] if timeout is not None else []
        worker.submit(run, lambda: self._collect(outs, events, timeout))
        return run

    @staticmethod
    def _collect(outs: dict[str, NetworkOutput], events: list[tuple[str, list[Any]]],
                 timeout: float | None) -> dict[str, np.ndarray]:
        """On the worker: wait (with the watchdog's deadline when set) and read the outputs."""
        if timeout is not None:
            wait_events(events, timeout)
        return {k: o.numpy() for k, o in outs.items()}

    def memory_info(self) -> dict[str, int]:
        """Device memory in bytes: ``activations`` (memory-pool slots plus buffers of their own: inputs, outputs,
        padded tensors), ``pool`` (the shared slots alone), ``constants`` (weights and other Data)."""
        consts = sum(m.bytes for m in self.program.constants.values())
        return {"activations": self._slot_bytes + self._own_bytes, "pool": self._slot_bytes, "constants": consts}

    def poison(self, value: float = float("nan")) -> None:
        """Debugging aid: fill every computed buffer's logical elements with ``value`` (NaN by default), so an
        element a kernel fails to write shows in the output. Padding and block tails stay zero."""
        with self._lock:
            for inst in self._insts.values():
                if inst.node.kind in ("data", "input_layout"):
                    continue
                lay = inst.memory.layout
                fill = value if lay.dtype.numpy.kind == "f" else np.array(-7).astype(lay.dtype.numpy)  # u8: 249
                self.engine.enqueue_barrier()
                inst.memory.write(np.full(lay.shape, fill, dtype=lay.dtype.numpy))

    # ----- introspection ----------------------------------------------------------------------------------------
    def get_output_layout(self, pid: str) -> Any:
        """The output Layout of a primitive."""
        return self.program.node(pid).layout()

    def get_profiling_info(self) -> list[ProfilingEntry]:
        """Per primitive of the last execution, in execution order; waits for its events.

        ``time_us`` is the device time (sum over the primitive's kernels, from OpenCL profiling) in µs. Status is
        EXECUTED (ran a kernel), INPUT, OPTIMIZED_OUT (Data, or folded away at build) or FUSED (its work is done by
        the kernel named in ``kernel``: "fused into <id>"). On an out-of-order queue kernels may overlap, so the
        times of concurrent primitives each include the other's share of the cores.
        """
        out = []
        for inst in self._insts.values():
            n = inst.node
            t = 0.0
            for e in inst.events:
                e.wait()
                t += (e.profile.end - e.profile.start) / 1e3
            if n.kind == "data":
                status, kernel = "OPTIMIZED_OUT", ""
            elif n.kind == "input_layout":
                bound = self._in_bind.get(n.id)
                status, kernel = "INPUT", ("copy_to_device" if bound is None or bound.mode == "staged"
                                           else f"bound ({bound.mode}, no copy)")
            elif n.optimized_out:
                status, kernel = "OPTIMIZED_OUT", ("in place" if n.in_place else "view" if n.buffer_of else "")
            else:
                status, kernel = "EXECUTED", n.impl.kernel_name if n.impl else ""
            if status == "OPTIMIZED_OUT":
                t = 0.0  # an in-place concat's marker event spans its inputs' kernels (NVIDIA): no work of its own
            out.append(ProfilingEntry(n.id, n.kind, kernel, status, t))
            for op in n.fused_ops:
                out.append(ProfilingEntry(op.fused_id, self.program.removed.get(op.fused_id, (op.kind, ""))[0],
                                          f"fused into {n.id}", "FUSED", 0.0))
        listed = {e.id for e in out}
        for pid, (kind, host) in self.program.removed.items():
            if pid not in listed:
                status = "FUSED" if host else "OPTIMIZED_OUT"
                out.append(ProfilingEntry(pid, kind, f"fused into {self.program.resolve(pid)}" if host else "",
                                          status, 0.0))
        return out
