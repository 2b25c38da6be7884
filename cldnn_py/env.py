"""Every environment knob of cldnn_py, read in one place (README lists them). This module only reads them; what
follows from them (where PoCL's and numba's caches go, whether program binaries are stored) is decided in
``kernel_cache.py``.

- ``CLDNN_PY_DEVICE``: default device spec for ``Engine()`` (``cl:P:D``, ``cl:N``).
- ``CLDNN_PY_CACHE_DIR``: where compiled kernel binaries are cached (default: the platformdirs user cache); created
  private (0700), refused with a warning when another user owns it or its group or others can write it
  (``safe_dirs.py``).
- ``CLDNN_PY_NO_CACHE``: ``1`` turns the kernel binary cache off.
- ``CLDNN_PY_WARM_START``: ``0`` turns the warm-start cache off (``warm_start.py``: compiled Programs kept under
  ``<cache>/programs``, so a model's second start runs no pass and no kernel choice); ``CLDNN_PY_WARM_START_MAX_MB``
  bounds that folder (default 4096 MiB; the least recently used entries are deleted first).
- ``CLDNN_PY_BINARY_CACHE``: ``1`` stores program binaries always, ``0`` never, ``auto`` (default) only when the
  driver keeps no build cache of its own (not on PoCL).
- ``POCL_CACHE_DIR``: PoCL's own; when unset, PoCL's compiled kernels go under the kernel binary cache folder
  (``<cache>/pocl``), set before cldnn_py first lists the OpenCL platforms (PoCL reads it when it starts).
- ``CLDNN_PY_DEBUG``: ``1`` sends the ``cldnn_py`` loggers' debug records (each pass with its time and node count,
  the kernel chosen for each node, the build batches) to stderr (``debug_log.configure_debug_logging``, called when
  ``cldnn_py`` is imported).
- ``CLDNN_PY_DUMP_GRAPHS``: a directory; the pass manager writes ``NN_<pass>.dot`` after every pass.
- ``CLDNN_PY_TUNING_CACHE``: the user's tuning cache file (default: the platformdirs user cache folder).
- ``NUMBA_CACHE_DIR``: numba's own; when unset, the CPU kernels' compiled code is cached under
  ``<platformdirs user cache>/cldnn_py/numba`` (set before numba is imported: ``kernel_selector.common.numba_cache``).
- ``NUMBA_THREADING_LAYER`` / ``NUMBA_THREADING_LAYER_PRIORITY``: numba's own; when both are unset, the CPU kernels
  prefer OpenMP (priority ``omp tbb workqueue``): a parallel region launches in ~2 us there against 70-150 us on
  ``workqueue`` (MobileNetV3 on the CPU engine 16 -> 5.7 ms).
- ``GOMP_SPINCOUNT``: GNU OpenMP's own; when unset, 20000 (idle threads spin ~0.3 ms between kernels, then sleep,
  instead of libgomp's default of milliseconds that holds the cores against OpenBLAS and other processes).
- ``CLDNN_PY_CL_OPTIONS``: extra OpenCL C build options appended to every build (``-cl-opt-disable`` builds about
  2x faster on PoCL with slower kernels: the test suite's kernel tests use it; ``-cl-fast-relaxed-math`` ...). They
  are part of the kernel cache key.
- ``CLDNN_PY_WATCHDOG_S``: seconds; the default of ``BuildOptions(watchdog_s=...)``: ``Network.run`` raises a
  DeviceError naming the primitive that has not finished after that long (``watchdog.py``); unset: off.
- ``CLDNN_PY_FORCE_IMPL``: ``prim_id:kernel_name[,prim_id:kernel_name...]`` forces the kernel of a primitive.
- ``CLDNN_PY_KERNEL_TIER``: ``auto`` (default: the device's type decides), ``cpu`` or ``gpu``: the default of
  ``BuildOptions(kernel_tier=...)`` (``gpu`` runs the GPU tier on any device, e.g. PoCL or Oclgrind, for tests).
- ``CLDNN_PY_EMULATE_SUBGROUPS``: ``1`` is the default of ``BuildOptions(emulate_subgroups=True)``: sub-group kernels
  run on devices without sub-groups, their collectives emulated in ``__local`` memory (tests only).
- ``CLDNN_PY_CPU_PINNING``: ``1`` (default) pins PoCL's worker threads one per core (sets ``POCL_AFFINITY=1`` unless
  the user set it; ``cpu_pinning.py`` says why), ``0`` leaves them to the OS scheduler.
- ``CLDNN_PY_MAX_TENSOR_BYTES``: the largest tensor an ONNX model may declare or fold at import (default 16 GiB):
  a larger initializer, external tensor, folded constant or activation is refused before anything is allocated.
- ``CLDNN_PY_PARALLEL_BUILD``: ``auto`` (default) builds a network's program batches in parallel threads only on a
  driver known to be safe (PoCL's CPU device), in one thread on any other (a parallel ``clBuildProgram`` crashes
  Oclgrind); ``1`` always in parallel, ``0`` always in one thread (``device.parallel_build_allowed``).
- ``CLDNN_PY_INTEGER_PATH``: ``auto`` (default) or ``always``: the ONNX importer's choice between the integer kernels
  (``QuantizedConvolution``) and the float path for quantized operators and QDQ groups
  (``frontend/onnx_ops/quantization_integer.py``, ``frontend/onnx_qdq.py``; docs/precision.md).
``PYOPENCL_CTX`` is honoured the way pyopencl reads it when no device is given.
"""

