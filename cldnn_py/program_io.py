"""``Program.save`` / ``Program.load``: a compiled Program in one file, loaded without passes or kernel selection.

As OpenVINO's ``export_model`` / ``import_model``, a saved Program holds what the build decided: the optimized graph
(every program_node with its primitive, output layout with padding, fused ops and flags), the kernel each node runs
(its name and tune variant), the memory plan (pool slots, their sizes, the dependencies between reused buffers) and
the constants in their packed device formats (``os_iyx_osv16`` weights, f16 storage ...). Loading skips every pass
and the kernel choice; each kernel's source is made again by its own kernel_selector template from the stored
layouts (:meth:`kernel_selector.selector.KernelSelector.kernel_for` re-checks that the kernel accepts them), and the
sources are built through the kernel binary cache and the driver's own cache (PoCL's), as at build time.

**The file holds data only: no pickle, no Python, no kernel source or binary** (the SHA-256 digests of its
kernels' sources, a build hint for the machine that saved it: :mod:`cldnn_py.program_build_hint`). Kernels come
from the installed package, so a file cannot make the engine run code of its choosing; a tampered graph is refused
where it does not check out (every layout is recomputed from its dependencies, every memory-pool slot and view must
hold its tensor, every kernel must validate on its layouts, every constant must have its layout's size).

Format (``FORMAT_VERSION`` 1; written and read by ``program_archive.py``): a zip archive, members stored
uncompressed:

- ``checksum``: the SHA-256 (hex) of ``manifest.json``;
- ``manifest.json``: format name and version, package version, the engine kind and device identity (name,
  platform, platform and driver versions), the build options, the device capabilities the kernels were chosen for,
  the nodes, the memory plan, the signatures, the list of arrays with their dtype, shape and size, and the
  kernels' entry names with the SHA-256 of their sources (``kernel_digests``, the build hint);
- ``arrays/<i>.bin``: the raw bytes of array ``i`` (zip's CRC-32 of each is checked as it is read).

A file from another format version, package version, engine kind or device (name, platform, platform version,
driver version) is refused: a Program is compiled for one device and one package. Every problem raises
:class:`~cldnn_py.errors.ProgramFileError` naming the file and the expected against the actual value; nothing is
allocated on the device until the whole file has been checked.
"""

from __future__ import annotations

import dataclasses
import logging
import os
import time
from typing import TYPE_CHECKING, Any

import numpy as np

from kernel_selector import ClKernelData, selector
from kernel_selector.selector import kernel_module

from . import program_build_hint
from .build_options import BuildOptions
from .errors import CldnnError, ProgramFileError
from .kernel_params import node_params
from .layout import Format, Layout
from .memory import Memory
from .passes.compile_graph import ProgramBuilder
from .primitives.data import Data
from .program_archive import (
    FORMAT,
    FORMAT_VERSION,
    RUNTIME_OPTIONS,
    CheckedArrays,
    device_identity,
    graph_options,
    read,
    write,
)
from .program_codec import ProgramCodecError, decode, encode
from .program_node import Impl, ProgramNode
from .version import __version__

if TYPE_CHECKING:
    from .engine import Engine

log = logging.getLogger("cldnn_py.program_io")

STATE = ("options", "nodes", "order", "outputs", "cl_programs", "entry_program", "kernels_built", "device_caps",
         "binary_cache_hits", "hint_batches", "constants", "removed", "memory_slots", "slot_bytes", "memory_deps",
         "memory_zero", "pass_timings_ms", "input_signature", "output_signature", "empty_outputs")
"""The Program attributes a load restores (``Program._restore``)."""


# ----- save --------------------------------------------------------------------------------------------------------
def save(program: Any, path: str | os.PathLike[str]) -> int:
    """Write ``program`` (a built :class:`~cldnn_py.program.Program`) to ``path`` atomically (a temporary file in
    the same folder, renamed); returns the file's size in bytes. Constants are read back from the device in their
    physical layout; the kernels' digests go in the manifest and their sources in the engine's kernel cache (the
    build hint, :mod:`cldnn_py.program_build_hint`). Raises ProgramFileError for a value the format cannot hold,
    OSError when the file cannot be written."""
    arrays: list[np.ndarray] = []
    try:
        manifest = _manifest(program, arrays)
    except ProgramCodecError as e:
        raise ProgramFileError(f"program cannot be saved to '{path}': {e}") from None
    manifest["kernel_digests"] = program_build_hint.record(program)
    return write(path, manifest, arrays)


