"""Tensor sizes, pitches and offsets as kernel arguments instead of ``#define``s, so that one binary serves every
shape of a kernel.

Why: PoCL's CPU driver keeps the dlopen()ed work-group functions of at most 128 kernels (``MAX_CACHE_ITEMS`` of its
dlhandle cache, least recently used first out). A network that runs more distinct kernels than that per inference
reloads a shared object for every launch once the cache cycles: about 160 µs each on 2 Zen 4 cores, measured with
a chain of 100 vs 200 distinct activation kernels (8 vs 163 µs between kernels). DenseNet-121 has 198 distinct
kernels, because every layer's channel count is a jit constant: 29 ms of its 70 ms run were such gaps. Kernels
that take their shapes as arguments compile once for all layers (the source, hence the binary, is the same).

:func:`move_shapes_to_args` rewrites a kernel's :class:`~kernel_selector.jitter.JitConstants` in place: each
named tensor's ``_BATCH_NUM``, ``_FEATURE_NUM``, ``_SIZE_Y``, ``_SIZE_X``, ``_LENGTH``, pitches and ``_OFFSET``
become references to ``int`` parameters (declared by the ``RUNTIME_SHAPE_ARGS`` macro, to end the kernel's
parameter list), its ``_GET_INDEX`` and padding constants are dropped (their bodies hold literal pitches), and the
matching :class:`~kernel_selector.kernel_base.Arg` values are returned in declaration order. The template must not
use those names in ``#if`` (they are no longer preprocessor constants) nor use ``GET_INDEX`` of those tensors.
"""

from __future__ import annotations

from ..jitter import JitConstants
from ..kernel_base import Arg

FIELDS = ("BATCH_NUM", "FEATURE_NUM", "SIZE_Y", "SIZE_X", "LENGTH", "BATCH_PITCH", "FEATURE_PITCH", "Y_PITCH",
          "X_PITCH", "OFFSET")
"""The per-tensor constants that become arguments."""

DROPPED = ("_GET_INDEX(", "_PAD_BEFORE_", "_PAD_AFTER_")
"""Per-tensor constants removed (their values depend on the shape)."""


def move_shapes_to_args(jit: JitConstants, tensors: list[str], extra: dict[str, int] | None = None) -> list[Arg]:
    """Turn ``tensors``' (jitter names: ``INPUT0``, ``OUTPUT`` ...) shape constants, and the ``extra`` {name: value}
    constants, into ``int`` kernel parameters; returns their Args in the order ``RUNTIME_SHAPE_ARGS`` declares
    them. Raises KeyError for a tensor the jit does not describe."""
    decl: list[str] = []
    args: list[Arg] = []
    for t in tensors:
        if f"{t}_FEATURE_NUM" not in jit:
            raise KeyError(f"move_shapes_to_args: the jit has no tensor {t}")
        for f in FIELDS:
            key = f"{t}_{f}"
            value = int(jit[key])
            param = f"rs_{t.lower()}_{f.lower()}"
            jit.add(key, param)
            decl.append(f"int {param}")
            args.append(Arg("int", value))
        jit.drop([f"{t}{d}" for d in DROPPED])
    for key, value in (extra or {}).items():
        param = f"rs_{key.lower()}"
        jit.add(key, param)
        decl.append(f"int {param}")
        args.append(Arg("int", int(value)))
    jit.add("RUNTIME_SHAPE_ARGS", "".join(f", {d}" for d in decl))
    return args
