"""Fast CPU convolutions vs the CPU reference and numpy/OpenBLAS, on ResNet-50's 53 convolutions (batch 1).

    env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE python benchmarks/cpu_kernels.py [--runs 5] [--shapes NAME ...] [--all]

Per unique shape (count = how many of the 53 convolutions have it), kernels are called directly on physical
buffers (no Program), with bias and a fused relu, each kernel's runs in one block after a 0.5 s pause and three warm-up
calls (run round-robin, a numba kernel right after a BLAS call found OpenBLAS's threads still spinning on the
cores, and measured half its speed):
- ``fsv16``: ``convolution_cpu_fsv16`` on b_fs_yx_fsv16 data whose padding holds the zero halo (what
  prepare_padding gives it in a network), os_iyx_osv16 weights;
- ``gemm16``: ``convolution_cpu_gemm`` on the same blocked layouts (it unpacks the packed weights on each run);
- ``packed``: ``convolution_cpu_packed`` (the packed-panel GEMM with the LLVM-IR micro-kernel) on bfyx data and
  os_iyx_osv16 weights, the CPU engine's choice in a network;
- ``gemm``: ``convolution_cpu_gemm`` on bfyx data and oiyx weights;
- ``ref``: ``convolution_cpu_ref`` (bfyx, oiyx);
- ``numpy``: im2col by a strided view + ``np.matmul`` + bias + relu (the 64 ms baseline).
Times are medians in ms; ``pick`` is the kernel the selector chooses for bfyx data and packed weights (the network
case); the last two columns are GFLOP/s of ``packed`` and ``numpy`` (issue 16's target: 150 for the GEMM path).
Columns by default: packed, gemm, numpy; ``--all`` adds fsv16, gemm16 and ref (slow).
OPENBLAS_CORETYPE / OPENBLAS_L2_SIZE slow OpenBLAS on these machines: unset them in the command, as above.
"""

from __future__ import annotations

import argparse
import pathlib
import sys
import time

import numpy as np
from numpy.lib.stride_tricks import as_strided

ROOT = pathlib.Path(__file__).resolve().parents[1]
# the pause before each kernel's block: OpenBLAS's threads spin about 0.1 s after a call (THREAD_TIMEOUT, 2^28
# cycles) and a numba kernel sharing the two cores with them measured 3-5x slow after a 0.1 s pause
PAUSE_S = 0.5
sys.path.insert(0, str(ROOT))

from cldnn_py.cpu_engine import aligned_bytes  # noqa: E402
from cldnn_py.layout import DataType, Format, Layout, Padding  # noqa: E402
from cldnn_py.ops import ConvolutionAttrs, FusedActivationAttrs  # noqa: E402
from kernel_selector.params import FusedOp, Params  # noqa: E402
from kernel_selector.selector import candidates, selector  # noqa: E402