from __future__ import annotations

import os


def device() -> str | None:
    """The ``CLDNN_PY_DEVICE`` spec, or None."""
    return os.environ.get("CLDNN_PY_DEVICE") or None


def cache_dir() -> str | None:
    """The ``CLDNN_PY_CACHE_DIR`` directory, or None."""
    return os.environ.get("CLDNN_PY_CACHE_DIR") or None


def binary_cache_mode() -> str:
    """``CLDNN_PY_BINARY_CACHE`` lower-cased: ``1``/``0`` (or true/false, yes/no, on/off), or ``auto`` when unset or
    empty; the policy that reads it is :func:`cldnn_py.kernel_cache.binary_cache`."""
    return os.environ.get("CLDNN_PY_BINARY_CACHE", "auto").strip().lower() or "auto"


def parallel_build() -> str:
    """``CLDNN_PY_PARALLEL_BUILD`` lower-cased (``auto`` when unset or empty); the policy that reads it is
    :func:`cldnn_py.device.parallel_build_allowed`."""
    return os.environ.get("CLDNN_PY_PARALLEL_BUILD", "auto").strip().lower() or "auto"


def cpu_pinning() -> bool:
    """``CLDNN_PY_CPU_PINNING``: False for ``0``/false/no/off, True otherwise (unset included)."""
    return os.environ.get("CLDNN_PY_CPU_PINNING", "1").strip().lower() not in ("0", "false", "no", "off")


def pocl_cache_dir() -> str | None:
    """PoCL's own ``POCL_CACHE_DIR``, or None."""
    return os.environ.get("POCL_CACHE_DIR") or None


def no_cache() -> bool:
    """True when ``CLDNN_PY_NO_CACHE`` is set to a non-empty value other than ``0``."""
    return os.environ.get("CLDNN_PY_NO_CACHE", "0") not in ("", "0")


def warm_start() -> bool:
    """False when ``CLDNN_PY_WARM_START`` is ``0`` (or ``CLDNN_PY_NO_CACHE`` is set)."""
    return os.environ.get("CLDNN_PY_WARM_START", "1") not in ("0", "false", "no", "off") and not no_cache()


def warm_start_max_bytes() -> int:
    """``CLDNN_PY_WARM_START_MAX_MB`` in bytes (default 4096 MiB); ValueError for a value that is not a number."""
    raw = os.environ.get("CLDNN_PY_WARM_START_MAX_MB", "") or "4096"
    try:
        return int(float(raw) * 2**20)
    except ValueError:
        raise ValueError(f"CLDNN_PY_WARM_START_MAX_MB must be a number of MiB, got {raw!r}") from None


def tuning_cache() -> str | None:
    """The ``CLDNN_PY_TUNING_CACHE`` file, or None."""
    return os.environ.get("CLDNN_PY_TUNING_CACHE") or None