def _manifest(program: Any, arrays: list[np.ndarray]) -> dict[str, Any]:
    opts = graph_options(program.options)
    nodes = []
    for node in program.order:
        entry: dict[str, Any] = {
            "id": node.id, "deps": [d.id for d in node.dependencies], "users": [u.id for u in node.users],
            "layout": encode(node.layout(), arrays), "fused": encode(node.fused_ops, arrays),
            "flags": [node.constant, node.is_output, node.optimized_out, node.in_place],
            "forced_format": encode(node.forced_format, arrays), "forced_dtype": encode(node.forced_dtype, arrays),
            "buffer_of": node.buffer_of,
            "impl": None if node.impl is None else {
                "kernel": node.impl.kernel_name, "variant": encode(node.impl.variant, arrays),
                "module": kernel_module(node.kind, node.impl.kernel_name, program.engine.kind)},
        }
        if node.kind == "data":  # the constant as the device holds it (packed, padded, converted)
            mem = program.constants[node.id]
            raw = np.empty(mem.bytes, np.uint8)
            program.engine.read_buffer(mem.buffer, raw)
            arrays.append(raw)
            entry["data"] = {"format": encode(node.primitive.format, arrays), "array": len(arrays) - 1}
        else:
            entry["primitive"] = encode(node.primitive, arrays)
        nodes.append(entry)
    return {
        "format": FORMAT, "version": FORMAT_VERSION, "package": __version__, "device": device_identity(program.engine),
        "options": encode(opts, arrays), "device_caps": dict(program.device_caps), "outputs": list(program.outputs),
        "nodes": nodes, "removed": encode(program.removed, arrays),
        "memory": {"slots": program.memory_slots, "slot_bytes": list(program.slot_bytes),
                   "deps": program.memory_deps, "zero": sorted(program.memory_zero)},
        "input_signature": encode(program.input_signature, arrays),
        "output_signature": encode(program.output_signature, arrays),
        "empty_outputs": encode(program.empty_outputs, arrays),
    }


# ----- load --------------------------------------------------------------------------------------------------------
def load(engine: Engine, path: str | os.PathLike[str], map_constants: bool = False) -> dict[str, Any]:
    """The state of a saved Program for ``engine`` (``Program.load`` publishes it): {attribute: value} for every
    name in STATE, plus ``build_time_ms`` (the load time). With ``map_constants``, constants are the file's own
    pages where the device works on host memory (``Engine.wrap_host``: no copy; the file must then never change in
    place while the Program lives, as a warm-start entry never does). Raises ProgramFileError (module docstring),
    and KernelBuildError / DeviceError as a build does. The driver starts building the kernels this machine's
    kernel cache holds for the file's digests before anything else (:mod:`cldnn_py.program_build_hint`)."""
    t0 = time.perf_counter()
    builder = ProgramBuilder(engine, None)
    try:
        manifest, arrays = read(path, engine, private=map_constants)
        builder.prebuild(program_build_hint.lookup(engine, manifest.get("kernel_digests")))
        state = _restore(engine, manifest, arrays, str(path), map_constants, builder)
    except BaseException:
        builder.abandon()
        raise
    state["build_time_ms"] = (time.perf_counter() - t0) * 1e3
    log.info("program loaded from %s in %.0f ms: %d nodes, %d kernels", path, state["build_time_ms"],
             len(state["nodes"]), state["kernels_built"])
    return state


