"""The warm-start cache: a model's compiled Program kept on disk, so its second start runs no ONNX import, no pass
and no kernel choice (OpenVINO's ``compile_model`` with ``CACHE_DIR``; onnxruntime's optimized-model file).

``compile_model(model, device)`` is the entry point (``InferenceSession`` and the CLI use it): it looks the model
up here and loads the saved Program (``Program.load``: kernels made again from the package's templates and built
through the kernel binary cache and PoCL's cache), or imports and builds it and stores it. Only static programs are
stored; a model with dynamic dimensions (give ``input_shapes``) or partitioned with onnxruntime is built as before.

**Key**: the SHA-256 of a JSON object holding the model's SHA-256 (for a file: computed once and remembered by its
path, size, mtime and inode in ``<cache>/programs/index``), the size and mtime of the other files in its folder
except ``*.onnx`` and hidden ones (a model's external data), the input shapes, the fallback, the build options that
shape the graph, the forced kernels (``CLDNN_PY_FORCE_IMPL``), the tuning cache file's size and mtime (unless
tuning is off), the engine kind and device identity (name, platform and driver versions), the package version and
the program format version. Any of them changing gives a new entry.

**Where**: ``<kernel cache folder>/programs`` (``Engine(cache_dir=...)``, ``CLDNN_PY_CACHE_DIR`` or the platformdirs
user cache), created private (0700) like the kernel cache (``safe_dirs.py``); entries are ``<key>.cldnn`` files
written atomically. ``CLDNN_PY_WARM_START=0`` or ``CLDNN_PY_NO_CACHE=1`` turns it off; the folder is bounded by
``CLDNN_PY_WARM_START_MAX_MB`` (least recently used entries deleted first). An entry that fails to load (truncated,
tampered, foreign: :class:`~cldnn_py.errors.ProgramFileError`) is logged, deleted and rebuilt, never fatal.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import stat
import threading
from pathlib import Path
from typing import Any

from . import env
from .build_options import BuildOptions
from .dynamic_network import DynamicNetwork
from .engine import Engine
from .errors import ProgramFileError
from .frontend import load_onnx
from .frontend.onnx_ops import quantization_integer
from .kernel_cache import default_dir, default_tuning_cache_path
from .network import Network
from .program import Program
from .safe_dirs import private_dir, private_subdir
from .topology import Topology
from .version import __version__

log = logging.getLogger("cldnn_py.warm_start")

SUFFIX = ".cldnn"
MAX_SIBLINGS = 1000
"""A model folder with more files than this (besides ``*.onnx``) is not warm-started: the key would cost too much."""


class WarmStartCache:
    """Compiled Programs on disk (module docstring). ``hits`` / ``misses`` / ``rejected`` count lookups.

    Args:
        directory: the folder (None: ``<kernel cache folder>/programs``).
        enabled: None follows ``CLDNN_PY_WARM_START`` / ``CLDNN_PY_NO_CACHE``.
    """

    def __init__(self, directory: Path | str | None = None, enabled: bool | None = None) -> None:
        self.directory = Path(directory) if directory is not None else default_dir() / "programs"
        self.enabled = env.warm_start() if enabled is None else enabled
        self.hits = self.misses = self.rejected = 0

    @classmethod
    def for_engine(cls, engine: Engine, enabled: bool | None = None) -> WarmStartCache:
        """The cache next to ``engine``'s kernel binary cache (``<its folder>/programs``)."""
        kc = getattr(engine, "kernel_cache", None)
        return cls((Path(kc.directory) if kc is not None else default_dir()) / "programs", enabled)

    def folder(self) -> Path | None:
        """The folder, created private (0700) or checked; None (warning logged by safe_dirs) when it is not a private
        folder of this user."""
        parent = private_dir(self.directory.parent, "warm-start cache")
        return private_subdir(parent, self.directory.name)

    # ----- keys ------------------------------------------------------------------------------------------------
    def key(self, engine: Engine, model: Any, input_shapes: dict[str, tuple[int, ...]] | None,
            options: BuildOptions, fallback: str) -> str | None:
        """The entry key (64 hex digits) of a build, or None when the model cannot be keyed (a folder with too many
        files, an unreadable file)."""
        from .program_archive import FORMAT_VERSION, device_identity, graph_options
        from .program_codec import encode  # lazy: they import kernel_selector, which imports cldnn_py.layout

        digest, siblings = self._model_digest(model)
        if digest is None:
            return None
        opts = graph_options(options)
        tuning = None
        if options.tuning != "off":
            p = Path(options.tuning_cache or default_tuning_cache_path())
            tuning = [str(p), *_stat(p)]
        doc = {"format": FORMAT_VERSION, "package": __version__, "code": code_digest(),
               "device": device_identity(engine), "model": digest, "siblings": siblings, "fallback": fallback,
               "input_shapes": sorted((k, list(v)) for k, v in (input_shapes or {}).items()),
               "options": encode(opts, []), "forced": sorted(env.forced_impls().items()), "tuning": tuning,
               "integer_path": quantization_integer.integer_path()}
        return hashlib.sha256(json.dumps(doc, sort_keys=True).encode()).hexdigest()

    def _model_digest(self, model: Any) -> tuple[str | None, list[Any]]:
        if isinstance(model, (bytes, bytearray, memoryview)):
            return hashlib.sha256(model).hexdigest(), []
        if not isinstance(model, (str, os.PathLike)):  # an onnx.ModelProto
            return hashlib.sha256(model.SerializeToString()).hexdigest(), []
        path = Path(model).resolve()
        try:
            st = path.stat()
            siblings = sorted([e.name, *_stat(Path(e.path))] for e in os.scandir(path.parent)
                              if e.name != path.name and not e.name.startswith(".") and
                              not e.name.endswith(".onnx") and e.is_file())
        except OSError as e:
            log.debug("warm start: cannot stat %s: %s", path, e)
            return None, []
        if len(siblings) > MAX_SIBLINGS:
            log.info("warm start: %s has %d other files; not cached", path.parent, len(siblings))
            return None, []
        return self._file_digest(path, st), siblings

    def _file_digest(self, path: Path, st: os.stat_result) -> str | None:
        """The SHA-256 of a model file, remembered by path, size, mtime and inode (hashing 100 MB costs ~65 ms)."""
        ident = [str(path), st.st_size, st.st_mtime_ns, st.st_ino]
        folder = self.folder() if self.enabled else None
        index = private_subdir(folder, "index") if folder is not None else None
        entry = index / (hashlib.sha256(str(path).encode()).hexdigest()[:32] + ".json") if index else None
        if entry is not None and entry.is_file() and not entry.is_symlink():
            try:
                known = json.loads(entry.read_text())
                if known.get("ident") == ident and isinstance(known.get("sha256"), str):
                    return str(known["sha256"])
            except (OSError, ValueError, AttributeError):
                pass
        h = hashlib.sha256()
        try:
            with open(path, "rb") as f:
                while chunk := f.read(1 << 22):
                    h.update(chunk)
        except OSError as e:
            log.debug("warm start: cannot read %s: %s", path, e)
            return None
        digest = h.hexdigest()
        if entry is not None:
            _atomic_write(entry, json.dumps({"ident": ident, "sha256": digest}).encode())
        return digest

    # ----- entries ---------------------------------------------------------------------------------------------
    def load(self, engine: Engine, key: str) -> Program | None:
        """The Program stored under ``key``, or None (no entry; or a bad one, which is logged and deleted). A store
        of this process still writing it is waited for."""
        wait_for_stores()
        folder = self.folder() if self.enabled else None
        if folder is None:
            return None
        path = folder / f"{key}{SUFFIX}"
        try:
            st = os.lstat(path)
        except OSError:
            self.misses += 1
            return None
        if not stat.S_ISREG(st.st_mode):
            log.warning("warm start: %s is not a regular file; ignored", path)
            self.misses += 1
            return None
        try:
            prog = Program.load(engine, path, map_constants=True)  # entries are replaced, never changed in place
        except ProgramFileError as e:
            log.warning("warm start: entry %s refused (%s); rebuilding it", path.name, e)
            self.rejected += 1
            path.unlink(missing_ok=True)
            return None
        os.utime(path)  # least recently used goes first when the folder is full
        self.hits += 1
        return prog

    def store(self, program: Program, key: str, background: bool = True) -> None:
        """Save ``program`` under ``key`` (atomic), then delete the least recently used entries beyond
        ``CLDNN_PY_WARM_START_MAX_MB``. A folder that cannot be written makes it a no-op (warning).

        ``background``: on a thread of its own, so the caller's Network is ready without waiting (a cold start of
        ResNet-50 saves 0.15-0.45 s: 100 MB read back and written); the thread is not a daemon, so the process
        waits for it at exit, and :func:`wait_for_stores` joins it."""
        if background:
            t = threading.Thread(target=self.store, args=(program, key, False), name="cldnn_py-warm-start-store")
            with _STORES_LOCK:
                _STORES.append(t)
            t.start()
            return
        folder = self.folder() if self.enabled else None
        if folder is None:
            return
        try:
            program.save(folder / f"{key}{SUFFIX}")
        except (OSError, ProgramFileError) as e:
            log.warning("warm start: cannot store the program in %s: %s", folder, e)
            return
        self._evict(folder, env.warm_start_max_bytes())

    def _entries(self, folder: Path) -> list[tuple[float, int, Path]]:
        out = []
        for e in os.scandir(folder):
            if e.name.endswith(SUFFIX) and e.is_file(follow_symlinks=False):
                st = e.stat(follow_symlinks=False)
                out.append((st.st_mtime, st.st_size, Path(e.path)))
        return sorted(out)

    def _evict(self, folder: Path, limit: int) -> None:
        entries = self._entries(folder)
        total = sum(s for _, s, _ in entries)
        for _, size, path in entries[:-1]:  # never the newest
            if total <= limit:
                break
            path.unlink(missing_ok=True)
            total -= size
            log.info("warm start: deleted %s (the folder is over %d MiB)", path.name, limit >> 20)

    def info(self) -> dict[str, Any]:
        """{"directory", "enabled", "entries", "bytes"}."""
        entries = self._entries(self.directory) if self.directory.is_dir() and not self.directory.is_symlink() else []
        return {"directory": str(self.directory), "enabled": self.enabled, "entries": len(entries),
                "bytes": sum(s for _, s, _ in entries)}

    def clear(self) -> int:
        """Delete every entry and the digest index; returns how many entries. Links are never followed."""
        if not self.directory.is_dir() or self.directory.is_symlink():
            return 0
        entries = self._entries(self.directory)
        for _, _, p in entries:
            p.unlink(missing_ok=True)
        index = self.directory / "index"
        if index.is_dir() and not index.is_symlink():
            for e in os.scandir(index):
                if e.is_file(follow_symlinks=False):
                    os.unlink(e.path)
        return len(entries)


