"""GFLOP/s of the GEMM kernels (gemm, fully_connected) next to numpy sgemm, every result checked against numpy.

    python benchmarks/gemm_kernels.py [--runs 7] [--shapes gemm1024 fc6_b64 wino14 ...] [--tiles 4 6] [--ref-runs 1]

Kernels are run directly (no Program), as in ``benchmarks/conv_kernels.py``: for ``gemm`` shapes ``gemm_tiled``
(bfyx A, B) and ``gemm_ref``; for ``wino`` shapes (the 36 batched products of a Winograd layer, tiles x C times
C x OC: ResNet-50's 3x3 layers at 14x14, 28x28, 56x56) ``gemm_tiled`` with B plain (its panels copied per
work-item) and as 16-column panels (transposed, b_fs_yx_fsv16: read in place, winograd_convolutions' form); for
fully connected shapes (AlexNet FC6/7/8 and ResNet-50's FC at batch 8 and 64) ``fully_connected_gemm`` (weights
os_iyx_osv16; run even at batch 8, where validate() leaves the layer to gemv, to show why),
``fully_connected_gemv`` and ``fully_connected_ref`` (weights bfyx). Time is the device time from
OpenCL profiling events, the median of ``--runs`` runs after one warm-up (``best``: GFLOP/s of the fastest run);
the kernels of one shape run round-robin with numpy's sgemm of the same product (``numpy`` row, wall time, the
calibration of this process and moment) so that load from other processes hits them alike. The reference kernels
are slow (1-3 GFLOP/s): they run ``--ref-runs`` times only, ``--ref-runs 0`` skips them. ``--tiles`` times several
row tiles (default: the kernels' own). ``--asm`` disassembles the tiled kernels (fresh POCL_CACHE_DIR): the hot
loop must have no call and no spill (vloadN/vstoreN are calls on the pip PoCL: cldnn_py/device_probe.py).
OpenBLAS is fastest with OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE unset
(``env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE python ...``).
"""

from __future__ import annotations

import argparse
import os
import pathlib
import sys
import tempfile
import time

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

# name: ("gemm", M, K, N), ("fc", batch, K, M_out) or ("wino", M = tiles, K = C, N = OC), batch 36
SHAPES = {
    "gemm1024": ("gemm", 1024, 1024, 1024),
    "gemm_bert": ("gemm", 384, 768, 768),
    "fc6_b8": ("fc", 8, 9216, 4096),
    "fc6_b64": ("fc", 64, 9216, 4096),
    "fc7_b8": ("fc", 8, 4096, 4096),
    "fc7_b64": ("fc", 64, 4096, 4096),
    "fc8_b8": ("fc", 8, 4096, 1000),
    "fc8_b64": ("fc", 64, 4096, 1000),
    "r50fc_b8": ("fc", 8, 2048, 1000),
    "r50fc_b64": ("fc", 64, 2048, 1000),
    "wino14": ("wino", 16, 256, 256),
    "wino28": ("wino", 49, 128, 128),
    "wino56": ("wino", 196, 64, 64),
}
DEFAULT_SHAPES = [s for s in SHAPES if s != "gemm_bert"]


