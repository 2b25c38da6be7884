"""The integer convolution kernels against the float convolution of the same layer, same process, every result checked.

    python benchmarks/int8_kernels.py [--shapes 3x3_256_14 1x1_1024_14 ...] [--devices cl:1:0 cpu] [--runs 7]

Per ResNet-50 layer shape (``benchmarks/conv_kernels.py``'s table) and engine: a one-layer Network of a
``QuantizedConvolution`` (u8 input with zero point 3, full-range i8 weights, int32 output) per kernel of that
engine (forced), and one of the float ``Convolution`` with the engine's default kernel choice. Time is the device time
of the layer (``get_profiling_info``), median of ``--runs`` runs after two warm-ups, round-robin over the variants.
Printed: ms, GFLOP/s (2·MACs) and the ratio to the float layer. Each integer output equals the int64 numpy reference
(``tests/references.py``'s definition, written again here in a few lines), else the row says so.
"""

from __future__ import annotations

import argparse
import pathlib
import sys

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks.conv_kernels import SHAPES  # noqa: E402

KERNELS = {"ocl": ["quantized_convolution_ref", "quantized_convolution_blocks"],
           "cpu": ["quantized_convolution_cpu_ref", "quantized_convolution_cpu_gemm"]}


def reference(x: np.ndarray, w: np.ndarray, zp: int, stride: int, pad: int) -> np.ndarray:
    """int64 ConvInteger by shifted slices: Σ over taps of (x − zp) · w (zero padding of the centred input)."""
    xc = np.pad(x.astype(np.int64) - zp, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    oc, c, k, _ = w.shape
    oh = (xc.shape[2] - k) // stride + 1
    ow = (xc.shape[3] - k) // stride + 1
    out = np.zeros((x.shape[0], oc, oh, ow), np.int64)
    wm = w.astype(np.int64)
    for ky in range(k):
        for kx in range(k):
            tap = xc[:, :, ky:ky + stride * (oh - 1) + 1:stride, kx:kx + stride * (ow - 1) + 1:stride]
            out += np.einsum("nchw,oc->nohw", tap, wm[:, :, ky, kx])
    return out


def network(cl, engine, x_shape, w, stride, pad, kernel, integer):
    """A one-layer Network: QuantizedConvolution forced to ``kernel`` (``integer``) or a float Convolution."""
    t = cl.Topology()
    dt = cl.DataType.u8 if integer else cl.DataType.f32
    t.add(cl.InputLayout("x", cl.Layout(dt, cl.Format.bfyx, x_shape)))
    if integer:
        t.add(cl.Data("w", w), cl.Data("zp", np.array([3], np.uint8)))
        t.add(cl.QuantizedConvolution("y", "x", "w", input_zero_point="zp", stride=stride, pad=pad))
        opts = cl.BuildOptions(force_implementations={"y": kernel})
    else:
        t.add(cl.Data("w", w.astype(np.float32)))
        t.add(cl.Convolution("y", "x", "w", stride=stride, pad=pad))
        opts = cl.BuildOptions()
    return cl.Network(cl.Program(engine, t, opts))


def layer_ms(net, feeds) -> float:
    net.run(feeds)
    return sum(p.time_us for p in net.get_profiling_info() if p.id != "x" and p.kernel != "copy_to_device") / 1e3


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--shapes", nargs="+", default=["3x3_64_56", "3x3_256_14", "1x1_1024_14", "1x1_256_56"])
    ap.add_argument("--devices", nargs="+", default=["cl", "cpu"])
    ap.add_argument("--runs", type=int, default=7)
    args = ap.parse_args(argv)
    import cldnn_py as cl

    rng = np.random.default_rng(0)
    print("| shape | engine | kernel | ms | GFLOP/s | ÷ float layer |\n|---|---|---|---|---|---|")
    for dev in args.devices:
        engine = cl.Engine("cpu") if dev == "cpu" else (cl.Engine() if dev == "cl" else cl.Engine(dev))
        kind = "cpu" if engine.kind == "cpu" else "ocl"
        for name in args.shapes:
            c, hw, oc, k, stride, pad = SHAPES[name]
            x = rng.integers(0, 256, (1, c, hw, hw)).astype(np.uint8)
            w = rng.integers(-128, 128, (oc, c, k, k)).astype(np.int8)
            ref = reference(x, w, 3, stride, pad)
            flop = 2 * ref.size * c * k * k
            nets = {"float convolution": (network(cl, engine, x.shape, w, stride, pad, None, False),
                                          {"x": x.astype(np.float32) - 3})}
            for kern in KERNELS[kind]:
                nets[kern] = (network(cl, engine, x.shape, w, stride, pad, kern, True), {"x": x})
            times: dict[str, list[float]] = {n: [] for n in nets}
            ok = {}
            for n, (net, feeds) in nets.items():
                for _ in range(2):
                    y = net.run(feeds)["y"]
                ok[n] = n == "float convolution" or np.array_equal(y, ref)
            for _ in range(args.runs):
                for n, (net, feeds) in nets.items():
                    times[n].append(layer_ms(net, feeds))
            base = float(np.median(times["float convolution"]))
            for n in nets:
                ms = float(np.median(times[n]))
                flag = "" if ok[n] else " **WRONG**"
                print(f"| {name} | {dev} | {n}{flag} | {ms:.2f} | {flop / ms / 1e6:.1f} | {ms / base:.2f}× |")


if __name__ == "__main__":
    main()