_STORES: list[threading.Thread] = []
_STORES_LOCK = threading.Lock()


def wait_for_stores() -> None:
    """Wait until every warm-start entry this process is writing in the background is written."""
    with _STORES_LOCK:
        pending, _STORES[:] = list(_STORES), []
    for t in pending:
        if t is not threading.current_thread():
            t.join()


_CODE_DIGEST: str | None = None


def code_digest() -> str:
    """A digest of the installed engine's own files (path, size, mtime of every ``.py`` of cldnn_py and
    kernel_selector and every ``.cl`` of cl_kernels; about 5 ms, once per process): a source checkout changed
    between two starts under the same package version gives new keys, so a stored Program never outlives the passes
    and kernels that made it."""
    global _CODE_DIGEST
    if _CODE_DIGEST is None:
        import cl_kernels
        import kernel_selector

        h = hashlib.sha256()
        for pkg in (Path(__file__).parent, Path(kernel_selector.__file__).parent, Path(cl_kernels.__file__).parent):
            for root, dirs, files in os.walk(pkg):
                dirs[:] = sorted(d for d in dirs if d != "__pycache__")
                for f in sorted(files):
                    if f.endswith((".py", ".cl", ".json")):
                        st = os.stat(os.path.join(root, f))
                        h.update(f"{os.path.join(root, f)}:{st.st_size}:{st.st_mtime_ns}\n".encode())
        _CODE_DIGEST = h.hexdigest()
    return _CODE_DIGEST