# name: (C, H=W, OC, K, stride, pad, count in ResNet-50 v1.5)
SHAPES = {
    "conv1_7x7s2_3_224": (3, 224, 64, 7, 2, 3, 1),
    "1x1_64_64_56": (64, 56, 64, 1, 1, 0, 1),
    "3x3_64_56": (64, 56, 64, 3, 1, 1, 3),
    "1x1_64_256_56": (64, 56, 256, 1, 1, 0, 4),
    "1x1_256_64_56": (256, 56, 64, 1, 1, 0, 2),
    "1x1_256_128_56": (256, 56, 128, 1, 1, 0, 1),
    "3x3s2_128_56": (128, 56, 128, 3, 2, 1, 1),
    "1x1_128_512_28": (128, 28, 512, 1, 1, 0, 4),
    "1x1s2_256_512_56": (256, 56, 512, 1, 2, 0, 1),
    "1x1_512_128_28": (512, 28, 128, 1, 1, 0, 3),
    "3x3_128_28": (128, 28, 128, 3, 1, 1, 3),
    "1x1_512_256_28": (512, 28, 256, 1, 1, 0, 1),
    "3x3s2_256_28": (256, 28, 256, 3, 2, 1, 1),
    "1x1_256_1024_14": (256, 14, 1024, 1, 1, 0, 6),
    "1x1s2_512_1024_28": (512, 28, 1024, 1, 2, 0, 1),
    "1x1_1024_256_14": (1024, 14, 256, 1, 1, 0, 5),
    "3x3_256_14": (256, 14, 256, 3, 1, 1, 5),
    "1x1_1024_512_14": (1024, 14, 512, 1, 1, 0, 1),
    "3x3s2_512_14": (512, 14, 512, 3, 2, 1, 1),
    "1x1_512_2048_7": (512, 7, 2048, 1, 1, 0, 3),
    "1x1s2_1024_2048_14": (1024, 14, 2048, 1, 2, 0, 1),
    "1x1_2048_512_7": (2048, 7, 512, 1, 1, 0, 2),
    "3x3_512_7": (512, 7, 512, 3, 1, 1, 2),
}
F32 = DataType.f32


def make_params(c, hw, oc, k, s, p, blocked, packed=False):
    """Params of one convolution with bias and a fused relu; blocked: fsv16 data with a zero halo + packed weights;
    packed: bfyx data with packed weights."""
    oh = (hw + 2 * p - k) // s + 1
    if blocked:
        lo = (0, 0, p, p)
        hi = (0, 0, max(0, (oh - 1) * s - p + k - hw), max(0, (oh - 1) * s - p + k - hw))
        x = Layout(F32, Format.b_fs_yx_fsv16, (1, c, hw, hw), Padding(lo, hi))
        w = Layout(F32, Format.os_iyx_osv16, (oc, c, k, k))
        out = Layout(F32, Format.b_fs_yx_fsv16, (1, oc, oh, oh))
    else:
        x = Layout(F32, Format.bfyx, (1, c, hw, hw))
        w = Layout(F32, Format.os_iyx_osv16 if packed else Format.oiyx, (oc, c, k, k))
        out = Layout(F32, Format.bfyx, (1, oc, oh, oh))
    return Params("convolution", "cpu", [x, w, Layout(F32, Format.bfyx, (oc,))], out,
                  ConvolutionAttrs(stride=(s, s), dilation=(1, 1), pad=(p, p), pad_end=(p, p), groups=1),
                  [FusedOp("activation", FusedActivationAttrs("relu"))])


def kernel_runner(name, params, arrays):
    """A no-argument callable running kernel ``name`` on buffers holding ``arrays``, and its output reader."""
    kernel = next(k for k in candidates("convolution") if k.name == name)
    why = kernel.validate(params)
    assert why is None, why
    fn = kernel.kernel_data(params).kernels[0].fn
    bufs = []
    for lay, arr in zip(params.inputs, arrays):
        b = aligned_bytes(lay.bytes)
        b[:] = lay.to_physical(arr).view(np.uint8)
        bufs.append(b)
    out = aligned_bytes(params.output.bytes)
    return (lambda: fn(*bufs, out)), (lambda: params.output.from_physical(out.view(np.float32)))