def _restore(engine: Engine, manifest: dict[str, Any], arrays: list[np.ndarray], name: str,
             map_constants: bool = False, builder: ProgramBuilder | None = None) -> dict[str, Any]:
    from .program_io_check import check_graph

    try:
        opts = decode(manifest["options"], arrays, "options")
        options = BuildOptions(**opts)
        nodes, order = _nodes(manifest["nodes"], arrays)
        state: dict[str, Any] = {
            "options": options, "nodes": nodes, "order": order, "outputs": [str(o) for o in manifest["outputs"]],
            "device_caps": {str(k): str(v) for k, v in manifest["device_caps"].items()},
            "removed": {str(k): (str(v[0]), str(v[1])) for k, v in decode(manifest["removed"], arrays).items()},
            "memory_slots": {str(k): int(v) for k, v in manifest["memory"]["slots"].items()},
            "slot_bytes": [int(b) for b in manifest["memory"]["slot_bytes"]],
            "memory_deps": {str(k): [str(x) for x in v] for k, v in manifest["memory"]["deps"].items()},
            "memory_zero": {str(x) for x in manifest["memory"]["zero"]},
            "input_signature": decode(manifest["input_signature"], arrays, "input_signature"),
            "output_signature": decode(manifest["output_signature"], arrays, "output_signature"),
            "empty_outputs": decode(manifest["empty_outputs"], arrays, "empty_outputs"),
            "pass_timings_ms": {}, "binary_cache_hits": 0, "hint_batches": 0,
        }
        consts = {e["id"]: arrays[int(e["data"]["array"])] for e in manifest["nodes"] if "data" in e}
        modules = {str(e["id"]): str(e["impl"].get("module") or "") for e in manifest["nodes"] if e["impl"]}
    except ProgramFileError as e:
        raise ProgramFileError(f"'{name}': {e}") from None
    except (ProgramCodecError, CldnnError, KeyError, TypeError, ValueError, IndexError, AttributeError) as e:
        raise ProgramFileError(f"'{name}': the stored graph is malformed: {type(e).__name__}: {e}") from None
    try:
        check_graph(state, consts)
    except ProgramFileError as e:
        raise ProgramFileError(f"'{name}': {e}") from None
    # the kernels build on worker threads (PoCL: loading its cache) while the rest of them are made again and the
    # constants are copied to the device (ProgramBuilder; on Oclgrind everything in this thread, in turn)
    if builder is None:
        builder = ProgramBuilder(engine, None)
    builder.progress = state["options"].progress
    try:
        _kernels(engine, state, name, modules, builder)
        builder.flush()  # on PoCL all kernels are one batch: built while the constants are checked and copied
        if isinstance(arrays, CheckedArrays):
            arrays.verify()
        state["constants"] = _upload(engine, state, consts, map_constants)
    except BaseException:
        builder.abandon()
        raise
    state["cl_programs"], state["entry_program"] = builder.finish()
    state["kernels_built"] = len(builder.sources)
    state["hint_batches"] = builder.early_used
    for pid, mem in state["constants"].items():  # the constant's logical array is read back from here when asked
        object.__setattr__(nodes[pid].primitive, "_memory", mem)
    return state


def _nodes(entries: list[dict[str, Any]], arrays: list[np.ndarray]) -> tuple[dict[str, ProgramNode], list[ProgramNode]]:
    nodes: dict[str, ProgramNode] = {}
    users: dict[str, list[str]] = {}
    for e in entries:
        pid = str(e["id"])
        if pid in nodes:
            raise ProgramFileError(f"node '{pid}' appears twice")
        where = f"node '{pid}'"
        layout = decode(e["layout"], arrays, f"{where}.layout")
        if not isinstance(layout, Layout):
            raise ProgramFileError(f"{where}: layout: expected a Layout, got {type(layout).__name__}")
        if "data" in e:
            prim: Any = _data(pid, layout, decode(e["data"]["format"], arrays, f"{where}.format"),
                              arrays[int(e["data"]["array"])])
        else:
            prim = decode(e["primitive"], arrays, f"{where}.primitive")
            if getattr(prim, "id", None) != pid or isinstance(prim, Data):
                raise ProgramFileError(f"{where}: the stored primitive is {prim!r}")
        deps = []
        for d in e["deps"]:
            if d not in nodes:
                raise ProgramFileError(f"{where}: dependency '{d}' is not an earlier node (the order is broken)")
            deps.append(nodes[d])
        constant, is_output, optimized_out, in_place = (bool(x) for x in e["flags"])
        impl = e["impl"]
        node = ProgramNode(prim, dependencies=deps, output_layout=layout,
                           fused_ops=decode(e["fused"], arrays, f"{where}.fused"), constant=constant,
                           is_output=is_output, optimized_out=optimized_out, in_place=in_place,
                           forced_format=decode(e["forced_format"], arrays),
                           forced_dtype=decode(e["forced_dtype"], arrays),
                           buffer_of=None if e["buffer_of"] is None else str(e["buffer_of"]),
                           impl=None if impl is None else Impl(str(impl["kernel"]), [],
                                                               decode(impl["variant"], arrays, f"{where}.variant")))
        nodes[pid] = node
        users[pid] = [str(u) for u in e["users"]]
    for pid, us in users.items():
        for u in us:
            if u not in nodes:
                raise ProgramFileError(f"node '{pid}': user '{u}' is not a node")
        nodes[pid].users = [nodes[u] for u in us]
    return nodes, list(nodes.values())


