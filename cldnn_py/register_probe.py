"""How many float16 accumulators a CPU device's OpenCL compiler keeps in registers, measured once per device.

``convolution_b_fs_yx_fsv16`` holds one float16 accumulator per output pixel on devices whose native float vector
is 16 wide, and its default pixel block (P = 14, up to 4 output slices at once) assumes the compiler keeps them in
the 32 zmm registers of AVX-512 code. That held on a Zen 5 with PoCL 3.1 (LLVM 15). The pip PoCL (3.0-rc2, LLVM 14)
on a Zen 4 reports the same native width 16 but compiles 256-bit code (LLVM 14 does not know the CPU and falls back
to an AVX2 target): each float16 takes two of 16 ymm registers, P = 14 spills, and ResNet-50's convolutions ran at
60-100 GFLOP/s instead of 150-160 with P = 4 (``benchmarks/conv_kernels.py --blocks 4 6 14``, 2026-11-25).

So the width is not assumed from the native vector width alone. By default :func:`registers_by_rule` decides from
what the compiler can know: PoCL built on LLVM before 16 (which has no Zen 4 target: its host-CPU query names an
AMD family-25 CPU ``znver3``, an AVX2 target) on an AMD family-25 CPU compiles 256-bit code: ``narrow``. Every
other device: ``wide``. On request (``cldnn-py devices --probe``, or a build with ``tuning="tune"``) the width is
measured instead: :func:`probe_registers` times the convolution kernel itself on one layer (3x3, 64 -> 64 channels,
28 x 28, blocked) with P = 4 and P = 14 and calls the registers ``narrow`` when P = 14 is slower than
:data:`NARROW_BELOW` of P = 4; the result is stored in the tuning cache (``device:registers``) and wins over the
rule. (The timing is noisy on a shared 2-core VM, about ±15%, and costs two kernel builds, up to 3 s on the pip
PoCL: that is why it is not run by default. A micro-kernel of the inner loop alone did not show the spills.)
The kernels read the answer as ``Params.device_caps["registers"]``: on a narrow device the convolution takes its
two-float8 form, the one written and tuned for 16 ymm registers (since 2026-12-07; before, float16 accumulators at
P <= 4, 3-15% slower per network on the Zen 4 VM: ``convolution_kernel_b_fs_yx_fsv16.vec16``).
"""

from __future__ import annotations

import logging
import re
import statistics
from pathlib import Path
from typing import Any

import numpy as np

from .ocl_engine import OclEngine

log = logging.getLogger("cldnn_py.register_probe")

REGISTERS = ("wide", "narrow")

PROBE_BLOCKS = (4, 14)
NARROW_BELOW = 0.9
"""The rate at P = 14 below this share of the rate at P = 4 means the accumulators spill: narrow registers."""
PROBE_SHAPE = (1, 64, 28, 28)


def time_blocks(engine: OclEngine, runs: int = 5) -> dict[int, float]:
    """{P: GFLOP/s (median of ``runs`` after a warm-up)} of ``convolution_b_fs_yx_fsv16`` on PROBE_SHAPE for each P
    of PROBE_BLOCKS; the outputs must agree (else RuntimeError)."""
    from kernel_selector import Params
    from kernel_selector.kernels.convolution.convolution_kernel_b_fs_yx_fsv16 import ConvolutionKernelBFsYxFsv16

    from .layout import DataType, Format, Layout
    from .ops import ConvolutionAttrs

    f32 = DataType.f32
    n, c, h, w = PROBE_SHAPE
    lays = [Layout(f32, Format.b_fs_yx_fsv16, PROBE_SHAPE), Layout(f32, Format.os_iyx_osv16, (c, c, 3, 3)),
            Layout(f32, Format.bfyx, (c,))]
    out_l = Layout(f32, Format.b_fs_yx_fsv16, PROBE_SHAPE)
    params = Params("convolution", "ocl", lays, out_l, ConvolutionAttrs(pad=(1, 1), pad_end=(1, 1)),
                    device=engine.info, caps=engine.info.caps)
    rng = np.random.default_rng(0)
    mems = []
    for lay in lays:
        mems.append(engine.allocate(lay))
        engine.write_buffer(mems[-1].buffer, lay.to_physical(rng.standard_normal(lay.shape).astype(np.float32)))
    out = engine.allocate(out_l)
    kernel = ConvolutionKernelBFsYxFsv16()
    rates: dict[int, float] = {}
    results = []
    for p in PROBE_BLOCKS:
        (kc,) = kernel.kernel_data(params, {"block": p, "loop_order": 0, "oc_blocks": 1}).kernels
        bound = engine.bind(kc, lambda kind, i: mems[i].buffer if kind == "input" else out.buffer)
        times = []
        for r in range(runs + 1):
            ev = engine.enqueue_kernel(bound, kc.gws, kc.lws)
            ev.wait()
            if r:
                times.append((ev.profile.end - ev.profile.start) * 1e-9)
        raw = np.empty(out_l.buffer_size, np.float32)
        engine.read_buffer(out.buffer, raw)
        results.append(out_l.from_physical(raw))
        rates[p] = 2.0 * n * c * h * w * c * 9 / statistics.median(times) * 1e-9
    err = float(np.abs(results[0] - results[1]).max() / np.abs(results[0]).max())
    if not err < 1e-4:
        raise RuntimeError(f"register probe: the two blocks disagree (rel. difference {err:.2e})")
    return rates


