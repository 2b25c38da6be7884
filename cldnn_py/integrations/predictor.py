"""BatchPredictor: one compiled Network per process, called on batches of rows.

The pattern is Ray Data's callable class for ``map_batches`` (the constructor runs once per actor, ``__call__`` once
per batch), which Ray Serve deployments and Dask per-worker state use as well. The predictor holds live device
objects, so it is never pickled: frameworks ship the class and its constructor arguments (a model path or bytes,
a device spec string, a cache folder) and build it again in the worker, where the kernel binary cache
(``cldnn_py.kernel_cache``) makes the build warm after the first worker on a node.
"""

from __future__ import annotations

import os
import socket
import time
from collections.abc import Mapping
from typing import Any

import numpy as np

from ..errors import DTypeError, ShapeError, TopologyError, UnsupportedError


def _static_batch_shapes(model: Any, batch_size: int | None,
                         shapes: Mapping[str, tuple[int, ...]]) -> tuple[dict[str, tuple[int, ...]], int]:
    """Input shapes with the batch dimension set, and the batch size compiled.

    Raises ShapeError when an input's batch dimension is dynamic and ``batch_size`` is None, or when an input has
    a dynamic non-batch dimension not given in ``shapes``.
    """
    from ..frontend.onnx import graph_inputs

    out: dict[str, tuple[int, ...]] = {}
    batches = set()
    for name, graph_dims in graph_inputs(model).items():
        dims = list(shapes.get(name, graph_dims))
        if not dims:
            raise ShapeError(f"input '{name}': a scalar input has no batch dimension to split rows on")
        if None in dims[1:]:
            raise ShapeError(f"input '{name}': dimensions {dims} are dynamic beyond the batch; "
                             f"give them in input_shapes, e.g. {{'{name}': (8, 3, 224, 224)}}")
        if batch_size is not None:
            dims[0] = batch_size
        elif dims[0] is None:
            raise ShapeError(f"input '{name}': the batch dimension is dynamic; pass batch_size")
        out[name] = tuple(int(d) for d in dims if d is not None)  # none left: checked above
        batches.add(out[name][0])
    if len(batches) != 1:
        raise ShapeError(f"inputs have different batch sizes {sorted(batches)}; pass batch_size")
    return out, batches.pop()


