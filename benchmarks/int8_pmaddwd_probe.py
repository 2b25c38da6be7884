"""Can PoCL run int8 multiply-adds faster than float ones? A probe of AVX2's ``vpmaddwd`` from OpenCL C.

    python benchmarks/int8_pmaddwd_probe.py [--device cl:1:0] [--blocks 4 6] [--k 1024] [--runs 30]
                                           [--conv 256x256@14k3 64x64@56k3 1024x256@14k1 ...]

Why: issue 18 asks for the int8 ResNet-50 at 1.5x onnxruntime's int8 latency. On a Zen 4 that shows AVX-512,
onnxruntime's int8 run uses VNNI (ResNet-50 18.2 ms against its f32 42.1 ms, 2026-12-07), so 1.5x is 27 ms: about
300 G(2 x multiply-adds)/s, above the fp32 peak of the AVX2 code the pip PoCL emits (229 GFLOP/s). Only an integer
instruction with more multiply-adds per instruction than an FMA can get there. Found this way (2026-12-07, pip PoCL
3.0-rc2, LLVM 14, which targets the Zen 4 as ``znver3``):

- plain OpenCL C (``convert_int8(a.even) * w.even + convert_int8(a.odd) * w.odd`` on short16) becomes
  ``vpmulld`` and shuffles, 48-68 GOP/s, and ``.even`` / ``.odd`` of 16-wide vectors gave wrong values (the PoCL bug
  ../shared/PERF_NOTES.md lists for float16);
- clang's x86 builtin ``__builtin_ia32_pmaddwd256`` compiles in a PoCL kernel (AVX2 is in its target) and gives
  ``vpmaddwd``: 16 multiply-adds of int16 pairs into int32 per instruction, exact. This script's register-tiled
  kernel (P pixels x 16 output channels per work-item, u8 activations as int16 pairs broadcast, int16 weights
  interleaved by pairs of K): 241 GOP/s at P = 4 on the first try, 177-181 at P = 6 and 7 (spills);
- VNNI (``__builtin_ia32_vpdpbusd256`` in a kernel with ``__attribute__((target("avx512vnni,...")))``) aborts the
  whole process: ``LLVM ERROR: Cannot select X86ISD::VPDPBUSD`` in PoCL's generated work-group function, which does
  not inherit the kernel's target features. Never build such a kernel on PoCL 3.0.

``--conv`` adds a direct convolution around the same instruction with real data handling: u8 activations in
b_fs_yx_fsv16 with a zero halo (two adjacent channels read as one ushort and spread to an int16 pair), int16
weights packed [OC/16][C/2][KH][KW][2][8 oc][2 ic], P pixels of a row x 16 output channels per work-item. First
figures (2026-12-07, same VM, two runs, every result exact): 3x3 256 -> 256 @ 14 183-238 GOP/s (P 4, 7),
3x3 64 -> 64 @ 56 205-253, 3x3 512 -> 512 @ 7 189, 1x1 1024 -> 256 @ 14 109-156; the float kernels run these at
150-180 GFLOP/s, and
Winograd does ResNet-50's stride-1 3x3 layers' work in about half the multiply-adds (no exact integer form). So
this first integer form is 1.1-1.4x the direct float kernels on 3x3 layers, slower on 1x1: the int8 ResNet-50
would land near the float path's 38-45 ms, not at 27 ms. Not built into the engine: a kernel would be gated on an
x86 PoCL device (the builtin does not exist elsewhere, and Oclgrind cannot run it).

Prints per P: ms, GOP/s (2 x multiply-adds) and whether the int32 result equals numpy's int64 product; then the
count of ``vpmaddwd`` in PoCL's binaries when ``objdump`` finds them (the probe gives PoCL a fresh POCL_CACHE_DIR, so
every binary there is one of this run's).
"""

from __future__ import annotations

import argparse
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile
import time

import numpy as np