def numpy_runner(x, w, b, k, s, p):
    """im2col (strided view + copy) + np.matmul + bias + relu, on plain arrays."""
    oc = w.shape[0]
    wm = w.reshape(oc, -1)
    c, hw = x.shape[1], x.shape[2]
    oh = (hw + 2 * p - k) // s + 1

    def run():
        xp = np.pad(x[0], ((0, 0), (p, p), (p, p))) if p else x[0]
        sc, sh, sw = xp.strides
        cols = np.ascontiguousarray(as_strided(xp, (c, k, k, oh, oh), (sc, sh, sw, sh * s, sw * s)))
        y = np.matmul(wm, cols.reshape(c * k * k, oh * oh))
        y += b[:, None]
        return np.maximum(y, 0, out=y)
    return run


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--shapes", nargs="*", default=list(SHAPES))
    ap.add_argument("--all", action="store_true", help="also the direct fsv16, gemm16 and reference kernels (slow)")
    args = ap.parse_args()
    rng = np.random.default_rng(0)
    cols = ["packed", "gemm", "numpy"] + (["fsv16", "gemm16", "ref"] if args.all else [])
    flops = 0.0
    totals = dict.fromkeys(cols + ["picked"], 0.0)
    print(f"{'shape':22s} {'n':>2s} " + " ".join(f"{c:>8s}" for c in cols) + f"  {'GF/s':>6s} {'numpy':>6s}  pick"
          " (ms per conv, median)")
    for name in args.shapes:
        c, hw, oc, k, s, p, count = SHAPES[name]
        x = rng.standard_normal((1, c, hw, hw)).astype(np.float32)
        w = (rng.standard_normal((oc, c, k, k)) / np.sqrt(c * k * k)).astype(np.float32)
        b = rng.standard_normal(oc).astype(np.float32)
        pb, pp = make_params(c, hw, oc, k, s, p, True), make_params(c, hw, oc, k, s, p, False)
        pk = make_params(c, hw, oc, k, s, p, False, packed=True)
        runs = {"packed": kernel_runner("convolution_cpu_packed", pk, [x, w, b]),
                "gemm": kernel_runner("convolution_cpu_gemm", pp, [x, w, b])}
        if args.all:
            runs["fsv16"] = kernel_runner("convolution_cpu_fsv16", pb, [x, w, b])
            runs["gemm16"] = kernel_runner("convolution_cpu_gemm", pb, [x, w, b])
            runs["ref"] = kernel_runner("convolution_cpu_ref", pp, [x, w, b])
        np_run = numpy_runner(x, w, b, k, s, p)
        runs["numpy"] = (np_run, lambda f=np_run, shape=pp.output.shape: f().reshape(shape))
        expect = None
        for key in cols:
            run, read = runs[key]
            run()
            got = read().astype(np.float64)
            expect = got if expect is None else expect
            err = np.abs(got - expect).max() / max(np.abs(expect).max(), 1e-6)
            assert err < 1e-4, f"{name} {key}: relative error {err}"
        times = {key: [] for key in cols}
        for key in cols:  # each kernel's runs in a block after a pause: OpenBLAS's threads spin for a while after
            time.sleep(PAUSE_S)  # a BLAS call and take the cores from numba's pool if the next call is a numba kernel
            for _ in range(3):
                runs[key][0]()
            for _ in range(args.runs):
                t0 = time.perf_counter()
                runs[key][0]()
                times[key].append((time.perf_counter() - t0) * 1e3)
        med = {key: float(np.median(v)) for key, v in times.items()}
        pick = selector.select(pk)[0].name
        short = {"convolution_cpu_packed": "packed", "convolution_cpu_gemm": "gemm"}.get(pick, pick)
        for key in cols:
            totals[key] += count * med[key]
        totals["picked"] += count * med.get(short, float("nan"))
        oh = (hw + 2 * p - k) // s + 1
        gf = 2.0 * oc * c * k * k * oh * oh / 1e9
        flops += count * gf
        print(f"{name:22s} {count:2d} " + " ".join(f"{med[c]:8.2f}" for c in cols) +
              f"  {gf / med['packed'] * 1e3:6.0f} {gf / med['numpy'] * 1e3:6.0f}  {pick}", flush=True)
    print(f"{'total (x count)':25s} " + " ".join(f"{totals[c]:8.1f}" for c in cols)
          + f"  {flops / totals['packed'] * 1e3:6.0f} {flops / totals['numpy'] * 1e3:6.0f}  picked: "
          f"{totals['picked']:.1f} ms")


if __name__ == "__main__":
    main()
