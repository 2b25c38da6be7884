"""Batch inference over Ray Data: one compiled Network per actor (the ``[ray]`` extra).

The recipe is Ray Data's own for stateful models: ``Dataset.map_batches(CallableClass, compute=ActorPoolStrategy)``
builds the class once per actor and calls it once per batch (docs.ray.io, "Working with LLMs / batch inference").
The class is :class:`~cldnn_py.integrations.predictor.BatchPredictor`; this module only fills in Ray's arguments:

- an OpenCL worker asks for the custom resource ``"opencl"`` (a node declares it with
  ``ray start --resources='{"opencl": 1}'`` or ``ray.init(resources={"opencl": 1})``), so actors land only on
  nodes that have an OpenCL device; a CPU-engine worker (``device="cpu"``) asks for CPUs only;
- ``threads`` caps each worker's threads (PoCL's ``POCL_CPU_MAX_CU_COUNT``, numba's ``NUMBA_NUM_THREADS``) through
  the actor's runtime environment, so that several workers on one machine do not oversubscribe its cores.
"""

from __future__ import annotations

import os
from typing import Any

from .predictor import BatchPredictor

try:
    import ray
    import ray.data
except ImportError as e:  # pragma: no cover - exercised only without the extra
    raise ImportError("cldnn_py.integrations.ray needs Ray Data: pip install 'cldnn_py[ray]' "
                      f"(or 'ray[data]'); {e}") from None

__all__ = ["BatchPredictor", "actor_options", "map_batches", "is_opencl"]

OPENCL_RESOURCE = "opencl"


def is_opencl(device: str | None) -> bool:
    """True when ``device`` names an OpenCL device (``None`` is the default OpenCL device), False for ``"cpu"``."""
    return device is None or not str(device).strip().lower().startswith("cpu")


def actor_options(device: str | None = None, *, num_cpus: float = 1.0, opencl: float = 1.0,
                  threads: int | None = None) -> dict[str, Any]:
    """Ray remote arguments for one predictor actor.

    Args:
        device: the predictor's device spec; an OpenCL one adds ``resources={"opencl": opencl}``.
        num_cpus: CPUs reserved per actor (Ray scheduling only; it does not limit threads).
        opencl: amount of the ``"opencl"`` resource per actor (1: one actor per declared device; 0.5: two). 0: ask
            for none, so that an actor with ``device=None`` runs wherever Ray puts it, on the node's OpenCL device
            if it has one and on the CPU engine otherwise (``Engine()`` falls back, with a warning).
        threads: if set, ``POCL_CPU_MAX_CU_COUNT`` and ``NUMBA_NUM_THREADS`` for the actor's process.
    Returns:
        keyword arguments for ``Dataset.map_batches`` (``num_cpus``, ``resources``, ``runtime_env``).
    """
    opts: dict[str, Any] = {"num_cpus": num_cpus}
    if is_opencl(device) and opencl > 0:
        opts["resources"] = {OPENCL_RESOURCE: opencl}
    if threads is not None:
        if threads < 1:
            raise ValueError(f"threads must be >= 1, got {threads}")
        opts["runtime_env"] = {"env_vars": {"POCL_CPU_MAX_CU_COUNT": str(threads), "NUMBA_NUM_THREADS": str(threads)}}
    return opts


def _pool(workers: int | tuple[int, int]) -> ray.data.ActorPoolStrategy:
    """A fixed pool of ``workers`` actors, or an autoscaling one between ``(min, max)``."""
    if isinstance(workers, tuple):
        lo, hi = workers
        if not 1 <= lo <= hi:
            raise ValueError(f"workers (min, max) must satisfy 1 <= min <= max, got {workers}")
        return ray.data.ActorPoolStrategy(min_size=lo, max_size=hi)
    if workers < 1:
        raise ValueError(f"workers must be >= 1, got {workers}")
    return ray.data.ActorPoolStrategy(size=workers)


def map_batches(ds: ray.data.Dataset, model: Any, *, workers: int | tuple[int, int] = 2, batch_size: int = 8,
                device: str | None = None, cache_dir: str | os.PathLike[str] | None = None,
                num_cpus: float = 1.0, opencl: float = 1.0, threads: int | None = None,
                **predictor_kwargs: Any) -> ray.data.Dataset:
    """``ds`` mapped through a pool of ``workers`` BatchPredictor actors, ``batch_size`` rows per call.

    Args:
        ds: rows whose columns are named after the model's inputs (or mapped with ``inputs={input: column}``).
        model: ONNX path (must exist on every node) or bytes (shipped through Ray's object store).
        workers: actors in the pool, each with its own Engine, Program and Network; ``(min, max)`` lets Ray Data
            scale the pool between the two with the backlog.
        batch_size: rows per call and the Network's compiled batch (the last call is padded, then trimmed).
        device, cache_dir: as for BatchPredictor; ``device`` also chooses the actor's resources (``actor_options``).
        num_cpus, opencl, threads: see ``actor_options``.
        predictor_kwargs: the rest of BatchPredictor's arguments (``inputs``, ``worker_column``, ``tuning`` ...).
    Returns:
        A lazy Dataset with the outputs under the model's output names plus passthrough columns.
    Raises:
        ValueError for ``workers`` or ``batch_size`` < 1 (or min > max). Build errors (OnnxImportError,
        UnsupportedError ...) are raised in the actors and surface from Ray when the dataset is consumed.
    """
    if batch_size < 1:
        raise ValueError(f"batch_size must be >= 1, got {batch_size}")
    pool = _pool(workers)
    kwargs = dict(predictor_kwargs, model=model, device=device, batch_size=batch_size,
                  cache_dir=None if cache_dir is None else os.fspath(cache_dir))
    return ds.map_batches(BatchPredictor, fn_constructor_kwargs=kwargs, batch_size=batch_size,
                          batch_format="numpy", compute=pool,
                          **actor_options(device, num_cpus=num_cpus, opencl=opencl, threads=threads))