SOURCE = r"""
typedef short v16hi __attribute__((vector_size(32)));
#define MADD(a, b) as_int8(__builtin_ia32_pmaddwd256((v16hi)(a), (v16hi)(b)))
__kernel __attribute__((reqd_work_group_size(1, 1, 1)))
void int8_pmaddwd_probe(__global const int* restrict x2, __global const short16* restrict w,
                        __global int8* restrict out, int k2) {
    /* work-item: P pixels x 16 output channels (two int8 accumulators per pixel);
       x2[p * k2 + k]: pixel p's activations 2k and 2k+1 as two int16; w[(ob * k2 + k) * 2 + h]: the int16 weights
       of channels ob*16 + h*8 .. +8 for K = 2k, 2k+1, interleaved (channel j: lanes 2j, 2j+1) */
    int gid = get_global_id(0), ob = get_global_id(1), nob = get_global_size(1);
    int8 a0[P], a1[P];
    for (int p = 0; p < P; ++p) { a0[p] = 0; a1[p] = 0; }
    __global const int* xp = x2 + gid * P * k2;
    __global const short16* wp = w + ob * 2 * k2;
    for (int k = 0; k < k2; ++k) {
        short16 w0 = wp[2 * k], w1 = wp[2 * k + 1];
        #pragma unroll
        for (int p = 0; p < P; ++p) {
            short16 xv = as_short16((int8)(xp[p * k2 + k]));
            a0[p] += MADD(xv, w0);
            a1[p] += MADD(xv, w1);
        }
    }
    for (int p = 0; p < P; ++p) {
        out[((gid * P + p) * nob + ob) * 2] = a0[p];
        out[((gid * P + p) * nob + ob) * 2 + 1] = a1[p];
    }
}
"""


def count_pmaddwd(cache: pathlib.Path) -> int | None:
    """``vpmaddwd`` instructions in the PoCL binaries under ``cache``, or None without objdump or a binary."""
    objdump = shutil.which("objdump")
    libs = list(cache.rglob("*.so"))
    if objdump is None or not libs:
        return None
    return sum(subprocess.run([objdump, "-d", str(lib)], capture_output=True, text=True, check=False)
               .stdout.count("vpmaddwd") for lib in libs)