def _data(pid: str, layout: Layout, fmt: Any, raw: np.ndarray) -> Data:
    """The Data primitive of a stored constant (its bytes checked against the layout first)."""
    if not isinstance(fmt, Format) or fmt != layout.format or raw.dtype != np.uint8 or raw.size != layout.bytes:
        raise ProgramFileError(f"data '{pid}': expected {layout.bytes} bytes of {layout}, got {raw.size} "
                               f"({fmt!r})")
    prim = object.__new__(StoredData)
    for k, v in (("id", pid), ("format", fmt)):
        object.__setattr__(prim, k, v)
    return prim


class StoredData(Data):
    """The Data primitive of a loaded Program's constant. Nothing at run time reads a constant's logical array, so
    ``array`` is read back from the device buffer (and unpacked) only when asked: a load neither keeps a second
    copy of the weights on the host nor unpacks every packed weight (about 0.1 s on ResNet-50)."""

    _memory: Memory

    @property
    def array(self) -> np.ndarray:
        """The constant as a read-only logical array (shape ``layout.shape``), read from the device on first use."""
        arr = self.__dict__.get("_array")
        if arr is None:
            arr = self._memory.read()
            arr.setflags(write=False)
            object.__setattr__(self, "_array", arr)
        return arr


def _kernels(engine: Engine, state: dict[str, Any], name: str, modules: dict[str, str],
             builder: ProgramBuilder) -> None:
    """Each computed node's kernel made again from its stored layouts by the named kernel (re-validated), its
    OpenCL sources handed to ``builder``. Nodes whose Params differ only in names (the node's and its fused ops' ids,
    which only messages use) share one KernelData: ResNet-50 has 80 kernel nodes and 38 distinct kernels."""
    ctx = _Context(engine, state["options"], state["device_caps"])
    made: dict[tuple[Any, ...], Any] = {}
    for node in state["order"]:
        if node.impl is None:
            if not node.optimized_out:
                raise ProgramFileError(f"'{name}': node '{node.id}' runs a kernel but none is stored")
            continue
        params = node_params(ctx, node)
        key = (node.impl.kernel_name, tuple(sorted((node.impl.variant or {}).items())), modules.get(node.id),
               repr(dataclasses.replace(params, layer_id="", fused_ops=[dataclasses.replace(op, fused_id="")
                                                                         for op in params.fused_ops])))
        try:
            kd = made.get(key) or selector.kernel_for(params, node.impl.kernel_name, node.impl.variant or None,
                                                      modules.get(node.id))
        except CldnnError as e:
            raise ProgramFileError(f"'{name}': {e}") from None
        made[key] = kd
        node.impl = Impl(kd.kernel_name, kd.kernels, dict(kd.variant))
        for k in kd.kernels:
            if isinstance(k, ClKernelData):
                builder.add(k.entry, k.source, node.id)


class _Context:
    """What node_params reads of a graph, for a Program being loaded."""

    def __init__(self, engine: Engine, options: BuildOptions, device_caps: dict[str, str]) -> None:
        self.engine, self.options, self.device_caps = engine, options, device_caps


def _upload(engine: Engine, state: dict[str, Any], consts: dict[str, np.ndarray],
            mapped: bool = False) -> dict[str, Memory]:
    """Every constant's bytes (already in the device layout) in a buffer of its own: copied, or with ``mapped`` the
    mapped file pages themselves where the engine can (``wrap_host``; the Memory's buffer keeps them alive)."""
    out = {}
    probed: bool | None = None  # the device's answer for the first mapped constant holds for the others
    for pid, raw in consts.items():
        layout = state["nodes"][pid].layout()
        buf = None
        if mapped and probed is not False and raw.nbytes >= 4:
            buf = engine.wrap_host(raw, probe=probed is None)
            probed = probed if probed is not None else buf is not None
        out[pid] = Memory(engine, layout, buf) if buf is not None else engine.upload(layout, raw, owner=pid)
    return out


__all__ = ["save", "load", "read", "device_identity", "FORMAT", "FORMAT_VERSION", "RUNTIME_OPTIONS"]
