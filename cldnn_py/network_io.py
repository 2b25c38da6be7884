"""NetworkIO: the part of :class:`~cldnn_py.network.Network` that binds user memory as input and output buffers
(zero-copy I/O, docs/zero_copy.md): ``set_input_memory``, ``set_output_memory``, ``new_input_array``,
``new_output_array``, ``io_bindings``.

A binding replaces a node's buffer: every primitive_inst whose memory is that buffer (the node, its views, an
in-place concat's inputs) gets the new one under the same layout, and each kernel that takes it is bound again
(``Network._bind_kernels``); the network's own Memory is kept to go back to. ``execute()`` calls
``_stage_bound_inputs`` first (the per-run copy of mode "staged") and hands each bound output its
:class:`~cldnn_py.host_io.OutputBinding`. The checks and modes live in :mod:`cldnn_py.host_io`.
"""

from __future__ import annotations

import difflib
import logging
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np

from .errors import BindingError, DTypeError, ShapeError, TopologyError, UnsupportedError
from .host_io import InputBinding, OutputBinding, aligned_array, as_host_array, check_host_array, flat_bytes, misaligned
from .io_signature import TensorSignature, check_dims, check_dtype, result_shape, storage_dtype
from .memory import Memory

if TYPE_CHECKING:
    from .engine import Engine
    from .network import PrimitiveInst
    from .program import Program
    from .program_node import ProgramNode

log = logging.getLogger("cldnn_py.network")


