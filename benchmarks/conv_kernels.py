"""GFLOP/s of the convolution kernels on ResNet-50 layer shapes (batch 1), every result checked against numpy.

    python benchmarks/conv_kernels.py [--runs 7] [--shapes 3x3_64_56 ...] [--blocks 4 5 6] [--oc-blocks 1 2 4]
                                      [--no-ref] [--asm]

Kernels are run directly (no Program): ``convolution_ref`` on bfyx data with oiyx weights, and
``convolution_b_fs_yx_fsv16`` on b_fs_yx_fsv16 data with os_iyx_osv16 weights in two variants: ``padded`` (the
input buffer carries the convolution's zero halo: no bounds checks, the fast path a prepare_padding pass enables)
and ``checked`` (unpadded input, bounds checks). Time is the device time from OpenCL profiling events, the median
of ``--runs`` runs after one warm-up (``best``: GFLOP/s of the fastest run); the kernels of one shape
run round-robin so that load from other processes hits them alike. ``--blocks`` times several pixel blocks P
and ``--oc-blocks`` several output-slice blocks (default: the kernel's own choice). The kernels compile with the
device caps a Program without a tuning cache gets (``device_probe.device_caps``: the register rule), so on a
device with narrow registers they time the two-float8 form a network runs (until 2026-12-07 the script timed the
float16 form there: 3x3 256 @ 14 113 GFLOP/s instead of 169).
``--asm`` builds in a fresh POCL_CACHE_DIR and disassembles each fsv16 kernel (objdump -d): calls and ymm stack
moves in the hottest loop (the inner loop must have no ``call``: on the pip PoCL a call spills every
register, cldnn_py/device_probe.py).
Medians move +-30% between processes on a shared VM; compare kernels within one run.
"""

from __future__ import annotations

import argparse
import os
import pathlib
import re
import subprocess
import sys
import tempfile
import time

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

# (name, C, H=W, OC, K, stride, pad): the ResNet-50 convolution shapes
SHAPES = {
    "3x3_64_56": (64, 56, 64, 3, 1, 1),
    "3x3_256_14": (256, 14, 256, 3, 1, 1),
    "1x1_256_56": (256, 56, 64, 1, 1, 0),
    "1x1_1024_14": (1024, 14, 256, 1, 1, 0),
    "7x7s2_3_224": (3, 224, 64, 7, 2, 3),
    "3x3_512_7": (512, 7, 512, 3, 1, 1),  # the last stage, every work-item on a border
    "3x3_512_14": (512, 14, 512, 3, 1, 1),  # the two below separate the input channels from the row width
    "3x3_256_7": (256, 7, 256, 3, 1, 1),
    "1x1_2048_7": (2048, 7, 512, 1, 1, 0),
    "1x1_64_56": (64, 56, 256, 1, 1, 0),  # the bottleneck's expanding 1x1s: few input channels, many outputs
    "1x1_128_28": (128, 28, 512, 1, 1, 0),
    "1x1_512_28": (512, 28, 128, 1, 1, 0),
    "3x3_128_28": (128, 28, 128, 3, 1, 1),
    "3x3s2_128_56": (128, 56, 128, 3, 2, 1),  # the downsampling 3x3s (ResNet v1.5) and 1x1s
    "3x3s2_256_28": (256, 28, 256, 3, 2, 1),
    "3x3s2_512_14": (512, 14, 512, 3, 2, 1),
    "1x1s2_256_56": (256, 56, 512, 1, 2, 0),
    "1x1s2_1024_14": (1024, 14, 2048, 1, 2, 0),
}
DEFAULT_SHAPES = list(SHAPES)[:5]


def conv_numpy(x: np.ndarray, w: np.ndarray, b: np.ndarray, stride: int, pad: int) -> np.ndarray:
    """float64 reference: tests/ocl/test_convolution.conv_ref (groups 1, dilation 1)."""
    from tests.references import conv_ref

    return conv_ref(x, w, b, (stride, stride), (1, 1), (pad, pad), (pad, pad), 1)


