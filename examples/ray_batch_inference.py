"""ResNet-50 batch inference over Ray Data with two cldnn_py actors (README, "Scaling out").

    python examples/ray_batch_inference.py                   # 256 seeded random 3x224x224 images
    python examples/ray_batch_inference.py --images DIR      # a folder of .npy images (3x224x224 or 1x3x224x224)
    python examples/ray_batch_inference.py --device cpu --threads 1

It starts a local Ray whose node declares one OpenCL device (``resources={"opencl": 1}``), builds the zoo ResNet-50
(the onnx wheel's graph with seeded weights, written to .cache/models), and maps the dataset through
``cldnn_py.integrations.ray.map_batches``: 2 actors, each with its own Engine, Program and Network, batch 8. It
prints images/s with and without the actors' start-up, and how many images each actor ran. ``--compare`` also
times one Network in this process over the same images, for the cost of going through Ray.
"""

from __future__ import annotations

import argparse
import collections
import pathlib
import time

import numpy as np


def _model(root: pathlib.Path, batch: int) -> pathlib.Path:
    """The zoo ResNet-50 written at ``batch`` (its Reshape before the classifier fixes the batch size)."""
    from cldnn_py.tools import zoo

    path = root / f"resnet50_b{batch}_s0.onnx"
    if not path.exists():
        zoo.main(["--out", str(root), "--models", "resnet50", "--batch", str(batch)])
    return path


def _images(args: argparse.Namespace) -> np.ndarray:
    if args.images:
        files = sorted(pathlib.Path(args.images).glob("*.npy"))
        if not files:
            raise SystemExit(f"no .npy files in {args.images}")
        return np.stack([np.load(f).reshape(3, 224, 224) for f in files]).astype(np.float32)
    return np.random.default_rng(args.seed).standard_normal((args.count, 3, 224, 224)).astype(np.float32)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--images", help="folder of .npy images (default: seeded random ones)")
    p.add_argument("--count", type=int, default=256, help="random images when --images is not given")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--batch", type=int, default=8)
    p.add_argument("--device", help="cl:P:D or cpu (default: the default OpenCL device)")
    p.add_argument("--threads", type=int, help="threads per actor (POCL_CPU_MAX_CU_COUNT, NUMBA_NUM_THREADS)")
    p.add_argument("--compare", action="store_true", help="also time one Network in this process")
    args = p.parse_args()

    import ray

    from cldnn_py.integrations import ray as cl_ray
    from cldnn_py.tools import zoo

    model = _model(pathlib.Path(".cache/models"), args.batch).read_bytes()
    name = zoo.input_name("resnet50")
    images = _images(args)
    ray.init(address="local", resources={cl_ray.OPENCL_RESOURCE: 1}, include_dashboard=False, log_to_driver=False)
    ray.data.DataContext.get_current().enable_progress_bars = False
    ds = ray.data.from_items([{"id": i, name: img} for i, img in enumerate(images)])
    out = cl_ray.map_batches(ds, model, workers=args.workers, batch_size=args.batch, device=args.device,
                             opencl=1.0 / args.workers, threads=args.threads, worker_column="worker")
    t0 = time.perf_counter()
    first = None
    spread: collections.Counter[str] = collections.Counter()
    for batch in out.iter_batches(batch_size=args.batch, batch_format="numpy"):
        first = first or time.perf_counter()
        spread.update(str(w) for w in batch["worker"])
    total = time.perf_counter() - t0
    n = len(images)
    steady = n - args.batch
    print(f"{n} images through {args.workers} actors, batch {args.batch}: {total:.1f} s, {n / total:.1f} images/s "
          f"including actor start-up; {steady / (time.perf_counter() - first):.1f} images/s after the first batch")
    for w, c in sorted(spread.items()):
        print(f"  actor {w}: {c} images ({100 * c / n:.0f}%)")
    ray.shutdown()
    if args.compare:
        import cldnn_py as cl

        net = cl.Network(cl.Program(cl.Engine(args.device), cl.load_onnx(model, {name: (args.batch, 3, 224, 224)})))
        net.run({name: images[: args.batch]})
        t = time.perf_counter()
        for s in range(0, n - args.batch + 1, args.batch):
            net.run({name: images[s:s + args.batch]})
        done = (n // args.batch) * args.batch
        print(f"one Network in this process: {done / (time.perf_counter() - t):.1f} images/s")


if __name__ == "__main__":
    main()
