"""``cldnn-py batch MODEL --input-dir DIR --output-dir DIR``: a folder of arrays through a Ray Data actor pool.

Each input file is one row: ``NAME.npy`` for a one-input model (shape = the input's row shape, or with a leading
1), ``NAME.npz`` with an array per model input otherwise. Files are read through ``cldnn_py/input_files.py`` (never
unpickled) and all checked against the inputs' declared dtypes and dimensions before any worker starts. Each result
is written as ``NAME.npy`` (one output) or ``NAME.npz`` (an array per output, under the model's output names), only
inside the output folder (``input_files.output_path``). Files are read by Ray tasks, run by
``--workers`` BatchPredictor actors (cldnn_py.integrations.ray.map_batches) and written by this process, with a
tqdm progress bar. Without ``--address`` (or ``RAY_ADDRESS``) a local Ray is started whose node declares one
``"opencl"`` resource, shared by the workers (each asks for 1/workers of it).
"""

from __future__ import annotations

import argparse
import collections
import os
import pathlib
import sys
import time
from typing import Any

import numpy as np

from ..input_files import check_input_array, load_array_file, output_path
from ..io_signature import TensorSignature


def _row(arr: np.ndarray, rank: int) -> np.ndarray:
    """A file's array as one row: a leading batch of 1 (the array has the input's full rank) is dropped."""
    return arr[0] if arr.ndim == rank and arr.shape[0] == 1 else arr


def read_rows(path: str, inputs: dict[str, TensorSignature]) -> dict[str, np.ndarray]:
    """{input name: one row} of an input file (``input_files.load_array_file``: never unpickled), each row checked
    against the input's declared dtype and dimensions (the batch dimension dropped). Raises InputFileError,
    ShapeError or DTypeError naming the file and the input."""
    from ..errors import InputFileError

    names = list(inputs)
    got = load_array_file(path)
    if not isinstance(got, dict):
        if len(names) != 1:
            raise InputFileError(f"'{path}': a .npy file holds one array, the model has inputs {names}; give .npz "
                                 f"files with an array per input")
        got = {names[0]: got}
    missing = [n for n in names if n not in got]
    if missing:
        raise InputFileError(f"'{path}': no array for model inputs {missing} (has {sorted(got)})")
    rows = {}
    for n, sig in inputs.items():
        rows[n] = _row(got[n], len(sig.dims))
        check_input_array(TensorSignature(n, sig.dtype, sig.dims[1:]), rows[n], f"'{path}' (one row)")
    return rows