class Candidate:
    """One kernel ready to run on one shape: built, buffers written, arguments set."""

    def __init__(self, engine, label: str, kd, layouts, arrays, out_layout) -> None:
        import pyopencl as cl

        from kernel_selector.kernel_base import common_header

        (k,) = kd.kernels
        self.label, self.kd, self.engine, self.out_layout = label, kd, engine, out_layout
        self.block = int(m.group(1)) if (m := re.search(r"#define OUT_BLOCK (\d+)", k.source)) else 1
        self.knl = cl.Kernel(engine.build(common_header() + k.source), k.entry)
        self.mems = []
        for lay, arr in zip(layouts, arrays):
            mem = engine.allocate(lay)
            engine.write_buffer(mem.buffer, lay.to_physical(arr))
            self.mems.append(mem)
        self.out = engine.allocate(out_layout)
        self.knl.set_args(*[self.mems[int(a.index)].buffer if a.kind == "input" else self.out.buffer
                            for a in k.args])
        self.times: list[float] = []

    def run(self, record: bool = True) -> None:
        """One enqueue, waited for; its device time (ms) is recorded."""
        import pyopencl as cl

        k = self.kd.kernels[0]
        ev = cl.enqueue_nd_range_kernel(self.engine.queue, self.knl, k.gws, k.lws)
        ev.wait()
        if record:
            self.times.append((ev.profile.end - ev.profile.start) * 1e-6)

    def result(self) -> np.ndarray:
        """The logical output of the last run."""
        raw = np.empty(self.out_layout.buffer_size, dtype=np.float32)
        self.engine.read_buffer(self.out.buffer, raw)
        return self.out_layout.from_physical(raw)