def run(device: str, block: int, k: int, runs: int) -> str:
    """One P on ``device``: build, time, check against numpy; the printed row."""
    import pyopencl as cl

    from cldnn_py.device import select_device

    dev, _ = select_device(device)
    ctx = cl.Context([dev])
    q = cl.CommandQueue(ctx)
    try:
        prg = cl.Program(ctx, SOURCE).build(options=[f"-DP={block}"])
        knl = cl.Kernel(prg, "int8_pmaddwd_probe")
    except cl.Error as err:  # not an x86 clang target: the builtin does not exist there
        return f"P={block}: the builtin does not build on {dev.name}: {str(err).splitlines()[0]}"
    k2, noc = k // 2, 256
    npx = (192 // block) * block
    rng = np.random.default_rng(0)
    x = rng.integers(0, 256, (npx, k)).astype(np.int16)               # u8 activation values, as int16
    w = rng.integers(-128, 128, (noc // 16, k2, 2, 8, 2)).astype(np.int16)
    mf = cl.mem_flags
    bx = cl.Buffer(ctx, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=x.view(np.int32).copy())
    bw = cl.Buffer(ctx, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=w)
    bo = cl.Buffer(ctx, mf.WRITE_ONLY, npx * noc * 4)
    gws = (npx // block, noc // 16)
    for _ in range(3):
        knl(q, gws, (1, 1), bx, bw, bo, np.int32(k2)).wait()
    t = time.perf_counter()
    for _ in range(runs):
        knl(q, gws, (1, 1), bx, bw, bo, np.int32(k2))
    q.finish()
    dt = (time.perf_counter() - t) / runs
    out = np.full((npx, noc), -1, np.int32)
    cl.enqueue_copy(q, out, bo)
    q.finish()
    wl = w.transpose(0, 2, 3, 1, 4).reshape(noc, k2, 2)               # channel ob*16 + h*8 + j
    ref = np.einsum("pkj,ckj->pc", x.reshape(npx, k2, 2).astype(np.int64), wl.astype(np.int64))
    return (f"P={block}: {dt * 1e3:.3f} ms, {npx * noc * k * 2 / dt / 1e9:.0f} GOP/s, "
            f"exact: {np.array_equal(out, ref)}")


CONV_SOURCE = r"""
typedef short v16hi __attribute__((vector_size(32)));
#define MADD(a, b) as_int8(__builtin_ia32_pmaddwd256((v16hi)(a), (v16hi)(b)))
__kernel __attribute__((reqd_work_group_size(1, 1, 1)))
void int8_pmaddwd_conv(__global const uchar* restrict x, __global const short16* restrict w,
                       __global int8* restrict out) {
    /* x: u8 [C/16][HP][WP][16] with a zero halo; w: [OC/16][C/2][K][K][2 halves][8 oc][2 ic] int16;
       out: int32 [OC/16][OH][OW][16]; a work-item: P pixels of output row oy x 16 channels of block ob */
    const int xb = get_global_id(0) * P, oy = get_global_id(1), ob = get_global_id(2);
    int8 a0[P], a1[P];
    for (int p = 0; p < P; ++p) { a0[p] = 0; a1[p] = 0; }
    __global const short16* wp = w + ob * (C / 2) * K * K * 2;
    for (int cs = 0; cs < C / 16; ++cs) {
        __global const uchar* xs = x + cs * HP * WP * 16;
        for (int cp = 0; cp < 8; ++cp) {
            for (int ky = 0; ky < K; ++ky) {
                __global const ushort* row = (__global const ushort*)(xs + ((oy + ky) * WP + xb) * 16) + cp;
                #pragma unroll
                for (int kx = 0; kx < K; ++kx) {
                    const short16 w0 = wp[0], w1 = wp[1];
                    wp += 2;
                    #pragma unroll
                    for (int p = 0; p < P; ++p) {
                        const uint v = row[(p + kx) * 8];   /* channels 2cp, 2cp+1 of pixel xb+p+kx */
                        const short16 xv = as_short16((uint8)((v & 0xffu) | ((v & 0xff00u) << 8)));
                        a0[p] += MADD(xv, w0);
                        a1[p] += MADD(xv, w1);
                    }
                }
            }
        }
    }
    for (int p = 0; p < P && xb + p < OW; ++p) {
        __global int8* o = out + ((ob * OH + oy) * OW + xb + p) * 2;
        o[0] = a0[p];
        o[1] = a1[p];
    }
}
"""


def run_conv(device: str, shape: str, block: int, runs: int) -> str:
    """One convolution ``CxOC@HWkK`` (stride 1, same padding) at P = ``block``: build, time, check; the row."""
    import re

    import pyopencl as cl

    from cldnn_py.device import select_device

    m = re.fullmatch(r"(\d+)x(\d+)@(\d+)k(\d+)", shape)
    if m is None:
        raise SystemExit(f"--conv {shape!r}: expected CxOC@HWkK, e.g. 256x256@14k3")
    c, oc, hw, k = (int(v) for v in m.groups())
    if c % 16 or oc % 16 or k % 2 == 0:
        raise SystemExit(f"--conv {shape!r}: channels must be multiples of 16 and K odd")
    pad = k // 2
    hp, wpd = hw + 2 * pad, hw + 2 * pad + block  # slack columns: the last block reads past the row
    dev, _ = select_device(device)
    ctx = cl.Context([dev])
    q = cl.CommandQueue(ctx)
    opts = [f"-D{n}={v}" for n, v in (("P", block), ("C", c), ("K", k), ("HP", hp), ("WP", wpd), ("OH", hw),
                                      ("OW", hw))]
    try:
        knl = cl.Kernel(cl.Program(ctx, CONV_SOURCE).build(options=opts), "int8_pmaddwd_conv")
    except cl.Error as err:
        return f"{shape} P={block}: does not build on {dev.name}: {str(err).splitlines()[0]}"
    rng = np.random.default_rng(0)
    x = rng.integers(0, 256, (c, hw, hw)).astype(np.uint8)
    w = rng.integers(-128, 128, (oc, c, k, k)).astype(np.int16)
    xp = np.zeros((c // 16, hp, wpd, 16), np.uint8)
    xp[:, pad:pad + hw, pad:pad + hw, :] = x.reshape(c // 16, 16, hw, hw).transpose(0, 2, 3, 1)
    wpk = w.reshape(oc // 16, 2, 8, c // 2, 2, k, k).transpose(0, 3, 5, 6, 1, 2, 4).copy()
    mf = cl.mem_flags
    bx = cl.Buffer(ctx, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=xp)
    bw = cl.Buffer(ctx, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=wpk)
    bo = cl.Buffer(ctx, mf.WRITE_ONLY, oc * hw * hw * 4)
    gws = (-(-hw // block), hw, oc // 16)
    for _ in range(3):
        knl(q, gws, (1, 1, 1), bx, bw, bo).wait()
    t = time.perf_counter()
    for _ in range(runs):
        knl(q, gws, (1, 1, 1), bx, bw, bo)
    q.finish()
    dt = (time.perf_counter() - t) / runs
    out = np.full((oc // 16, hw, hw, 16), -1, np.int32)
    cl.enqueue_copy(q, out, bo)
    q.finish()
    got = out.transpose(0, 3, 1, 2).reshape(oc, hw, hw)
    xpad = np.pad(x.astype(np.int64), ((0, 0), (pad, pad), (pad, pad)))
    ref = np.zeros((oc, hw, hw), np.int64)
    for ky in range(k):
        for kx in range(k):
            ref += np.einsum("oc,chw->ohw", w[:, :, ky, kx].astype(np.int64), xpad[:, ky:ky + hw, kx:kx + hw])
    return (f"{k}x{k} {c} -> {oc} @ {hw} P={block}: {dt * 1e3:.3f} ms, "
            f"{oc * c * k * k * hw * hw * 2 / dt / 1e9:.0f} GOP/s, exact: {np.array_equal(got, ref)}")


def main() -> int:
    """Print one row per --blocks value; exit status 1 when a result is wrong."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--device", default="cl:1:0", help="an OpenCL device spec (cldnn_py's cl:P:D)")
    ap.add_argument("--blocks", nargs="+", type=int, default=[4, 6], help="pixels per work-item")
    ap.add_argument("--k", type=int, default=1024, help="reduction length (even)")
    ap.add_argument("--runs", type=int, default=30)
    ap.add_argument("--conv", nargs="*", default=[], metavar="CxOC@HWkK",
                    help="also time the convolution probe on these shapes (at each --blocks P)")
    args = ap.parse_args()
    sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))
    cache = pathlib.Path(tempfile.mkdtemp(prefix="pmaddwd_probe_"))
    os.environ["POCL_CACHE_DIR"] = str(cache)  # PoCL reads it when its platform starts (cldnn_py leaves a set one)
    try:
        rows = [run(args.device, p, args.k, args.runs) for p in args.blocks]
        rows += [run_conv(args.device, shape, p, args.runs) for shape in args.conv for p in args.blocks]
        n = count_pmaddwd(cache)
    finally:
        shutil.rmtree(cache, ignore_errors=True)
    print("\n".join(rows))
    print(f"vpmaddwd instructions in PoCL's binaries: {'? (no objdump or binary)' if n is None else n}")
    return 1 if any("exact: False" in r for r in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