def _reader(inputs: dict[str, TensorSignature]) -> Any:
    """A Ray Data batch function: {"path": [...]} → {"path", one column per model input}."""
    names = list(inputs)

    def read(batch: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
        cols: dict[str, list[np.ndarray]] = {n: [] for n in names}
        for path in batch["path"]:
            for n, r in read_rows(str(path), inputs).items():
                cols[n].append(r)
        out: dict[str, np.ndarray] = {"path": np.asarray(batch["path"])}
        for n, rows in cols.items():
            shapes = {r.shape for r in rows}
            if len(shapes) > 1:
                raise ValueError(f"input '{n}': files have different shapes {sorted(shapes)}")
            out[n] = np.stack(rows)
        return out

    return read


def _write(out_dir: pathlib.Path, path: str, outputs: dict[str, np.ndarray]) -> None:
    stem = pathlib.Path(path).stem
    if len(outputs) == 1:
        np.save(output_path(out_dir, stem, ".npy"), next(iter(outputs.values())))
    else:
        np.savez(output_path(out_dir, stem, ".npz"), **outputs)  # type: ignore[arg-type]


def run(args: argparse.Namespace) -> int:
    """The ``batch`` sub-command; returns the exit status."""
    try:
        import ray
        import ray.data

        from . import ray as cl_ray
    except ImportError as e:
        raise SystemExit(f"cldnn-py batch needs Ray Data: pip install 'cldnn_py[ray]' ({e})") from None
    from tqdm import tqdm

    in_dir, out_dir = pathlib.Path(args.input_dir), pathlib.Path(args.output_dir)
    files = sorted(str(p) for p in in_dir.iterdir() if p.suffix in (".npy", ".npz")) if in_dir.is_dir() else []
    if not files:
        raise SystemExit(f"cldnn-py batch: no .npy or .npz files in '{in_dir}'")
    if args.workers < 1 or args.batch < 1:
        raise SystemExit(f"--workers and --batch must be >= 1, got {args.workers} and {args.batch}")
    from ..frontend.onnx import input_signatures

    try:
        with open(args.model, "rb") as f:
            model = f.read()  # read once: the input signatures here, the bytes shipped to the actors below
    except OSError as e:
        raise SystemExit(f"cldnn-py batch: cannot read '{args.model}': {e}") from None
    inputs = input_signatures(model)  # declared dtype and dims, batch included
    for path in files:  # every file checked before any worker starts: a bad one stops the run with one line
        read_rows(path, inputs)
    out_dir.mkdir(parents=True, exist_ok=True)
    started = False
    if not ray.is_initialized():
        address = args.address or os.environ.get("RAY_ADDRESS")
        if address:
            ray.init(address=address, log_to_driver=False)
        else:
            ray.init(address="local", resources={cl_ray.OPENCL_RESOURCE: 1}, include_dashboard=False,
                     log_to_driver=False)
        started = True
    try:
        ray.data.DataContext.get_current().enable_progress_bars = False
        # reading files is light: one task at a time that reserves no CPU, so it never waits behind actors holding
        # every CPU (a deadlock on a small node) and does not make Ray start a worker process per file
        ds = ray.data.from_items([{"path": p} for p in files]).map_batches(
            _reader(inputs), batch_format="numpy", num_cpus=0, compute=ray.data.TaskPoolStrategy(size=1))
        ds = cl_ray.map_batches(ds, model, workers=args.workers, batch_size=args.batch, device=args.device,
                                cache_dir=args.cache_dir, opencl=1.0 / args.workers, threads=args.threads,
                                worker_column="worker")
        per_worker: collections.Counter[str] = collections.Counter()
        t0 = time.perf_counter()
        bar = tqdm(total=len(files), unit="file", desc="batch", file=sys.stderr, disable=args.quiet)
        with bar:
            for batch in ds.iter_batches(batch_size=args.batch, batch_format="numpy"):
                outs = [k for k in batch if k not in ("path", "worker")]
                for i, path in enumerate(batch["path"]):
                    _write(out_dir, str(path), {k: batch[k][i] for k in outs})
                per_worker.update(str(w) for w in batch["worker"])
                bar.update(len(batch["path"]))
        dt = time.perf_counter() - t0
    finally:
        if started:
            ray.shutdown()
    spread = ", ".join(f"{w}: {n}" for w, n in sorted(per_worker.items()))
    print(f"{len(files)} files in {dt:.1f} s ({len(files) / dt:.1f} rows/s, including worker start-up) "
          f"by {len(per_worker)} workers ({spread}); results in {out_dir}")
    return 0


def add_parser(sub: Any) -> None:
    """Add the ``batch`` sub-command to the CLI's sub-parsers."""
    b = sub.add_parser("batch", help="run a model over a folder of .npy/.npz files with Ray Data (the [ray] extra)")
    b.add_argument("model", help="ONNX model file")
    b.add_argument("--input-dir", required=True, help="folder of .npy (one input) or .npz (by input name) files")
    b.add_argument("--output-dir", required=True, help="results: NAME.npy (one output) or NAME.npz")
    b.add_argument("--workers", type=int, default=2, help="predictor actors, one Network each (default 2)")
    b.add_argument("--batch", type=int, default=8, help="rows per execution, the compiled batch (default 8)")
    b.add_argument("--device", help="cl:P:D or cpu (default: the default OpenCL device)")
    b.add_argument("--threads", type=int, help="threads per worker (POCL_CPU_MAX_CU_COUNT, NUMBA_NUM_THREADS)")
    b.add_argument("--cache-dir", help="kernel binary cache shared by the workers (default: the user's)")
    b.add_argument("--address", help="Ray cluster to join (default: RAY_ADDRESS, else start a local one)")
    b.add_argument("-q", "--quiet", action="store_true", help="no progress bar")
    b.set_defaults(func=run)
