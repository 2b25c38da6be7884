"""The CPU engine's GEMM alone: the packed-panel loop of ``convolution_cpu_packed`` (the LLVM-IR micro-kernel,
bias and relu in registers) against numpy's sgemm (OpenBLAS) on the same matrices, ResNet-50's shapes.

    env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE python benchmarks/cpu_gemm.py [--runs 30]

Per shape (M output channels × K = C·KH·KW × N pixels): best-of-runs GFLOP/s of each, each timed in its own block
after a pause (OpenBLAS's threads spin for a while after a call and would slow the numba pool), and the maximum
error of ours against float64 numpy. The weights are packed to os_iyx_osv16 panels as the layout optimizer does.
"""

from __future__ import annotations

import argparse
import pathlib
import sys
import time

import numpy as np

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))

from kernel_selector.common.cpu_epilogue import EMPTY  # noqa: E402
from kernel_selector.common.cpu_microkernel import MR, NV, W  # noqa: E402
from kernel_selector.kernels.convolution.convolution_kernel_cpu_packed import (  # noqa: E402
    NOPACK_TILES,
    _gemm_tiles,
    row_splits,
    row_tiles,
)

SHAPES = [(64, 64, 3136), (64, 576, 3136), (256, 64, 3136), (128, 1152, 784), (512, 128, 784), (256, 2304, 196),
          (1024, 256, 196), (256, 1024, 196), (512, 4608, 49), (2048, 512, 49)]


def best_of(fn, runs: int) -> float:
    """Seconds: the fastest of ``runs`` calls after a pause and two warm-up calls."""
    time.sleep(0.1)
    fn()
    fn()
    best = float("inf")
    for _ in range(runs):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=30)
    args = ap.parse_args()
    import numba

    rng = np.random.default_rng(0)
    print(f"micro-kernel {MR}x{NV * W} ({NV} vectors of {W} floats); threads {numba.get_num_threads()}")
    print(f"{'M x K x N':>18s} {'ours GF/s':>10s} {'numpy GF/s':>11s} {'max err':>9s}")
    for m, k, n in SHAPES:
        a = rng.standard_normal((m, k)).astype(np.float32)
        b = rng.standard_normal((k, n)).astype(np.float32)
        bias = rng.standard_normal(m).astype(np.float32)
        ap_ = np.ascontiguousarray(a.reshape(m // 16, 16, k).transpose(0, 2, 1)).ravel()
        c = np.empty(m * n, np.float32)
        rt = row_tiles(m, 1)
        splits = row_splits(len(rt), -(-n // (NV * W)), numba.get_num_threads())
        clamp = np.array([0, np.inf, 0, np.inf], np.float32)
        none = np.zeros(0, np.int64)
        call = (ap_, k, rt, m, b.ravel(), 0, 0, n, none, n, splits, c, 0, n, bias, 1, EMPTY, -1, 0, clamp, 1, none,
                clamp, clamp, EMPTY, 0, 0, 0, 1, 0, 0, 0, 0, NOPACK_TILES, 0, 0, 0, 0, 0)
        ours = best_of(lambda call=call: _gemm_tiles(*call), args.runs)
        ref = np.maximum(a.astype(np.float64) @ b + bias[:, None], 0)
        err = float(np.abs(c.reshape(m, n) - ref).max())
        theirs = best_of(lambda a=a, b=b, bias=bias: np.maximum(np.matmul(a, b) + bias[:, None], 0), args.runs)
        flop = 2.0 * m * k * n
        print(f"{m:5d}x{k:5d}x{n:5d} {flop / ours / 1e9:10.0f} {flop / theirs / 1e9:11.0f} {err:9.1e}", flush=True)


if __name__ == "__main__":
    main()
