"""Device time of the GPU-tier convolution kernels per layer shape: convolution_gpu_direct (its default tile) and
every tile of convolution_gpu_igemm, at batch 1 and 8, on the default device. For a session lent a GPU (run it
through ``benchmarks/gpu_device.sh``); it runs on PoCL too, slowly.

    python benchmarks/gpu_conv_kernels.py [--batches 1 8] [--runs 10] [--shapes r50_3x3_64_56 ...]

Kernels run directly (no Program) on bfyx data and oiyx weights with a bias; time is the median OpenCL profiling
time of ``--runs`` enqueues after one warm-up. Every output is compared with the first kernel's (the direct
kernel, an independent algorithm): a row whose max relative difference exceeds 1e-3 is marked WRONG. The default
tile the selector would pick is starred; ``v``/``s``: vector or scalar local reads (the ``vec`` variant key).
GFLOP/s counts 2·N·OC·OH·OW·C/groups·KH·KW.
"""

from __future__ import annotations

import argparse
import pathlib
import sys

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

# name: (C, H=W, OC, K, stride, groups) — ResNet-50's shapes, then MobileNet/YOLO/DBNet-style ones
SHAPES = {
    "r50_7x7_3_224": (3, 224, 64, 7, 2, 1),
    "r50_1x1_64_56": (64, 56, 64, 1, 1, 1),
    "r50_3x3_64_56": (64, 56, 64, 3, 1, 1),
    "r50_1x1_64_256_56": (64, 56, 256, 1, 1, 1),
    "r50_1x1_256_64_56": (256, 56, 64, 1, 1, 1),
    "r50_3x3_128_28": (128, 28, 128, 3, 1, 1),
    "r50_1x1_512_128_28": (512, 28, 128, 1, 1, 1),
    "r50_3x3_256_14": (256, 14, 256, 3, 1, 1),
    "r50_1x1_1024_256_14": (1024, 14, 256, 1, 1, 1),
    "r50_1x1_256_1024_14": (256, 14, 1024, 1, 1, 1),
    "r50_3x3_512_7": (512, 7, 512, 3, 1, 1),
    "r50_1x1_2048_512_7": (2048, 7, 512, 1, 1, 1),
    "mbv2_1x1_32_192_56": (32, 56, 192, 1, 1, 1),
    "yolo_3x3_32_64_80": (32, 80, 64, 3, 2, 1),
    "shuffle_1x1_g3_240_60_28": (240, 28, 60, 1, 1, 3),
}


def flops(batch: int, c: int, hw: int, oc: int, k: int, stride: int, groups: int) -> float:
    """Multiply-adds x 2 of one convolution with 'same' padding."""
    o = (hw + 2 * (k // 2) - k) // stride + 1
    return 2.0 * batch * oc * o * o * (c // groups) * k * k


def main(argv: list[str] | None = None) -> int:
    """CLI entry; see the module docstring."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--batches", nargs="+", type=int, default=[1, 8])
    ap.add_argument("--runs", type=int, default=10)
    ap.add_argument("--shapes", nargs="+", default=list(SHAPES))
    args = ap.parse_args(argv)

    import cldnn_py as cl
    from cldnn_py.layout import DataType, Format, Layout
    from cldnn_py.ops import ConvolutionAttrs
    from kernel_selector import Params
    from kernel_selector.kernels.convolution.convolution_kernel_gpu_direct import ConvolutionKernelGpuDirect
    from kernel_selector.kernels.convolution.convolution_kernel_gpu_igemm import ConvolutionKernelGpuIgemm

    engine = cl.Engine()
    print(f"device: {engine.info.name} [{engine.info.platform_version}]")
    direct, igemm = ConvolutionKernelGpuDirect(), ConvolutionKernelGpuIgemm()
    rng = np.random.default_rng(0)
    f = DataType.f32
    for name in args.shapes:
        c, hw, oc, k, stride, groups = SHAPES[name]
        for batch in args.batches:
            pad = k // 2
            o = (hw + 2 * pad - k) // stride + 1
            params = Params("convolution", "ocl", [Layout(f, Format.bfyx, (batch, c, hw, hw)),
                                                   Layout(f, Format.oiyx, (oc, c // groups, k, k)),
                                                   Layout(f, Format.bfyx, (oc,))],
                            Layout(f, Format.bfyx, (batch, oc, o, o)),
                            ConvolutionAttrs(stride=(stride, stride), pad=(pad, pad), pad_end=(pad, pad),
                                             groups=groups), caps=engine.info.caps, kernel_tier="gpu")
            arrays = [rng.standard_normal(lay.shape).astype(np.float32) for lay in params.inputs]
            mems = []
            for lay, arr in zip(params.inputs, arrays):
                mems.append(engine.allocate(lay))
                engine.write_buffer(mems[-1].buffer, lay.to_physical(arr))
            out = engine.allocate(params.output)
            default = igemm.default_variant(params)
            runs = [("direct", direct, None)] + [(f"igemm{v['ty'] * v['wpt']}x{v['tx'] * v['wpt']}/"
                                                  f"{v['tx']}x{v['ty']}k{v['kwg']}{'v' if v.get('vec') else 's'}"
                                                  + ("*" if v == default else ""),
                                                  igemm, v) for v in igemm.tune_variants(params)]
            ref = None
            cells = []
            gf = flops(batch, c, hw, oc, k, stride, groups) / 1e9
            for label, kernel, v in runs:
                (kc,) = kernel.kernel_data(params, v).kernels
                bound = engine.bind(kc, lambda kind, i, mems=mems, out=out:
                                    mems[i].buffer if kind == "input" else out.buffer)
                times = []
                for r in range(args.runs + 1):
                    ev = engine.enqueue_kernel(bound, kc.gws, kc.lws)
                    ev.wait()
                    if r:
                        times.append((ev.profile.end - ev.profile.start) / 1e6)
                raw = np.empty(params.output.buffer_size, dtype=np.float32)
                engine.read_buffer(out.buffer, raw)
                res = params.output.from_physical(raw)
                ms = float(np.median(times))
                if ref is None:
                    ref = res
                    mark = ""
                else:
                    err = float(np.max(np.abs(res - ref)) / (np.max(np.abs(ref)) + 1e-30))
                    mark = "" if err <= 1e-3 else f" WRONG({err:.1e})"
                cells.append(f"{label} {ms:.3f}ms {gf / ms * 1e3:.0f}GF/s{mark}")
            print(f"{name:<26} b{batch}  " + " | ".join(cells), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
