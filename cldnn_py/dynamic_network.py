"""Dynamic shapes by specialization: one static Network per input signature, built on first use and cached.

Every compiled graph here is static (shapes are jit constants, DESIGN.md rule 2), as in clDNN before its dynamic
shape support and in OpenVINO's ``reshape``: a model with dynamic dimensions, or with inputs whose *values*
determine shapes (Reshape ``shape``, Resize ``sizes``, Slice ``starts`` ... fed as graph inputs), is imported as a
:class:`DynamicTopology`. ``Network(engine, topology)`` then makes a :class:`DynamicNetwork`, which on each run
takes the input signature (the shape of every input, plus the values of the shape-determining inputs), asks the
topology for the static Topology of that signature (``specialize``: the ONNX importer re-runs with those shapes
fixed and those values bound as constants, so every shape computation folds), builds a Network from it and keeps
it in a bounded LRU cache (``BuildOptions.max_specializations``). A second call with a seen signature costs one
dictionary lookup more than a fixed-shape Network. Kernels whose source is unchanged come from the kernel cache
(it is keyed by source), so a new signature costs the import and the passes, and a compile only where a jit
constant changed. ``reshape({...})`` builds a signature ahead of time.
"""

from __future__ import annotations

import difflib
import logging
import threading
import time
from collections import OrderedDict
from typing import Any, Protocol

import numpy as np

from .build_options import BuildOptions
from .engine import Engine
from .errors import CldnnError, TopologyError
from .io_signature import TensorSignature, as_feed, check_dims, check_dtype, storage_dtype
from .network import Network, NetworkOutput, ProfilingEntry
from .program import Program
from .topology import Topology

log = logging.getLogger("cldnn_py.dynamic_network")

SignatureKey = tuple[Any, ...]


class DynamicTopology(Topology):
    """A topology known up to its input signature; holds no primitives itself.

    ``input_signature`` / ``output_signature``: the declared types (symbolic dims as str, unknown as None);
    ``value_inputs``: inputs whose values determine shapes (bound as constants per specialization; the list may
    grow when a specialization finds another). Subclasses implement ``specialize``.
    """

    is_dynamic = True

    def __init__(self, input_signature: dict[str, TensorSignature], output_signature: dict[str, TensorSignature],
                 value_inputs: list[str], name: str) -> None:
        super().__init__()
        self.input_signature = dict(input_signature)
        self.output_signature = dict(output_signature)
        self.outputs = list(output_signature)
        self.value_inputs = list(value_inputs)
        self.name = name

    def specialize(self, shapes: dict[str, tuple[int, ...]], feeds: dict[str, np.ndarray]) -> Topology:
        """The static Topology for these input shapes (every input) and fed arrays (the value inputs are read).

        May append to ``value_inputs`` when the import finds another input whose value it needs. Raises the
        import's errors (ShapeError, UnsupportedError ...) for a signature the model cannot take.
        """
        raise NotImplementedError

    def __repr__(self) -> str:
        sig = ", ".join(f"{n}: {s.describe()}" for n, s in self.input_signature.items())
        return f"{type(self).__name__}({self.name}; {sig})"


class ProgramCache(Protocol):
    """Where a DynamicNetwork keeps its specializations across processes (``warm_start.py`` gives one):
    ``load(signature)`` the stored Program or None, ``store(program, signature)``; a signature is the repr of the
    network's key (input shapes and the values of shape-determining inputs)."""

    def load(self, signature: str) -> Program | None: ...

    def store(self, program: Program, signature: str) -> None: ...


