"""Whether the host runs 512-bit fused multiply-adds at full rate: the CPU fact the CPU engine's tile rules turn on.

AVX-512 cores differ in how many 512-bit FMAs they retire per cycle. AMD Zen 4 splits each into two 256-bit halves
(one zmm FMA per cycle per core, the rate of AVX2 code); Zen 5 (server parts) and Intel's server cores from
Skylake-SP on have two full-width 512-bit FMA pipes (two per cycle). With a 4-cycle FMA latency a register tile
needs (pipes × latency) independent accumulators to keep the pipes busy: 4 on a half-rate core, 8 on a full-rate
one, and the loads, prefetches and address arithmetic of each reduction step weigh twice as much against FMAs
that take half the time. So a tile that was the better choice on Zen 4 (the channel-vector kernel's 8 pixels × 16
channels: 8 accumulators, 9 loads per 8 FMAs) runs well below the wide one (7 × 32: 14 accumulators) on Zen 5:
ResNet-50's 64 -> 64 3×3 layer at 56×56, one thread, 262 against 417 GFLOP/s (2-core Zen 5 VM, 2026-12-07).

There is no CPUID bit for the rate, so it is read from the CPU model LLVM names for the host (the name numba
compiles for): a table of the models known to have two 512-bit FMA pipes. ``CLDNN_PY_CPU_FULL_512`` (``1`` or
``0``) overrides it, for a part the table gets wrong (some Xeon Silver and Bronze models have one 512-bit FMA pipe
under a full-rate model name) or for A/B measurements; ``NUMBA_CPU_NAME``, when set, is the model numba compiles
for and is read instead of the host's.
"""

from __future__ import annotations

import os

FULL_RATE_512_CPUS = frozenset({
    "znver5",
    "skylake-avx512", "cascadelake", "cooperlake", "icelake-server", "sapphirerapids", "emeraldrapids",
    "graniterapids", "graniterapids-d", "diamondrapids",
})
"""LLVM CPU model names of cores with two full-width 512-bit FMA pipes (AMD's and Intel's optimization manuals)."""


def host_cpu_name() -> str:
    """The CPU model numba compiles for: ``NUMBA_CPU_NAME`` when set (other than ``host``), else LLVM's name for the
    host (``znver5``, ``skylake-avx512`` ...; ``generic`` when LLVM does not know it)."""
    name = os.environ.get("NUMBA_CPU_NAME", "")
    if name and name != "host":
        return name
    from llvmlite import binding

    return str(binding.get_host_cpu_name())


def full_rate_512(cpu_name: str | None = None) -> bool:
    """True when the host (or the CPU model ``cpu_name``) retires two 512-bit FMAs per cycle per core (see the module
    docstring). ``CLDNN_PY_CPU_FULL_512`` = ``1`` / ``0`` overrides the table. Raises ValueError for any other value
    of that variable."""
    forced = os.environ.get("CLDNN_PY_CPU_FULL_512", "")
    if forced:
        if forced not in ("0", "1"):
            raise ValueError(f"CLDNN_PY_CPU_FULL_512: expected 0 or 1, got {forced!r}")
        return forced == "1"
    return (cpu_name if cpu_name is not None else host_cpu_name()) in FULL_RATE_512_CPUS
