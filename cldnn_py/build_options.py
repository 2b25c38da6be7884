"""BuildOptions: the options of a Program build (clDNN ``build_options``), in a module of its own so the program
graph (``program_graph.py``) and ``Program`` (``program.py``) both read them without importing each other."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path


@dataclass
class BuildOptions:
    """Options of a Program build.

    outputs: ids that are network outputs in addition to the primitives nobody consumes.
    optimize_data: run the optimizing passes (fusing, layout choice, constant folding, buffer fusing, padding,
        memory reuse; passes/__init__.py); False runs only what correctness needs (layouts, trimming, reorders the
        kernels require, kernel selection and build).
    force_implementations: {primitive id: kernel name}, merged over ``CLDNN_PY_FORCE_IMPL``.
    progress: called as ``progress(kernels_built, kernels_total)`` after each batch of kernels is compiled
        (the CLI draws a tqdm bar with it; the library itself prints nothing).
    tuning: ``"cache"`` (default): take the tuning cache's winner (kernel and variant, e.g. the pixel block of the
        fsv16 convolution) where one is stored for this device and shape, the priority rules elsewhere;
        ``"tune"``: first time every tunable kernel variant of each node that has no stored winner on the device
        (a few ms per variant plus its compile, ~0.2-0.5 s) and store the fastest in the user's cache file;
        ``"off"``: priority rules only (clDNN ``tuning_config``, kernel_selector/tuning_cache.py).
    tuning_cache: the user's tuning cache file; None: ``CLDNN_PY_TUNING_CACHE`` or the platformdirs user cache.
    kernel_tier: ``"auto"`` (the device's type decides: the GPU tier on a GPU, the CPU tier elsewhere), ``"cpu"``
        or ``"gpu"`` (that tier of shaped kernels on any device; reference kernels fit both); None:
        ``CLDNN_PY_KERNEL_TIER`` or ``"auto"``. Raises ValueError for another value.
    emulate_subgroups: on a device without sub-groups, let the sub-group kernels (``*_sg``) run with their
        collectives emulated in ``__local`` memory (for testing them on PoCL or Oclgrind; slower than the work-group
        kernels, so only for tests); None: ``CLDNN_PY_EMULATE_SUBGROUPS`` (``1``) or False.
    max_specializations: for a dynamic topology, how many input signatures keep a built Network (least recently
        used dropped first; each holds its own activations and constants). Raises ValueError below 1.
    inference_precision: ``"f32"`` (default) or ``"f16"``: activations and weights stored as half where a kernel takes
        them (half storage, float arithmetic; ``passes/convert_precision.py`` says which layers stay f32: softmax,
        normalization statistics, network outputs); None: ``CLDNN_PY_INFERENCE_PRECISION``, else the topology's
        ``preferred_precision`` (``"f16"`` for an ONNX model stored in float16), else ``"f32"``. Raises ValueError
        for another value. OpenVINO's ``INFERENCE_PRECISION_HINT``.
    keep_f32: primitive ids that stay f32 under ``inference_precision="f16"`` (a sensitive layer); an id not in the
        topology raises TopologyError at build.
    watchdog_s: seconds ``Network.run`` waits for a run before raising DeviceError naming the primitive that has
        not finished (``cldnn_py/watchdog.py``); None: ``CLDNN_PY_WATCHDOG_S`` or off. Raises ValueError for a
        value that is not > 0.
    """

    outputs: list[str] | None = None
    optimize_data: bool = True
    force_implementations: dict[str, str] = field(default_factory=dict)
    progress: Callable[[int, int], None] | None = None
    tuning: str = "cache"
    tuning_cache: str | Path | None = None
    kernel_tier: str | None = None
    emulate_subgroups: bool | None = None
    max_specializations: int = 8
    watchdog_s: float | None = None
    inference_precision: str | None = None
    keep_f32: tuple[str, ...] | list[str] = ()

    def __post_init__(self) -> None:
        from kernel_selector.tuning_cache import TUNING_MODES

        from . import env

        if self.tuning not in TUNING_MODES:
            raise ValueError(f"BuildOptions.tuning must be one of {', '.join(TUNING_MODES)}; got {self.tuning!r}")
        if int(self.max_specializations) < 1:
            raise ValueError(f"BuildOptions.max_specializations must be at least 1; got {self.max_specializations!r}")
        if self.watchdog_s is None:
            self.watchdog_s = env.watchdog_s()
        if self.watchdog_s is not None and not float(self.watchdog_s) > 0:
            raise ValueError(f"BuildOptions.watchdog_s must be a number of seconds > 0 (or None: off); got "
                             f"{self.watchdog_s!r}")
        if self.inference_precision is None:
            self.inference_precision = env.inference_precision()
        if self.inference_precision is not None and self.inference_precision not in INFERENCE_PRECISIONS:
            raise ValueError(f"BuildOptions.inference_precision must be one of {', '.join(INFERENCE_PRECISIONS)} "
                             f"(or CLDNN_PY_INFERENCE_PRECISION); got {self.inference_precision!r}")
        if isinstance(self.keep_f32, str) or not all(isinstance(k, str) for k in self.keep_f32):
            raise ValueError(f"BuildOptions.keep_f32 must be a list of primitive ids; got {self.keep_f32!r}")
        self.keep_f32 = tuple(self.keep_f32)
        if self.emulate_subgroups is None:
            self.emulate_subgroups = env.emulate_subgroups()
        if self.kernel_tier is None:
            self.kernel_tier = env.kernel_tier()
        if self.kernel_tier not in KERNEL_TIERS:
            raise ValueError(f"BuildOptions.kernel_tier must be one of {', '.join(KERNEL_TIERS)} "
                             f"(or CLDNN_PY_KERNEL_TIER); got {self.kernel_tier!r}")

    def resolved_tier(self, device_type: str) -> str:
        """``"cpu"`` or ``"gpu"``: ``kernel_tier`` with ``"auto"`` decided by the device type."""
        if self.kernel_tier in ("cpu", "gpu"):
            return str(self.kernel_tier)
        return "gpu" if device_type == "gpu" else "cpu"


KERNEL_TIERS = ("auto", "cpu", "gpu")
INFERENCE_PRECISIONS = ("f32", "f16")