class DynamicNetwork(Network):
    """A Network over a :class:`DynamicTopology`: the same API, one static Network per input signature.

    ``input_ids`` / ``output_ids`` are the model's declared inputs and outputs. ``program``,
    ``get_profiling_info``, ``memory_info``, ``get_output_layout`` and ``poison`` refer to the specialization of
    the last ``execute`` (or ``reshape``). ``specializations`` lists the cached signatures; ``builds`` counts
    specializations built, ``last_build_ms`` the time of the last one (import, passes, kernels, allocation).
    Raises, besides the Network's errors, CldnnError when an introspection call comes before any run.
    """

    def __init__(self, engine: Engine, topology: DynamicTopology, options: BuildOptions | None = None) -> None:
        if not isinstance(engine, Engine):
            raise TypeError("Network(engine, topology[, options]) for a dynamic topology")
        self.engine = engine
        self.topology = topology
        self.options = options or BuildOptions()
        self._lock = threading.RLock()
        self._feeds: dict[str, np.ndarray] = {}
        self._cache: OrderedDict[SignatureKey, Network] = OrderedDict()
        self._current: Network | None = None
        self.input_ids = list(topology.input_signature)
        self.output_ids = list(topology.outputs or topology.output_signature)
        self.input_signature = dict(topology.input_signature)
        self.output_signature = dict(topology.output_signature)
        self.builds = 0
        self.last_build_ms = 0.0
        self.program_cache: ProgramCache | None = None  # compile_model's warm-start cache for the specializations
        self.loaded = 0  # specializations loaded from program_cache

    # ----- the specialization cache -----------------------------------------------------------------------------
    def _key(self, shapes: dict[str, tuple[int, ...]], feeds: dict[str, np.ndarray]) -> SignatureKey:
        vals = self.topology.value_inputs
        return (tuple((n, shapes[n]) for n in self.input_ids if n in shapes),
                tuple((n, feeds[n].dtype.str, feeds[n].shape, feeds[n].tobytes()) for n in vals if n in feeds))

    def _specialization(self, shapes: dict[str, tuple[int, ...]], feeds: dict[str, np.ndarray]) -> Network:
        """The cached Network for this signature, built (and the least recently used dropped) on a miss."""
        key = self._key(shapes, feeds)
        net = self._cache.get(key)
        if net is not None:
            self._cache.move_to_end(key)
            return net
        t0 = time.perf_counter()
        first_key = key
        prog = self.program_cache.load(repr(key)) if self.program_cache is not None else None
        if prog is not None:
            self.loaded += 1
        else:
            prog = Program(self.engine, self.topology.specialize(shapes, feeds), self.options)
            key = self._key(shapes, feeds)  # specialize may have found another value input
            # stored only when it did not: a later process keys this signature the same way (a value input found
            # here would be missing from its key, so two different values would share an entry)
            if self.program_cache is not None and key == first_key:
                self.program_cache.store(prog, repr(key))
        net = Network(prog)
        self.last_build_ms = (time.perf_counter() - t0) * 1e3
        self.builds += 1
        self._cache[key] = net
        while len(self._cache) > self.options.max_specializations:
            self._cache.popitem(last=False)
        log.info("specialized %r for %s in %.0f ms (%d cached)", self.topology, key[0], self.last_build_ms,
                 len(self._cache))
        return net

    @property
    def specializations(self) -> list[SignatureKey]:
        """The cached signatures, least recently used first: ((input, shape) ...), ((value input, ...) ...)."""
        return list(self._cache)

    def reshape(self, shapes: dict[str, tuple[int, ...]], values: dict[str, np.ndarray] | None = None) -> None:
        """Build (and cache) the specialization for these input shapes ahead of the first run, as OpenVINO's
        ``reshape``; ``values``: the arrays of the shape-determining inputs (``topology.value_inputs``).

        Raises ShapeError for a missing or wrong shape, and the import's and build's errors.
        """
        values = {k: np.asarray(v) for k, v in (values or {}).items()}
        shapes = {k: tuple(int(d) for d in v) for k, v in shapes.items()}
        for n, a in values.items():
            shapes.setdefault(n, tuple(a.shape))
        self._check(shapes)
        with self._lock:
            self._current = self._specialization(shapes, values)

    def _check(self, shapes: dict[str, tuple[int, ...]]) -> None:
        symbols: dict[str, int] = {}
        for n in self.input_ids:
            if n not in shapes:
                raise CldnnError(f"input '{n}' ({self.input_signature[n].describe()}) was never set")
            check_dims(self.input_signature[n], shapes[n], symbols)

    # ----- inputs and execution ---------------------------------------------------------------------------------
    def set_input_data(self, pid: str, array: np.ndarray) -> None:
        """Keep an input for the next ``execute`` (checked against its declared rank, static dims and dtype).

        Raises TopologyError for an unknown id, ShapeError for a wrong rank or static dimension, DTypeError for a
        dtype that is neither the declared one nor the engine's storage type for it, or a masked array with masked
        values (any ndarray layout, byte order or subclass is accepted: ``io_signature.as_feed``).
        """
        # a copy (the caller may change its array before execute), plain and native (io_signature.as_feed)
        self._accept(pid, np.array(as_feed(pid, array)))

    def _accept(self, pid: str, arr: np.ndarray) -> None:
        sig = self.input_signature.get(pid)
        if sig is None:
            close = difflib.get_close_matches(str(pid), self.input_ids, n=1)
            hint = f"; did you mean '{close[0]}'?" if close else ""
            raise TopologyError(f"set_input_data: '{pid}' is not an input of this network "
                                f"(inputs: {self.input_ids}){hint}")
        check_dims(sig, tuple(arr.shape))
        check_dtype(sig, arr, storage_dtype(sig.dtype))
        with self._lock:
            self._feeds[pid] = arr

    def execute(self) -> dict[str, NetworkOutput]:
        """Specialize to the inputs set (cached per signature) and enqueue that Network; returns its outputs.

        Raises CldnnError naming inputs never set, ShapeError when symbolic dimensions disagree between inputs,
        and the import's and build's errors for a new signature.
        """
        with self._lock:
            return self._execute(self._feeds)

    def _execute(self, feeds: dict[str, np.ndarray]) -> dict[str, NetworkOutput]:
        shapes = {n: tuple(a.shape) for n, a in feeds.items()}
        self._check(shapes)
        net = self._specialization(shapes, feeds)
        for n in net.input_signature:
            net.set_input_data(n, feeds[n])
        self._current = net
        return net.execute()

    def run(self, feeds: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
        """Check every feed, ``execute()``, and return the outputs as {id: array} in the declared dtypes. With a
        watchdog (``BuildOptions.watchdog_s``) the specialization's ``Network.run`` runs it under the deadline."""
        with self._lock:
            for k, v in feeds.items():
                self._accept(k, np.asarray(v))  # no copy: execute reads the arrays before run returns
            if self.options.watchdog_s is not None:
                shapes = {n: tuple(a.shape) for n, a in self._feeds.items()}
                self._check(shapes)
                self._current = net = self._specialization(shapes, self._feeds)
                return net.run({n: self._feeds[n] for n in net.input_signature})
            outs = self._execute(self._feeds)
            return {k: o.numpy() for k, o in outs.items()}

    # ----- introspection: the last specialization ---------------------------------------------------------------
    def _last(self) -> Network:
        if self._current is None:
            raise CldnnError("this network is dynamic and has not been specialized yet: run it (or call "
                             "reshape({...})) first")
        return self._current

    @property
    def program(self) -> Any:  # type: ignore[override]
        """The Program of the last specialization run."""
        return self._last().program

    def memory_info(self) -> dict[str, int]:
        """``Network.memory_info`` of the last specialization run, plus ``specializations`` (how many are cached)
        and ``activations_all`` / ``constants_all`` (bytes over every cached specialization)."""
        info = dict(self._last().memory_info())
        every = [n.memory_info() for n in self._cache.values()]
        info.update(specializations=len(every), activations_all=sum(m["activations"] for m in every),
                    constants_all=sum(m["constants"] for m in every))
        return info

    def get_profiling_info(self) -> list[ProfilingEntry]:
        """``Network.get_profiling_info`` of the last execution's specialization."""
        return self._last().get_profiling_info()

    def get_output_layout(self, pid: str) -> Any:
        """The output Layout of a primitive in the last specialization."""
        return self._last().get_output_layout(pid)

    def poison(self, value: float = float("nan")) -> None:
        """``Network.poison`` on every cached specialization."""
        for net in self._cache.values():
            net.poison(value)