def kernel_tier() -> str:
    """``CLDNN_PY_KERNEL_TIER`` (``auto`` when unset or empty)."""
    return os.environ.get("CLDNN_PY_KERNEL_TIER") or "auto"


def inference_precision() -> str | None:
    """``CLDNN_PY_INFERENCE_PRECISION`` (None when unset or empty: the model's own, else f32)."""
    return os.environ.get("CLDNN_PY_INFERENCE_PRECISION") or None


def integer_path() -> str:
    """``CLDNN_PY_INTEGER_PATH`` lower-cased (``auto`` when unset or empty); ValueError for another value."""
    v = (os.environ.get("CLDNN_PY_INTEGER_PATH") or "auto").strip().lower()
    if v not in ("auto", "always"):
        raise ValueError(f"CLDNN_PY_INTEGER_PATH must be 'auto' or 'always', got {v!r}")
    return v


def emulate_subgroups() -> bool:
    """True when ``CLDNN_PY_EMULATE_SUBGROUPS`` is set to a non-empty value other than ``0``."""
    return os.environ.get("CLDNN_PY_EMULATE_SUBGROUPS", "0") not in ("", "0")


def debug() -> bool:
    """True when ``CLDNN_PY_DEBUG`` is set to a non-empty value other than ``0``."""
    return os.environ.get("CLDNN_PY_DEBUG", "0") not in ("", "0")


def dump_graphs_dir() -> str | None:
    """The ``CLDNN_PY_DUMP_GRAPHS`` directory, or None."""
    return os.environ.get("CLDNN_PY_DUMP_GRAPHS") or None


def watchdog_s() -> float | None:
    """``CLDNN_PY_WATCHDOG_S`` as seconds, or None when unset or empty; ValueError for a value that is not a number
    > 0."""
    raw = os.environ.get("CLDNN_PY_WATCHDOG_S", "").strip()
    if not raw:
        return None
    try:
        value = float(raw)
    except ValueError:
        value = -1.0
    if not value > 0:
        raise ValueError(f"CLDNN_PY_WATCHDOG_S: expected a number of seconds > 0, got {raw!r}")
    return value


def cl_options() -> list[str]:
    """``CLDNN_PY_CL_OPTIONS`` split on whitespace (OpenCL C build options such as ``-cl-opt-disable``); [] when unset.
    Only options of the ``-cl-`` family and ``-D``/``-w`` are accepted: anything else (an ``-I`` path that would
    pull headers from elsewhere, a typo) raises ValueError naming the option."""
    opts = os.environ.get("CLDNN_PY_CL_OPTIONS", "").split()
    for o in opts:
        if not (o.startswith(("-cl-", "-D")) or o == "-w"):
            raise ValueError(f"CLDNN_PY_CL_OPTIONS: '{o}' is not an OpenCL C build option this engine passes on "
                             f"(expected -cl-..., -D... or -w)")
    return opts


def forced_impls() -> dict[str, str]:
    """``CLDNN_PY_FORCE_IMPL`` parsed as {primitive id: kernel name}."""
    raw = os.environ.get("CLDNN_PY_FORCE_IMPL", "")
    out: dict[str, str] = {}
    for item in raw.split(","):
        if ":" in item:
            pid, name = item.rsplit(":", 1)
            out[pid.strip()] = name.strip()
    return out


MAX_TENSOR_BYTES_DEFAULT = 16 * 2**30
"""The default of ``CLDNN_PY_MAX_TENSOR_BYTES``: 16 GiB."""


def max_tensor_bytes() -> int:
    """``CLDNN_PY_MAX_TENSOR_BYTES``: the largest tensor (in bytes) a model file may declare or have folded at import
    (initializers, external data, constant folding, declared activations); default 16 GiB. An unparsable value
    gives the default."""
    raw = os.environ.get("CLDNN_PY_MAX_TENSOR_BYTES", "").strip()
    try:
        return int(raw) if raw else MAX_TENSOR_BYTES_DEFAULT
    except ValueError:
        return MAX_TENSOR_BYTES_DEFAULT