class NetworkIO:
    """Zero-copy I/O methods of Network (a mixin: the attributes below are the Network's)."""

    engine: Engine
    program: Program
    input_ids: list[str]
    output_ids: list[str]
    empty_outputs: dict[str, Any]
    input_signature: dict[str, TensorSignature]
    output_signature: dict[str, TensorSignature]
    _lock: threading.RLock
    _insts: dict[str, PrimitiveInst]
    _inputs: dict[str, Any]
    _in_bind: dict[str, InputBinding]
    _out_bind: dict[str, OutputBinding]
    _own_mem: dict[str, Memory]
    _pinned: dict[int, tuple[np.ndarray, Any]]
    _bind_kernels: Callable[[ProgramNode, Callable[[str], Any]], list[tuple[Any, tuple[int, ...], Any]]]

    def _check_binds(self, what: str) -> None:
        if self.__dict__.get("_insts") is None:  # DynamicNetwork, PartitionedNetwork: networks of their own inside
            raise UnsupportedError(f"{what}: a {type(self).__name__} builds its networks per input signature or "
                                   f"stage and binds no user memory; use set_input_data / run")

    def _input_inst(self, pid: str, what: str) -> PrimitiveInst:
        if pid not in self.input_ids:
            close = difflib.get_close_matches(str(pid), self.input_ids, n=1)
            hint = f"; did you mean '{close[0]}'?" if close else ""
            raise TopologyError(f"{what}: '{pid}' is not an input of this network (inputs: {self.input_ids}){hint}")
        return self._insts[pid]

    def _output_inst(self, pid: str, what: str) -> PrimitiveInst | None:
        if pid not in self.output_ids:
            close = difflib.get_close_matches(str(pid), self.output_ids, n=1)
            hint = f"; did you mean '{close[0]}'?" if close else ""
            raise TopologyError(f"{what}: '{pid}' is not an output of this network (outputs: {self.output_ids})"
                                f"{hint}")
        return None if pid in self.empty_outputs else self._insts[self.program.resolve(pid)]

    def _own(self, pid: str) -> Memory:
        """The network's own Memory of node ``pid`` (the one it allocated, whatever a binding put there since)."""
        return self._own_mem.get(pid) or self._insts[pid].memory

    def _swap_buffer(self, old: Any, new: Any) -> None:
        """Every instance whose memory is the buffer ``old`` (a node, its views, an in-place concat's inputs) gets
        ``new`` under the same layout, and every kernel that takes one of them is bound again. The new kernels are
        made before anything changes, so a failure leaves the network as it was."""
        if old is new:
            return
        hit = {pid for pid, inst in self._insts.items() if inst.memory.buffer is old}
        mems = {pid: Memory(self.engine, self._insts[pid].memory.layout, new) for pid in hit}

        def buffer_of(pid: str) -> Any:
            return mems[pid].buffer if pid in mems else self._insts[pid].memory.buffer

        kernels = {pid: self._bind_kernels(inst.node, buffer_of) for pid, inst in self._insts.items()
                   if inst.kernels and (pid in hit or any(d.id in hit for d in inst.node.dependencies))}
        for pid in hit:
            self._own_mem.setdefault(pid, self._insts[pid].memory)
            self._insts[pid].memory = mems[pid]
        for pid, ks in kernels.items():
            self._insts[pid].kernels = ks

    def set_input_memory(self, pid: str, memory: np.ndarray | Memory | None, zero_copy: bool | None = None) -> None:
        """Bind a user's host array (or a Memory of this engine) as input ``pid``: later runs read it in place.

        ``memory``: a C-contiguous, writeable ndarray of the input's shape and the engine's dtype (an ONNX input's
        declared dims and a bool array for a uint8 input are accepted, as views); :meth:`new_input_array` makes one
        that fits every device. Where the device works on host memory (``engine.info.host_unified_memory``: PoCL's
        CPU device, the CPU engine) and the array's start is a multiple of ``engine.host_alignment`` bytes (the
        device's CL_DEVICE_MEM_BASE_ADDR_ALIGN, at least 64), the kernels read the array itself (mode "shared": no
        copy at all). Elsewhere (a discrete GPU) it is copied to the device at the start of every ``execute()``,
        through a page-locked staging buffer (mode "staged"). A :class:`Memory` (another network's output on the
        same engine, same layout as the input) becomes the input buffer itself (mode "device").

        Contract: update the array in place between runs, never while a run uses it (until that run's outputs are
        read, or ``engine.finish()``), and keep it alive while it is bound (the binding holds a reference).
        ``set_input_data`` on the same id, or ``set_input_memory(pid, None)``, goes back to the network's own buffer
        (the input must then be set again). ``zero_copy``: None (default) binds without a copy where possible and
        copies otherwise (a misaligned array on a device that could share it is logged as a warning); True raises
        BindingError where no zero-copy binding is possible; False always copies (any alignment).

        Raises TopologyError for an unknown id, DTypeError / ShapeError naming the input with the expected and
        actual value (an ONNX int64 input, stored as int32, needs set_input_data), BindingError for an array that is
        not an ndarray, not C-contiguous, read-only, or misaligned with ``zero_copy=True``, a Memory of another
        engine or layout, and UnsupportedError on a DynamicNetwork or PartitionedNetwork. Nothing changes on error.
        """
        self._check_binds("set_input_memory")
        with self._lock:
            sig = self.input_signature.get(pid)
            if memory is None:
                self._input_inst(pid, "set_input_memory")
                self._unbind_input(pid)
                return
            if not isinstance(memory, Memory) and sig is not None and pid not in self.input_ids:
                arr = as_host_array("input", pid, memory)  # declared, but trimmed: nothing reads it
                check_dims(sig, tuple(arr.shape))
                check_dtype(sig, arr, storage_dtype(sig.dtype))
                return
            inst = self._input_inst(pid, "set_input_memory")
            own = self._own(pid)
            if isinstance(memory, Memory):
                binding = self._device_binding(pid, memory, own)
            else:
                binding = self._host_binding(pid, as_host_array("input", pid, memory), own, sig, zero_copy)
            binding.source = memory
            self.engine.finish()  # the runs that read the input's current buffer are over before it changes
            self._swap_buffer(inst.memory.buffer, binding.buffer if binding.mode != "staged" else own.buffer)
            self._in_bind[pid] = binding
            self._inputs[pid] = binding
            inst.events = []

    def _device_binding(self, pid: str, memory: Memory, own: Memory) -> InputBinding:
        if memory.engine.root is not self.engine.root:
            raise BindingError(f"input_layout '{pid}': a Memory of another engine ({memory.engine!r}); expected one "
                               f"of this network's engine ({self.engine!r})")
        lay = own.layout
        if memory.layout.shape != lay.shape:
            raise ShapeError(f"input_layout '{pid}': Memory shape: expected {lay.shape}, got {memory.layout.shape}")
        if memory.layout.dtype != lay.dtype:
            raise DTypeError(f"input_layout '{pid}': Memory dtype: expected {lay.dtype.value}, got "
                             f"{memory.layout.dtype.value}")
        if memory.layout != lay:
            raise BindingError(f"input_layout '{pid}': Memory layout: expected {lay}, got {memory.layout} (a reorder "
                               f"primitive converts layouts)")
        current = self._insts[pid].memory.buffer
        if memory.buffer is not current and any(i.memory.buffer is memory.buffer for i in self._insts.values()):
            raise BindingError(f"input_layout '{pid}': the Memory is a buffer of this network itself; bind another "
                               f"network's output, or copy it")
        return InputBinding("device", None, None, memory.buffer)

    def _host_binding(self, pid: str, arr: np.ndarray, own: Memory, sig: TensorSignature | None,
                      zero_copy: bool | None) -> InputBinding:
        lay = own.layout
        view = check_host_array("input_layout", pid, arr, lay.shape, lay.dtype.numpy, sig)
        self._check_disjoint("input_layout", pid, view, [b.array for b in self._out_bind.values()])
        flat = flat_bytes(view)
        why = misaligned(self.engine, view) if zero_copy is not False else ""
        buf = None if why or zero_copy is False else self.engine.wrap_host(flat)
        if buf is None and zero_copy:
            raise BindingError(f"input_layout '{pid}': no zero-copy binding: " + (why or (
                f"{self.engine.info.name} does not work on host memory (host_unified_memory="
                f"{self.engine.info.host_unified_memory}) or declined this array")) +
                "; new_input_array() makes an array that binds, zero_copy=None copies instead")
        if buf is not None:
            return InputBinding("shared", view, flat, buf)
        if why and self.engine.info.host_unified_memory:
            log.warning("input '%s': bound array copied at every run: %s (new_input_array() makes one that binds "
                        "without a copy)", pid, why)
        staging, keep = None, None
        pinned = self._pinned.get(flat.ctypes.data)
        if pinned is not None and pinned[0].nbytes == flat.nbytes:
            keep = pinned  # the user's array is new_input_array's page-locked memory: copied from as it is
        else:
            got = self.engine.pinned_host(flat.nbytes)
            if got is not None:
                staging, keep = got
        return InputBinding("staged", view, flat, None, staging, keep)

    def _unbind_input(self, pid: str) -> None:
        """The network's own buffer for input ``pid`` again (it must then be set again)."""
        if self._in_bind.pop(pid, None) is None:
            return
        inst = self._insts[pid]
        own = self._own(pid)
        if inst.memory.buffer is not own.buffer:
            self.engine.finish()
            self._swap_buffer(inst.memory.buffer, own.buffer)
        self._inputs.pop(pid, None)
        inst.events = []

    def _stage_bound_inputs(self) -> None:
        """At the start of execute(): copy each input bound in mode "staged" to its device buffer (the one copy of
        that mode); "shared" and "device" inputs need nothing."""
        for pid, b in self._in_bind.items():
            if b.mode != "staged" or b.flat is None:
                continue
            src = b.flat
            if b.staging is not None:
                if b.last is not None:
                    b.last.wait()  # the previous copy has read the staging bytes
                np.copyto(b.staging, b.flat)
                src = b.staging
            self.engine.enqueue_barrier()  # after the previous run's readers of the buffer (write-after-read)
            b.last = self.engine.write_buffer(self._insts[pid].memory.buffer, src, blocking=False)
            self._insts[pid].events = [b.last]

    def set_output_memory(self, pid: str, array: np.ndarray | None, zero_copy: bool | None = None) -> None:
        """Bind a user's host array to output ``pid``: ``execute()``'s NetworkOutput.numpy() and ``run()`` leave the
        result there and return that array.

        ``array``: C-contiguous and writeable, of the shape and dtype ``numpy()`` returns (for an ONNX output, the
        declared dtype and rank); :meth:`new_output_array` makes one. Modes (``io_bindings()``): "shared" where the
        device works on host memory, the array's start is a multiple of ``engine.host_alignment`` and the output is
        plain in a buffer of its own: the last kernel writes into the array itself, no copy; "read": the device
        buffer is copied into the array (one copy, no temporary); "convert": a blocked or padded output, or a
        declared dtype other than the engine's, is read, converted on the host and written into the array.

        Contract: the array is overwritten by every run; read it after that run's ``numpy()`` (or ``run()``) and
        before the next ``execute()``, and keep it alive while it is bound. ``set_output_memory(pid, None)`` lets
        it go. ``zero_copy``: None (default) takes mode "shared" where possible; True raises BindingError where it is
        not possible (naming why); False never shares.

        Raises TopologyError for an id that is not an output, DTypeError / ShapeError naming the output with the
        expected and actual value, BindingError for an array that is not an ndarray, not C-contiguous or read-only
        (or with ``zero_copy=True`` where zero copy is impossible), UnsupportedError on a DynamicNetwork or
        PartitionedNetwork. Nothing changes on error.
        """
        self._check_binds("set_output_memory")
        with self._lock:
            inst = self._output_inst(pid, "set_output_memory")
            if array is None:
                self._unbind_output(pid)
                return
            arr = as_host_array("output", pid, array)
            sig = self.output_signature.get(pid)
            if inst is None:  # known without a kernel
                value = np.array(self.empty_outputs[pid])
                shape, dtype, lay = tuple(value.shape), value.dtype, None
                if sig is not None:
                    shape, dtype = result_shape(sig, shape), sig.dtype
            else:
                lay = self._own(inst.node.id).layout
                shape, dtype = tuple(lay.shape), lay.dtype.numpy
                if sig is not None:
                    shape, dtype = result_shape(sig, shape), sig.dtype
            view = check_host_array("output", pid, arr, shape, np.dtype(dtype))
            self._check_disjoint("output", pid, view, [b.array for b in self._in_bind.values()])
            plain = inst is not None and lay is not None and lay.is_plain and np.dtype(dtype) == lay.dtype.numpy
            why = ""
            if not plain:
                why = "the output is converted on the host (a blocked or padded layout, or a declared dtype)"
            elif zero_copy is not False:
                why = misaligned(self.engine, view)
                if why and zero_copy is None and self.engine.info.host_unified_memory:
                    log.warning("output '%s': bound array written by a copy at every run: %s (new_output_array() "
                                "makes one that binds without a copy)", pid, why)
                why = why or self._unshareable(pid, inst, view.nbytes)  # type: ignore[arg-type]
            buf = None if why or zero_copy is False else self.engine.wrap_host(flat_bytes(view))
            if buf is None and zero_copy:
                raise BindingError(f"output '{pid}': no zero-copy binding: " + (why or (
                    f"{self.engine.info.name} does not work on host memory (host_unified_memory="
                    f"{self.engine.info.host_unified_memory}) or declined this array")))
            self.engine.finish()  # the runs that write the output's current buffer are over before it changes
            self._unbind_output(pid)
            if buf is not None and inst is not None:
                self._swap_buffer(inst.memory.buffer, buf)
            self._out_bind[pid] = OutputBinding("shared" if buf is not None else "read" if plain else "convert",
                                                view, buf)

    def _check_disjoint(self, what: str, pid: str, arr: np.ndarray, others: list[np.ndarray | None]) -> None:
        """BindingError when ``arr`` overlaps an array bound on the other side (an input's array as an output, or
        back): a kernel would read what another writes in the same run."""
        if any(o is not None and np.may_share_memory(arr, o) for o in others):
            raise BindingError(f"{what} '{pid}': the array overlaps an array bound as " +
                               ("an input" if what == "output" else "an output") +
                               "; a run would read and write the same memory")

    def _unshareable(self, pid: str, inst: PrimitiveInst, nbytes: int) -> str:
        """'' when output ``pid``'s buffer can become a user's array of ``nbytes`` bytes, else why not: it must be
        the network's own, not a memory-pool slot, an input or a constant, and no node sharing it may be larger."""
        own = self._own(inst.node.id).buffer
        bound = self._out_bind.get(pid)
        if inst.memory.buffer is not own and (bound is None or bound.buffer is not inst.memory.buffer):
            return "its buffer is already bound (another output id names the same tensor)"
        sharers = [p for p in self._insts if self._own(p).buffer is own]
        if any(p in self.program.memory_slots for p in sharers):
            return "its buffer is a memory-pool slot shared with other tensors"
        if any(self._insts[p].node.kind in ("data", "input_layout") for p in sharers):
            return "its buffer is an input or a constant"
        if max(self._own(p).bytes for p in sharers) > nbytes:
            return "its buffer is larger than the output (a view of a larger tensor)"
        return ""

    def _unbind_output(self, pid: str) -> None:
        b = self._out_bind.pop(pid, None)
        if b is not None and b.buffer is not None:
            self.engine.finish()
            self._swap_buffer(b.buffer, self._own(self._insts[self.program.resolve(pid)].node.id).buffer)

    def new_input_array(self, pid: str) -> np.ndarray:
        """A zero-filled host array for input ``pid`` that :meth:`set_input_memory` binds on any device: the
        input's shape and the engine's dtype, its start a multiple of ``engine.host_alignment`` bytes; on a device
        without host-unified memory (a discrete GPU) page-locked memory, which the run copies from by DMA with no
        staging copy (the network keeps that memory for its life). Raises TopologyError for an unknown id."""
        self._check_binds("new_input_array")
        lay = self._own(self._input_inst(pid, "new_input_array").node.id).layout
        if not self.engine.info.host_unified_memory:
            got = self.engine.pinned_host(lay.bytes)
            if got is not None:
                self._pinned[got[0].ctypes.data] = got
                return got[0].view(lay.dtype.numpy).reshape(lay.shape)
        return aligned_array(lay.shape, lay.dtype.numpy, self.engine.host_alignment)

    def new_output_array(self, pid: str) -> np.ndarray:
        """A zero-filled host array that :meth:`set_output_memory` binds to output ``pid``: the shape and dtype
        ``NetworkOutput.numpy()`` returns, its start a multiple of ``engine.host_alignment`` bytes. Raises
        TopologyError for an id that is not an output."""
        self._check_binds("new_output_array")
        inst = self._output_inst(pid, "new_output_array")
        sig = self.output_signature.get(pid)
        if inst is None:
            value = np.array(self.empty_outputs[pid])
            shape, dtype = tuple(value.shape), value.dtype
        else:
            lay = self._own(inst.node.id).layout
            shape, dtype = tuple(lay.shape), lay.dtype.numpy
        if sig is not None:
            shape, dtype = result_shape(sig, shape), sig.dtype
        return aligned_array(shape, np.dtype(dtype), self.engine.host_alignment)

    def io_bindings(self) -> dict[str, dict[str, str]]:
        """The bound inputs and outputs and their modes: ``{"inputs": {id: "shared" | "staged" | "device"},
        "outputs": {id: "shared" | "read" | "convert"}}`` (docs/zero_copy.md)."""
        return {"inputs": {k: b.mode for k, b in self._in_bind.items()},
                "outputs": {k: b.mode for k, b in self._out_bind.items()}}