def probe_registers(engine: OclEngine) -> dict[str, Any]:
    """``{"registers": "wide" | "narrow", "gflops": {P: GFLOP/s}}`` measured on ``engine`` now; ``wide`` without
    measuring where it cannot matter (not a CPU device, a native float vector under 16, a simulator) or when the
    probe fails (build error, disagreeing results: logged)."""
    from .errors import CldnnError

    caps = engine.info.caps
    if caps.device_type != "cpu" or int(caps.native_vector_width_float) < 16 or caps.simulator:
        return {"registers": "wide", "gflops": {}}
    try:
        g = time_blocks(engine)
    except (CldnnError, RuntimeError, ValueError) as err:
        log.warning("register probe failed (%s); assuming wide registers", err)
        return {"registers": "wide", "gflops": {}}
    lo, hi = PROBE_BLOCKS
    regs = "narrow" if g[hi] < NARROW_BELOW * g[lo] else "wide"
    log.info("register probe on %s: P=%d %.0f GFLOP/s, P=%d %.0f GFLOP/s -> %s", engine.info.name, lo, g[lo], hi,
             g[hi], regs)
    return {"registers": regs, "gflops": {str(k): round(v, 1) for k, v in g.items()}}


def _cpu_family(cpuinfo: str) -> tuple[str, int] | None:
    """(vendor_id, cpu family) of the first processor in ``/proc/cpuinfo`` text, or None."""
    vendor = re.search(r"^vendor_id\s*:\s*(\S+)", cpuinfo, re.M)
    family = re.search(r"^cpu family\s*:\s*(\d+)", cpuinfo, re.M)
    return (vendor.group(1), int(family.group(1))) if vendor and family else None


def registers_by_rule(info: Any, cpuinfo: str | None = None) -> str:
    """``"narrow"`` for a PoCL CPU device built on LLVM < 16 whose host is an AMD family-25 CPU (Zen 3 and Zen 4:
    LLVM before 16 targets them as ``znver3``, AVX2), else ``"wide"``. ``info``: a :class:`cldnn_py.device.DeviceInfo`
    (its caps and platform_version, e.g. "OpenCL 3.0 PoCL 3.0-rc2 ... LLVM 14.0.6 ..."); ``cpuinfo``: the text of
    ``/proc/cpuinfo`` (read when None; a missing file gives "wide")."""
    caps = info.caps
    if caps.device_type != "cpu" or int(caps.native_vector_width_float) < 16 or caps.simulator:
        return "wide"
    m = re.search(r"PoCL.*LLVM (\d+)", str(info.platform_version))
    if not m or int(m.group(1)) >= 16:
        return "wide"
    if cpuinfo is None:
        try:
            cpuinfo = Path("/proc/cpuinfo").read_text(errors="replace")
        except OSError:
            return "wide"
    vf = _cpu_family(cpuinfo)
    return "narrow" if vf == ("AuthenticAMD", 25) else "wide"