def _stat(p: Path) -> list[int]:
    try:
        st = p.stat()
        return [st.st_size, st.st_mtime_ns]
    except OSError:
        return [-1, -1]


def _atomic_write(path: Path, data: bytes) -> None:
    import tempfile

    try:
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp_")
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
    except OSError as e:
        log.debug("warm start: cannot write %s: %s", path, e)


def compiled_program(model: Any, engine: Engine, input_shapes: dict[str, tuple[int, ...]] | None = None,
                     options: BuildOptions | None = None, fallback: str = "none",
                     warm_start: bool | None = None) -> Program | Topology:
    """The model's Program from the warm-start cache, or imported, built and stored; for a model that cannot be one
    static Program (dynamic dimensions, value inputs, partitioned), its Topology, unbuilt. Arguments and errors as
    :func:`compile_model`."""
    return _compile(model, engine, input_shapes, options, fallback, warm_start)[0]


def _compile(model: Any, engine: Engine, input_shapes: dict[str, tuple[int, ...]] | None, options: BuildOptions | None,
             fallback: str, warm_start: bool | None) -> tuple[Program | Topology, WarmStartCache, str | None]:
    """:func:`compiled_program`, with the cache and the model's key (None: not cached) for the specializations."""
    opts = options or BuildOptions()
    cache = WarmStartCache.for_engine(engine, warm_start)
    key = cache.key(engine, model, input_shapes, opts, fallback) if cache.enabled else None
    prog = cache.load(engine, key) if key is not None else None
    if prog is not None:
        prog.options.progress, prog.options.watchdog_s = opts.progress, opts.watchdog_s  # this process decides
        log.info("warm start: program from %s in %.0f ms", prog.source, prog.build_time_ms)
        return prog, cache, key
    topo = load_onnx(model, input_shapes, fallback=fallback)
    if topo.is_dynamic or topo.is_partitioned:
        return topo, cache, key
    prog = Program(engine, topo, opts)
    if key is not None:
        cache.store(prog, key)
    return prog, cache, key