def hot_loop_report(so_path: pathlib.Path) -> str:
    """Disassemble a PoCL kernel .so (objdump -d). For the loop (backward-jump range) with the most FMAs, and over
    every loop holding FMAs: instructions, FMAs, calls and ymm stores to the stack (spills)."""
    text = subprocess.run(["objdump", "-d", "--no-show-raw-insn", str(so_path)], capture_output=True,
                          text=True, check=True).stdout
    insns = []
    for line in text.splitlines():
        m = re.match(r"\s*([0-9a-f]+):\s+(\S.*)", line)
        if m:
            insns.append((int(m.group(1), 16), m.group(2)))
    total_calls = sum(1 for _, s in insns if s.startswith("call"))
    loops = []
    for addr, s in insns:
        m = re.match(r"j\w+\s+([0-9a-f]+)", s)
        if m and int(m.group(1), 16) < addr:
            lo = int(m.group(1), 16)
            body = [t for a, t in insns if lo <= a <= addr]
            fmas = sum("vfmadd" in t for t in body)
            if fmas:
                loops.append((fmas, len(body), sum(t.startswith("call") for t in body),
                              sum(bool(re.match(r"vmov\w+\s+%ymm\d+,.*\(%rsp\)", t)) for t in body)))
    if not loops:
        return f"no loop with FMAs found; {total_calls} calls in the file"
    fmas, n, calls, spills = max(loops)
    return (f"hot loop: {n} insns, {fmas} FMA, {calls} call, {spills} ymm spill stores; all {len(loops)} FMA "
            f"loops: {sum(x[2] for x in loops)} calls, {sum(x[3] for x in loops)} spill stores; "
            f"{total_calls} calls in the .so")


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark and print a table of GFLOP/s."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--shapes", nargs="+", default=DEFAULT_SHAPES, choices=list(SHAPES))
    ap.add_argument("--blocks", nargs="+", type=int, default=[0], help="pixels per work-item P (0: the kernel's)")
    ap.add_argument("--loop-order", nargs="+", type=int, default=[-1], choices=[-1, 0, 1, 2],
                    help="loop order SLICE_OUTER (-1: the kernel's rule)")
    ap.add_argument("--oc-blocks", nargs="+", type=int, default=[0], choices=[0, 1, 2, 4],
                    help="output slices of 16 per work-item (VEC16 only; 0: the kernel's rule)")
    ap.add_argument("--variants", nargs="+", default=["padded", "checked"], choices=["padded", "checked"])
    ap.add_argument("--no-ref", action="store_true", help="skip convolution_ref")
    ap.add_argument("--asm", action="store_true", help="disassemble the fsv16 kernels (fresh POCL_CACHE_DIR)")
    args = ap.parse_args(argv)
    if args.asm:
        os.environ["POCL_CACHE_DIR"] = tempfile.mkdtemp(prefix="conv_kernels_pocl_")

    import cldnn_py as cl
    from cldnn_py.device_probe import device_caps
    from cldnn_py.layout import DataType, Format, Layout, Padding
    from cldnn_py.ops import ConvolutionAttrs
    from kernel_selector import Params, selector
    from kernel_selector.common.conv_window import params_halo
    from kernel_selector.kernels.convolution.convolution_kernel_b_fs_yx_fsv16 import ConvolutionKernelBFsYxFsv16

    engine = cl.Engine()
    # the caps a Program without a tuning cache compiles with (the register rule: on a narrow device the two-float8
    # form), so the rows time what a network runs
    dcaps = device_caps(engine, None, "off")
    fast = ConvolutionKernelBFsYxFsv16()
    print(f"device: {engine.info.name} ({engine.info.platform_version}); median of {args.runs} runs, device time")
    a = np.random.default_rng(1).standard_normal((1024, 1024)).astype(np.float32)
    t = []
    for _ in range(5):
        t0 = time.perf_counter()
        a @ a
        t.append(time.perf_counter() - t0)
    print(f"calibration: numpy sgemm 1024^3 {2 * 1024**3 / np.median(t) * 1e-9:.0f} GFLOP/s (this process, now)")
    print(f"{'shape':<13} {'kernel':<52} {'P':>2} {'med ms':>9} {'GFLOP/s':>8} {'best':>8} {'rel err':>8}")
    rng = np.random.default_rng(0)
    f32 = DataType.f32
    for name in args.shapes:
        c, hw, oc, k, s, pad = SHAPES[name]
        x = rng.standard_normal((1, c, hw, hw)).astype(np.float32)
        w = (rng.standard_normal((oc, c, k, k)) / np.sqrt(c * k * k)).astype(np.float32)
        b = rng.standard_normal(oc).astype(np.float32)
        expect = conv_numpy(x, w, b, s, pad)
        scale = float(np.abs(expect).max())
        flop = 2.0 * expect.size * c * k * k
        attrs = ConvolutionAttrs(stride=(s, s), dilation=(1, 1), pad=(pad, pad), pad_end=(pad, pad), groups=1)
        bias_l = Layout(f32, Format.bfyx, (oc,))
        runs = []
        if not args.no_ref:
            lays = [Layout(f32, Format.bfyx, x.shape), Layout(f32, Format.oiyx, w.shape), bias_l]
            ref_out = Layout(f32, Format.bfyx, expect.shape)
            runs.append(("convolution_ref", (0, -1, 0), lays, ref_out, "convolution_ref"))
        for variant in args.variants:
            xl = Layout(f32, Format.b_fs_yx_fsv16, x.shape)
            outl = Layout(f32, Format.b_fs_yx_fsv16, expect.shape)
            if variant == "padded":
                probe = Params("convolution", "ocl", [xl, Layout(f32, Format.os_iyx_osv16, w.shape), bias_l],
                               outl, attrs, caps=engine.info.caps, device_caps=dcaps)
                (by, ay), (bx, ax) = params_halo(probe)
                xl = xl.with_(padding=Padding((0, 0, by, bx), (0, 0, ay, ax)))
            lays = [xl, Layout(f32, Format.os_iyx_osv16, w.shape), bias_l]
            for blk in args.blocks:
                for so in args.loop_order:
                    for ocb in args.oc_blocks:
                        tag = ("" if so < 0 else f", loop_order={so}") + ("" if not ocb else f", ocb={ocb}")
                        runs.append((f"{fast.name} ({variant}{tag})", (blk, so, ocb), lays, outl, fast.name))
        cands = []
        for label, (blk, so, ocb), lays, outl, kname in runs:
            params = Params("convolution", "ocl", lays, outl, attrs, layer_id=name, device=engine.info,
                            caps=engine.info.caps, device_caps=dcaps)
            var = {**({"block": blk} if blk else {}), **({"loop_order": so} if so >= 0 else {}),
                   **({"oc_blocks": ocb} if ocb else {})}
            kd = fast.kernel_data(params, var or None) if kname == fast.name else selector.select(params, kname)[1]
            cands.append(Candidate(engine, label, kd, lays, [x, w, b], outl))
        for cand in cands:  # warm-up (first launch of a kernel costs extra on PoCL)
            cand.run(record=False)
        for _ in range(args.runs):  # round-robin, so load from other processes hits every kernel alike
            for cand in cands:
                cand.run()
        for cand in cands:
            err = float(np.abs(cand.result() - expect).max()) / scale
            status = "" if err < 1e-4 else "  WRONG"
            med, best = float(np.median(cand.times)), min(cand.times)
            print(f"{name:<13} {cand.label:<52} {cand.block:>2} {med:9.3f} {flop / med * 1e-6:8.1f} "
                  f"{flop / best * 1e-6:8.1f} {err:8.1e}{status}", flush=True)
            if args.asm and cand.label != "convolution_ref":
                entry = cand.kd.kernels[0].entry
                sos = list(pathlib.Path(os.environ["POCL_CACHE_DIR"]).rglob(f"{entry}.so"))
                print("    " + (hot_loop_report(sos[0]) if sos else f"no .so found for {entry}"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