class BatchPredictor:
    """An ONNX model compiled once (Engine, Program, Network) and run on batches of rows.

    A batch is ``{column: array}`` whose first dimension is the row (Ray Data's ``batch_format="numpy"``). Rows are
    cut into chunks of ``batch_size`` (the compiled batch); a short last chunk is padded with zeros and the padded
    rows' results are dropped, so any number of rows works with one compiled Network. Each row's result equals
    that of a single-process ``Network`` of the same batch size on the same device kind, bit for bit.

    Args:
        model: ONNX model path or bytes (``onnx.ModelProto`` works too; bytes are what to ship to remote workers).
        device: ``"cl:P:D"``, ``"cpu"`` or None (the default OpenCL device), as for ``Engine``.
        cache_dir: the kernel binary cache folder (``Engine(cache_dir=)``); None: ``CLDNN_PY_CACHE_DIR`` or the
            platformdirs user cache. Share it between workers of a node so only the first one compiles.
        batch_size: rows per execution; None: the model's own (static) batch dimension.
        input_shapes: {input: full shape} for inputs with dynamic non-batch dimensions.
        inputs: {model input name: column name} where the columns are named differently; default: same names.
        passthrough: return the batch's other columns (ids, paths) beside the outputs, unchanged.
        worker_column: if set, add a column of this name holding ``"<host>:<pid>"`` of the process per row, to see
            how work was spread.
        tuning: ``BuildOptions.tuning`` (``"cache"``, ``"off"`` or ``"tune"``).

    Attributes:
        input_names, output_names: the model's own names; outputs are returned under ``output_names``.
        batch_size: the compiled batch. build_seconds: time to build Engine + Program + Network (s).
        binary_cache_hits: kernels taken from the binary cache in the build. worker: ``"<host>:<pid>"``.

    Raises (constructor): OnnxImportError, UnsupportedError (also when an output is not batch-major: its first
    dimension is not the batch), ShapeError for dynamic dimensions; DeviceError for an unknown device.
    Raises (call): TopologyError for a missing input column or an output name that is also a passthrough
    column, ShapeError for a wrong row shape or columns of different lengths, DTypeError for a value that cannot
    be converted without loss of kind (float to int, ...). Floats of another width are converted (float64 rows
    become float32 when the model takes float32).
    """

    def __init__(self, model: Any, *, device: str | None = None, cache_dir: str | os.PathLike[str] | None = None,
                 batch_size: int | None = None, input_shapes: Mapping[str, tuple[int, ...]] | None = None,
                 inputs: Mapping[str, str] | None = None, passthrough: bool = True,
                 worker_column: str | None = None, tuning: str = "cache") -> None:
        from .. import BuildOptions, Engine, Network, Program
        from ..frontend.onnx import _load, load_onnx

        if batch_size is not None and batch_size < 1:
            raise ValueError(f"batch_size must be >= 1, got {batch_size}")
        t0 = time.perf_counter()
        proto, _ = _load(model)
        shapes, self.batch_size = _static_batch_shapes(proto, batch_size, input_shapes or {})
        engine = Engine(device, cache_dir=None if cache_dir is None else os.fspath(cache_dir))
        try:
            topology = load_onnx(proto, shapes)
        except (ShapeError, UnsupportedError) as e:
            if batch_size is None:
                raise
            raise type(e)(f"{e}\n(BatchPredictor compiles the model at batch_size={batch_size}; a model whose "
                          f"graph fixes its batch, e.g. in a Reshape, needs batch_size=None or a model exported "
                          f"at that batch)") from None
        program = Program(engine, topology, BuildOptions(tuning=tuning))
        self.network = Network(program)
        self.input_names = list(self.network.input_ids)
        self.output_names = list(self.network.output_ids)
        self._in_layouts = {n: self.network.get_output_layout(n) for n in self.input_names}
        for name in self.output_names:
            shape = self.network.get_output_layout(name).shape
            if not shape or shape[0] != self.batch_size:
                raise UnsupportedError(f"output '{name}': shape {shape} does not start with the batch dimension "
                                       f"{self.batch_size}, so rows cannot be split; run it with Network instead")
        self.columns = {n: (inputs or {}).get(n, n) for n in self.input_names}
        unknown = set(inputs or {}) - set(self.input_names)
        if unknown:
            raise TopologyError(f"inputs maps {sorted(unknown)}, which are not model inputs {self.input_names}")
        self.passthrough = passthrough
        self.worker_column = worker_column
        self.worker = f"{socket.gethostname()}:{os.getpid()}"
        self.device = str(engine)
        self.binary_cache_hits = program.binary_cache_hits
        self.build_seconds = time.perf_counter() - t0

    def __reduce__(self) -> Any:
        raise TypeError("a BatchPredictor holds a live Network and cannot be pickled; pass the class and its "
                        "constructor arguments (model path or bytes, device spec, cache_dir) instead, e.g. "
                        "Dataset.map_batches(BatchPredictor, fn_constructor_kwargs={...})")

    def __repr__(self) -> str:
        return (f"BatchPredictor({self.input_names} -> {self.output_names}, batch {self.batch_size}, "
                f"{self.device}, worker {self.worker})")

    def _column(self, batch: Mapping[str, Any], name: str, rows: int | None) -> np.ndarray:
        col = self.columns[name]
        if col not in batch:
            raise TopologyError(f"input_layout '{name}': the batch has no column '{col}' (columns: {sorted(batch)}); "
                                f"name the column after the input or pass inputs={{'{name}': '<column>'}}")
        arr = np.asarray(batch[col])
        lay = self._in_layouts[name]
        want = lay.dtype.numpy
        if arr.dtype == object:
            raise ShapeError(f"input_layout '{name}': column '{col}' holds rows of different shapes (dtype object); "
                             f"expected every row of shape {lay.shape[1:]}")
        if arr.shape[1:] != lay.shape[1:]:
            raise ShapeError(f"input_layout '{name}': row shape: expected {lay.shape[1:]}, got {arr.shape[1:]} "
                             f"(column '{col}', batch shape {arr.shape})")
        if rows is not None and arr.shape[0] != rows:
            raise ShapeError(f"input_layout '{name}': column '{col}' has {arr.shape[0]} rows, other inputs {rows}")
        if arr.dtype != want:
            if arr.dtype.kind != want.kind and not (arr.dtype.kind in "iu" and want.kind in "iu"):
                raise DTypeError(f"input_layout '{name}': dtype: expected {want}, got {arr.dtype} (column '{col}')")
            arr = arr.astype(want)
        return arr

    def __call__(self, batch: Mapping[str, Any]) -> dict[str, np.ndarray]:
        """Run the Network over every row of ``batch``; returns {output name: array (rows, ...)} plus passthrough
        columns and the worker column."""
        arrays: dict[str, np.ndarray] = {}
        rows: int | None = None
        for name in self.input_names:
            arrays[name] = self._column(batch, name, rows)
            rows = arrays[name].shape[0]
        n = int(rows or 0)
        b = self.batch_size
        parts: dict[str, list[np.ndarray]] = {o: [] for o in self.output_names}
        for start in range(0, n, b):
            feeds = {}
            for name, arr in arrays.items():
                chunk = arr[start:start + b]
                if chunk.shape[0] < b:  # the short last chunk: zero rows, computed and dropped
                    pad = np.zeros((b - chunk.shape[0], *chunk.shape[1:]), dtype=chunk.dtype)
                    chunk = np.concatenate([chunk, pad])
                feeds[name] = np.ascontiguousarray(chunk)
            outs = self.network.run(feeds)
            valid = min(b, n - start)
            for o in self.output_names:
                parts[o].append(outs[o][:valid])
        result: dict[str, np.ndarray] = {}
        for o in self.output_names:
            if parts[o]:
                result[o] = np.concatenate(parts[o])
            else:
                lay = self.network.get_output_layout(o)
                result[o] = np.empty((0, *lay.shape[1:]), dtype=lay.dtype.numpy)
        if self.passthrough:
            used = set(self.columns.values())
            for col, value in batch.items():
                if col in used:
                    continue
                if col in result:
                    raise TopologyError(f"column '{col}' is both a model output and a passthrough column; rename it "
                                        f"or pass passthrough=False")
                result[col] = value
        if self.worker_column:
            result[self.worker_column] = np.full(n, self.worker)
        return result