def compile_model(model: Any, device: str | Engine | None = None, *,
                  input_shapes: dict[str, tuple[int, ...]] | None = None, options: BuildOptions | None = None,
                  fallback: str = "none", warm_start: bool | None = None) -> Network:
    """An ONNX model (path, bytes or ``onnx.ModelProto``) compiled into a ready Network, through the warm-start
    cache (OpenVINO's ``core.compile_model`` with a cache folder).

    Args:
        model: the model.
        device: an Engine or its spec (``"cl:P:D"``, ``"cpu"``; None: ``Engine()``'s choice).
        input_shapes: {input name: shape} fixing dynamic or different input dimensions (as ``load_onnx``).
        options: BuildOptions (None: the defaults).
        fallback: ``"none"`` or ``"onnxruntime"`` (as ``load_onnx``).
        warm_start: False skips the cache; None follows ``CLDNN_PY_WARM_START``.
    Returns:
        A Network; ``network.program.source`` is the entry's path when it came from the cache. A dynamic model
        gives a DynamicNetwork, a partitioned one a PartitionedNetwork (neither is cached).
    Raises:
        The errors of ``load_onnx`` and of the build; never a cache problem (logged, then rebuilt).
    """
    engine = device if isinstance(device, Engine) else Engine(device)
    return compiled_network(model, engine, input_shapes, options, fallback, warm_start)[0]


def compiled_network(model: Any, engine: Engine, input_shapes: dict[str, tuple[int, ...]] | None = None,
                     options: BuildOptions | None = None, fallback: str = "none", warm_start: bool | None = None
                     ) -> tuple[Network, Program | Topology]:
    """:func:`compile_model`'s Network and what it was made of (the Program, or the dynamic or partitioned
    Topology, whose ``input_signature`` / ``output_signature`` are the model's); a dynamic model's specializations
    go through the warm-start cache. Arguments and errors as :func:`compile_model`."""
    got, cache, key = _compile(model, engine, input_shapes, options, fallback, warm_start)
    if isinstance(got, Program):
        return Network(got), got
    net = Network(engine, got, options)
    if isinstance(net, DynamicNetwork) and key is not None:  # each specialization through the cache, by signature
        net.program_cache = Specializations(cache, engine, key)
    return net, got


class Specializations:
    """A DynamicNetwork's ProgramCache in the warm-start cache: entry key = SHA-256 of the model's key and the
    specialization's signature."""

    def __init__(self, cache: WarmStartCache, engine: Engine, key: str) -> None:
        self.cache, self.engine, self.key = cache, engine, key

    def _key(self, signature: str) -> str:
        return hashlib.sha256(f"{self.key}:{signature}".encode()).hexdigest()

    def load(self, signature: str) -> Program | None:
        """The stored Program of this signature, or None."""
        return self.cache.load(self.engine, self._key(signature))

    def store(self, program: Program, signature: str) -> None:
        """Store the Program of this signature."""
        self.cache.store(program, self._key(signature))
