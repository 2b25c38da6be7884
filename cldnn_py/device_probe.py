"""What a device's OpenCL compiler makes fast, measured once per device: the load form of the vector kernels.

Measured on this project's CPU: the pip PoCL (3.0-rc2, LLVM 14) turns ``vload8``/``vstore8`` into function
calls that spill every accumulator (52 GFLOP/s instead of 180), while aligned vector-pointer access
(``((const __global float8*)p)[i]``) compiles to plain loads; a PoCL 3.1 with LLVM 15 inlines both. So the form is
not hard-coded to one PoCL: :func:`probe_load_form` times a register-tiled micro-kernel (the inner loop of the fsv16
convolution: 2 float8 weights, 4 broadcasts, 8 FMAs per step) in both forms and picks the faster (pointer on a
tie within 10%, since it also needs no builtin). The result is kept in the tuning cache under the device's key;
the kernels get it as ``Params.device_caps["load_form"]`` and compile ``LOAD_FORM`` into their ``LD8``/``ST8``.

:func:`binary_calls` counts ``call`` instructions in the compiled kernel when PoCL's cache and ``objdump`` are
there (a diagnostic printed by ``cldnn-py devices --probe``; the choice itself rests on the timing).
"""

from __future__ import annotations

import logging
import os
import re
import shutil
import statistics
import subprocess
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from .ocl_engine import OclEngine

if TYPE_CHECKING:
    from kernel_selector.tuning_cache import TuningCache

    from .engine import Engine

log = logging.getLogger("cldnn_py.device_probe")

LOAD_FORMS = ("pointer", "vload")
DEFAULT_CAPS: dict[str, str] = {"load_form": "pointer"}
PROBE_K = 512
PROBE_ITEMS = 512
TIE = 1.10  # vload must be this much faster to be chosen

_SRC = """
#if LOAD_FORM
#define PLD8(p, i) vload8((i), (p))
#define PST8(p, i, v) vstore8((v), (i), (p))
#else
#define PLD8(p, i) (((const __global float8*)(p))[i])
#define PST8(p, i, v) (((__global float8*)(p))[i] = (v))
#endif
__attribute__((reqd_work_group_size(1, 1, 1)))
__kernel void NAME(const __global float* x, const __global float* w, __global float* y)
{
    const int g = get_global_id(0);
    float8 a0[4], a1[4];
    for (int p = 0; p < 4; ++p) { a0[p] = (float8)(0.0f); a1[p] = (float8)(0.0f); }
    const __global float* xp = x + g * 4 * K;
    for (int k = 0; k < K; ++k) {
        const float8 w0 = PLD8(w + k * 16, 0);
        const float8 w1 = PLD8(w + k * 16, 1);
        __attribute__((opencl_unroll_hint))
        for (int p = 0; p < 4; ++p) {
            const float v = xp[p * K + k];
            a0[p] = v * w0 + a0[p];
            a1[p] = v * w1 + a1[p];
        }
    }
    for (int p = 0; p < 4; ++p) {
        PST8(y + (g * 4 + p) * 16, 0, a0[p]);
        PST8(y + (g * 4 + p) * 16, 1, a1[p]);
    }
}
#undef PLD8
#undef PST8
"""


def _source(form: str) -> tuple[str, str]:
    name = f"cldnn_py_probe_load_{form}"
    return name, (f"#define LOAD_FORM {int(form == 'vload')}\n#define K {PROBE_K}\n"
                  + _SRC.replace("NAME", name) + "#undef LOAD_FORM\n#undef K\n")


def time_load_forms(engine: OclEngine, runs: int = 7) -> dict[str, float]:
    """{form: GFLOP/s (median of ``runs`` after a warm-up)} of the probe kernel, checked against numpy (a wrong
    result raises RuntimeError: the form is then not usable on this device)."""
    import pyopencl as cl

    rng = np.random.default_rng(0)
    x = rng.standard_normal((PROBE_ITEMS * 4, PROBE_K)).astype(np.float32)
    w = rng.standard_normal((PROBE_K, 16)).astype(np.float32)
    expect = x.astype(np.float64) @ w.astype(np.float64)
    mf = cl.mem_flags
    xb = cl.Buffer(engine.context, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=x)
    wb = cl.Buffer(engine.context, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=w)
    yb = cl.Buffer(engine.context, mf.READ_WRITE, size=expect.size * 4)
    flop = 2.0 * expect.size * PROBE_K
    out: dict[str, float] = {}
    for form in LOAD_FORMS:
        name, src = _source(form)
        knl = cl.Kernel(engine.build(src), name)
        knl.set_args(xb, wb, yb)
        times = []
        for r in range(runs + 1):
            ev = cl.enqueue_nd_range_kernel(engine.queue, knl, (PROBE_ITEMS,), (1,))
            ev.wait()
            if r:
                times.append((ev.profile.end - ev.profile.start) * 1e-9)
        y = np.empty(expect.shape, np.float32)
        cl.enqueue_copy(engine.queue, y, yb).wait()
        err = float(np.abs(y - expect).max() / np.abs(expect).max())
        if not err < 1e-4:
            raise RuntimeError(f"device probe: the {form} form computed a wrong result (rel. error {err:.2e})")
        out[form] = flop / statistics.median(times) * 1e-9
    return out