class Numpy:
    """numpy's sgemm of the same product, timed like a candidate (wall time)."""

    def __init__(self, a: np.ndarray, b: np.ndarray, expect: np.ndarray) -> None:
        self.label, self.tile, self.a, self.b, self.expect = "numpy sgemm", 0, a, b, expect
        self.times: list[float] = []
        self.out = a @ b

    def run(self, record: bool = True) -> None:
        """One product; its wall time (ms) is recorded."""
        t0 = time.perf_counter()
        self.out = self.a @ self.b
        if record:
            self.times.append((time.perf_counter() - t0) * 1e3)
        time.sleep(0.2)  # OpenBLAS's threads spin-wait after a call: let them sleep before the next kernel runs

    def result(self) -> np.ndarray:
        """The last product."""
        return self.out


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark and print a table of GFLOP/s."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--ref-runs", type=int, default=1, help="runs of the slow reference kernels (0: skip them)")
    ap.add_argument("--shapes", nargs="+", default=DEFAULT_SHAPES, choices=list(SHAPES))
    ap.add_argument("--tiles", nargs="+", type=int, default=[0], help="rows per work-item (0: the kernel's)")
    ap.add_argument("--asm", action="store_true", help="disassemble the tiled kernels (fresh POCL_CACHE_DIR)")
    args = ap.parse_args(argv)
    if args.asm:
        os.environ["POCL_CACHE_DIR"] = tempfile.mkdtemp(prefix="gemm_kernels_pocl_")

    import cldnn_py as cl
    from benchmarks.conv_kernels import Candidate, hot_loop_report
    from cldnn_py.layout import DataType, Format, Layout
    from cldnn_py.ops import GemmAttrs
    from kernel_selector import Params, selector
    from kernel_selector.kernels.fully_connected.fully_connected_kernel_gemm import FullyConnectedKernelGemm
    from kernel_selector.kernels.gemm.gemm_kernel_tiled import GemmKernelTiled

    engine = cl.Engine()
    tiled, fcg = GemmKernelTiled(), FullyConnectedKernelGemm()
    print(f"device: {engine.info.name} ({engine.info.platform_version}); median of {args.runs} runs, device time; "
          f"numpy: wall time, same process, round-robin")
    print(f"{'shape':<10} {'kernel':<36} {'P':>2} {'med ms':>9} {'GFLOP/s':>8} {'best':>8} {'rel err':>8}")
    rng = np.random.default_rng(0)
    f32 = DataType.f32
    for name in args.shapes:
        kind, m, k, n = SHAPES[name]
        z = (36,) if kind == "wino" else ()
        a = rng.standard_normal(z + (m, k)).astype(np.float32)
        b = (rng.standard_normal(z + (k, n)) / np.sqrt(k)).astype(np.float32)
        expect = a.astype(np.float64) @ b.astype(np.float64)
        scale = float(np.abs(expect).max())
        flop = 2.0 * m * n * k * (z[0] if z else 1)
        cands: list = [Numpy(a, b, expect)]
        refs = []
        out_l = Layout(f32, Format.bfyx, z + (m, n))
        if kind == "wino":
            bt = np.ascontiguousarray(b.transpose(0, 2, 1))
            plain = [Layout(f32, Format.bfyx, a.shape), Layout(f32, Format.bfyx, b.shape)]
            panels = [plain[0], Layout(f32, Format.b_fs_yx_fsv16, bt.shape)]
            pp = Params("gemm", "ocl", plain, out_l, GemmAttrs(), layer_id=name, device=engine.info)
            pb = Params("gemm", "ocl", panels, out_l, GemmAttrs(transpose_b=True), layer_id=name,
                        device=engine.info)
            for t in args.tiles:
                kd = tiled.kernel_data(pp, {"tile": t} if t else None)
                cands.append(_label(Candidate(engine, tiled.name, kd, plain, [a, b], out_l), kd))
                kd = tiled.kernel_data(pb, {"tile": t} if t else None)
                cands.append(_label(Candidate(engine, tiled.name + " (B panels)", kd, panels, [a, bt], out_l), kd))
        elif kind == "gemm":
            lays = [Layout(f32, Format.bfyx, a.shape), Layout(f32, Format.bfyx, b.shape)]
            params = Params("gemm", "ocl", lays, out_l, {}, layer_id=name, device=engine.info)
            for t in args.tiles:
                kd = tiled.kernel_data(params, {"tile": t} if t else None)
                cands.append(_label(Candidate(engine, tiled.name, kd, lays, [a, b], out_l), kd))
            if args.ref_runs:
                refs.append(Candidate(engine, "gemm_ref", selector.select(params, "gemm_ref")[1], lays, [a, b],
                                      out_l))
        else:
            w = np.ascontiguousarray(b.T)  # (M_out, K)
            bias = np.zeros(n, dtype=np.float32)
            bias_l = Layout(f32, Format.bfyx, (n,))
            packed = [Layout(f32, Format.bfyx, a.shape), Layout(f32, Format.os_iyx_osv16, w.shape), bias_l]
            plain = [packed[0], Layout(f32, Format.bfyx, w.shape), bias_l]
            pp = Params("fully_connected", "ocl", packed, out_l, {}, layer_id=name, device=engine.info)
            pl = Params("fully_connected", "ocl", plain, out_l, {}, layer_id=name, device=engine.info)
            for t in args.tiles:
                kd = fcg.kernel_data(pp, {"tile": t} if t else None)  # direct: no validate(), batch 8 runs too
                cands.append(_label(Candidate(engine, fcg.name, kd, packed, [a, w, bias], out_l), kd))
            kd = selector.select(pl, "fully_connected_gemv")[1]
            cands.append(Candidate(engine, "fully_connected_gemv", kd, plain, [a, w, bias], out_l))
            if args.ref_runs:
                refs.append(Candidate(engine, "fully_connected_ref", selector.select(pl, "fully_connected_ref")[1],
                                      plain, [a, w, bias], out_l))
        for cand in cands + refs:  # warm-up (first launch of a kernel costs extra on PoCL)
            cand.run(record=False)
        for _ in range(args.runs):  # round-robin, so load from other processes hits every kernel alike
            for cand in cands:
                cand.run()
        for _ in range(args.ref_runs):
            for cand in refs:
                cand.run()
        for cand in cands + refs:
            err = float(np.abs(cand.result() - expect).max()) / scale
            status = "" if err < 1e-4 else "  WRONG"
            med, best = float(np.median(cand.times)), min(cand.times)
            print(f"{name:<10} {cand.label:<36} {getattr(cand, 'tile', 0) or '':>2} {med:9.3f} "
                  f"{flop / med * 1e-6:8.1f} {flop / best * 1e-6:8.1f} {err:8.1e}{status}", flush=True)
            if args.asm and cand.label in (tiled.name, fcg.name):
                entry = cand.kd.kernels[0].entry
                sos = list(pathlib.Path(os.environ["POCL_CACHE_DIR"]).rglob(f"{entry}.so"))
                print("    " + (hot_loop_report(sos[0]) if sos else f"no .so found for {entry}"))
    return 0


def _label(cand, kd):
    """Record the row tile of a tiled candidate (TILE_M / TILE_ROWS in its source) for the table."""
    import re

    m = re.search(r"#define TILE_(?:M|ROWS) (\d+)", kd.kernels[0].source)
    cand.tile = int(m.group(1)) if m else 0
    return cand


if __name__ == "__main__":
    sys.exit(main())
