"""``cldnn-py batch MODEL --input-dir DIR --output-dir DIR``: a folder of arrays through a Ray Data actor pool.

Each input file is one row: ``NAME.npy`` for a one-input model (shape = the input's row shape, or with a leading
1), ``NAME.npz`` with an array per model input otherwise. Each result is written as ``NAME.npy`` (one output) or
``NAME.npz`` (an array per output, under the model's output names). Files are read by Ray tasks, run by
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


def _row(arr: np.ndarray, rank: int) -> np.ndarray:
    """A file's array as one row: a leading batch of 1 (the array has the input's full rank) is dropped."""
    return arr[0] if arr.ndim == rank and arr.shape[0] == 1 else arr


def _reader(inputs: dict[str, int]) -> Any:
    """A Ray Data batch function: {"path": [...]} → {"path", one column per model input}."""
    names = list(inputs)

    def read(batch: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
        cols: dict[str, list[np.ndarray]] = {n: [] for n in names}
        for path in batch["path"]:
            if str(path).endswith(".npz"):
                with np.load(path) as z:
                    missing = [n for n in names if n not in z.files]
                    if missing:
                        raise ValueError(f"{path}: no array for model inputs {missing} (has {z.files})")
                    for n in names:
                        cols[n].append(_row(z[n], inputs[n]))
            else:
                if len(names) != 1:
                    raise ValueError(f"{path}: a .npy file holds one array, the model has inputs {names}; "
                                     f"give .npz files with an array per input")
                cols[names[0]].append(_row(np.load(path), inputs[names[0]]))
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
        np.save(out_dir / f"{stem}.npy", next(iter(outputs.values())))
    else:
        np.savez(out_dir / f"{stem}.npz", **outputs)  # type: ignore[arg-type]


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
    from ..frontend.onnx import graph_inputs

    try:
        with open(args.model, "rb") as f:
            model = f.read()  # read once: the input ranks here, the bytes shipped to the actors below
    except OSError as e:
        raise SystemExit(f"cldnn-py batch: cannot read '{args.model}': {e}") from None
    inputs = {name: len(dims) for name, dims in graph_inputs(model).items()}  # rank, batch included
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