def probe_load_form(engine: OclEngine) -> dict[str, Any]:
    """``{"load_form": "pointer" | "vload", "gflops": {form: GFLOP/s}}`` measured on ``engine`` now. A form that
    fails (build error, wrong result) is reported with 0 GFLOP/s and never chosen."""
    from .errors import KernelBuildError

    try:
        g = time_load_forms(engine)
    except (KernelBuildError, RuntimeError) as err:
        log.warning("device probe failed (%s); keeping the pointer form", err)
        return {"load_form": "pointer", "gflops": {}}
    form = "vload" if g["vload"] > TIE * g["pointer"] else "pointer"
    log.info("device probe on %s: pointer %.0f GFLOP/s, vload %.0f GFLOP/s -> %s", engine.info.name,
             g["pointer"], g["vload"], form)
    return {"load_form": form, "gflops": {k: round(v, 1) for k, v in g.items()}}


def device_caps(engine: Engine, cache: TuningCache | None, mode: str) -> dict[str, str]:
    """The caps kernels compile against: ``load_form``, the stored probe result for this device (in tuning mode
    "tune" the probe runs, and is stored, when nothing is stored; otherwise, or with no cache, :data:`DEFAULT_CAPS`'s)
    and ``registers`` ("wide" | "narrow": the stored register probe, run likewise in "tune" mode, else
    :func:`cldnn_py.register_probe.registers_by_rule`). ``{}`` for the CPU engine."""
    if not isinstance(engine, OclEngine):
        return {}
    from .register_probe import REGISTERS, probe_registers, registers_by_rule

    regs = cache.lookup_device(engine.info, "registers") if cache is not None else None
    if regs is None and mode == "tune" and cache is not None:
        regs = probe_registers(engine)
        cache.store_device(engine.info, "registers", regs)
    registers = str(regs["registers"]) if regs and regs.get("registers") in REGISTERS \
        else _rule(engine.info, registers_by_rule)
    if cache is None:
        return dict(DEFAULT_CAPS, registers=registers)
    stored = cache.lookup_device(engine.info, "load_form")
    if stored is None and mode == "tune":
        stored = probe_load_form(engine)
        cache.store_device(engine.info, "load_form", stored)
    if stored is None or stored.get("load_form") not in LOAD_FORMS:
        return dict(DEFAULT_CAPS, registers=registers)
    return {"load_form": str(stored["load_form"]), "registers": registers}


_RULES: dict[str, str] = {}


def _rule(info: Any, rule: Any) -> str:
    """``rule(info)`` memoized per device spec and platform (it reads /proc/cpuinfo)."""
    key = f"{info.spec}|{info.name}|{info.platform_version}"
    if key not in _RULES:
        _RULES[key] = rule(info)
    return _RULES[key]


def binary_calls(entry: str) -> int | None:
    """``call`` instructions in PoCL's compiled binary of kernel ``entry`` (searched under POCL_CACHE_DIR or
    ~/.cache/pocl), or None when the binary or ``objdump`` is not there."""
    objdump = shutil.which("objdump")
    root = Path(os.environ.get("POCL_CACHE_DIR") or Path.home() / ".cache" / "pocl")
    if objdump is None or not root.is_dir():
        return None
    sos = sorted(root.rglob(f"{entry}.so"), key=lambda p: p.stat().st_mtime)
    if not sos:
        return None
    text = subprocess.run([objdump, "-d", "--no-show-raw-insn", str(sos[-1])], capture_output=True, text=True,
                          check=False).stdout
    return sum(1 for line in text.splitlines() if re.match(r"\s*[0-9a-f]+:\s+call", line))
