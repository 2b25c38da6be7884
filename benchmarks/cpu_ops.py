"""Fast CPU-engine kernels (fully_connected_cpu_blas, gemm_cpu_blas, pooling_cpu_fsv16, eltwise_cpu_vec) against
the CPU reference kernels and onnxruntime (2 threads), on ResNet-50 / AlexNet shapes, in one process.

    env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE python benchmarks/cpu_ops.py [--runs 9] [--cases r50_pool1 ...]

Each kernel runs directly (no Program): Params with the layouts the network gives the layer (b_fs_yx_fsv16 after
a blocked convolution, plain weights), the kernel's ``fn`` called on engine buffers filled with random data. The
fast kernel, the reference kernel (forced, same layouts) and the same op in onnxruntime (NCHW, one-node model,
``intra_op_num_threads=2``, spinning off) run ``--runs`` times each after a warm-up: fast and ref round-robin in
a rotating order (so load from other processes hits them alike), then onnxruntime after a pause (interleaved,
each one's spinning idle pool threads slowed the next). The table gives the median wall time of each and the
ratios ref / fast and ort / fast (> 1: the fast kernel is faster). Outputs of fast and ref are compared on every
case. The machine has 2 cores; OpenBLAS is fastest with OPENBLAS_CORETYPE / OPENBLAS_L2_SIZE unset (``env -u``,
as above).
"""

from __future__ import annotations

import argparse
import pathlib
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import cldnn_py as cl  # noqa: E402
from cldnn_py.layout import DataType, Format, Layout  # noqa: E402
from cldnn_py.ops import FusedActivationAttrs  # noqa: E402
from kernel_selector.params import FusedOp, Params  # noqa: E402
from kernel_selector.selector import selector  # noqa: E402

FSV16, BFYX = Format.b_fs_yx_fsv16, Format.bfyx


@dataclass
class Case:
    """One op: primitive kind, input layouts + logical arrays, output layout, attrs, fused ops (their operands
    appended to the inputs), the fast and ref kernel names, and an onnx node builder."""

    kind: str
    inputs: list[Layout]
    arrays: list[np.ndarray]
    output: Layout
    attrs: dict[str, Any]
    fast: str
    ref: str
    onnx: Callable[[], tuple[Any, dict[str, np.ndarray]]]
    fused: list[FusedOp] = field(default_factory=list)
    n_own: int = 0


def _model(nodes: list[Any], inputs: dict[str, np.ndarray], out_shape: tuple[int, ...],
           inits: dict[str, np.ndarray] | None = None) -> Any:
    from onnx import TensorProto, helper, numpy_helper

    graph = helper.make_graph(
        nodes, "g", [helper.make_tensor_value_info(k, TensorProto.FLOAT, v.shape) for k, v in inputs.items()],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, out_shape)],
        [numpy_helper.from_array(v, k) for k, v in (inits or {}).items()])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=10)


def _rand(rng: np.random.Generator, shape: tuple[int, ...]) -> np.ndarray:
    return rng.standard_normal(shape).astype(np.float32)


def pool_case(rng: np.random.Generator, shape: tuple[int, int, int, int], fmt: Format, mode: str,
              k: int = 3, s: int = 2, p: int = 0, glob: bool = False) -> Case:
    from onnx import helper

    x = _rand(rng, shape)
    prim = cl.Pooling("pool", "x", mode=mode, kernel=(k, k), stride=(s, s), pad=(p, p), global_pooling=glob)
    lin = Layout(DataType.f32, fmt, shape)
    lout = prim.calc_output_layout([lin])

    def onnx() -> tuple[Any, dict[str, np.ndarray]]:
        if glob:
            node = helper.make_node("GlobalAveragePool" if mode == "average" else "GlobalMaxPool", ["x"], ["y"])
        else:
            op = "MaxPool" if mode == "max" else "AveragePool"
            extra = {} if mode == "max" else {"count_include_pad": 1}
            node = helper.make_node(op, ["x"], ["y"], kernel_shape=[k, k], strides=[s, s], pads=[p] * 4, **extra)
        return _model([node], {"x": x}, lout.shape), {"x": x}

    return Case("pooling", [lin], [x], lout, prim.attrs(), "pooling_cpu_fsv16", "pooling_cpu_ref", onnx)


def eltwise_case(rng: np.random.Generator, shape: tuple[int, int, int, int], fmt: Format, relu: bool) -> Case:
    from onnx import helper

    a, b = _rand(rng, shape), _rand(rng, shape)
    lay = Layout(DataType.f32, fmt, shape)
    fused = [FusedOp("activation", FusedActivationAttrs("relu"))] if relu else []

    def onnx() -> tuple[Any, dict[str, np.ndarray]]:
        nodes = [helper.make_node("Add", ["a", "b"], ["s" if relu else "y"])]
        if relu:
            nodes.append(helper.make_node("Relu", ["s"], ["y"]))
        return _model(nodes, {"a": a, "b": b}, shape), {"a": a, "b": b}

    return Case("eltwise", [lay, lay], [a, b], lay, {"mode": "sum"}, "eltwise_cpu_vec", "eltwise_cpu_ref", onnx,
                fused)


def fc_case(rng: np.random.Generator, in_shape: tuple[int, ...], m: int, fmt: Format = BFYX) -> Case:
    from onnx import helper

    x = _rand(rng, in_shape)
    k = int(np.prod(in_shape[1:]))
    w, b = _rand(rng, (m, k)) * np.float32(k ** -0.5), _rand(rng, (m,))
    lays = [Layout(DataType.f32, fmt, in_shape), Layout(DataType.f32, BFYX, (m, k)), Layout(DataType.f32, BFYX, (m,))]
    lout = Layout(DataType.f32, BFYX, (in_shape[0], m))

    def onnx() -> tuple[Any, dict[str, np.ndarray]]:
        nodes = [helper.make_node("Flatten", ["x"], ["xf"]),
                 helper.make_node("Gemm", ["xf", "w", "b"], ["y"], transB=1)]
        return _model(nodes, {"x": x}, lout.shape, {"w": w, "b": b}), {"x": x}

    return Case("fully_connected", lays, [x, w, b], lout, {}, "fully_connected_cpu_blas", "fully_connected_cpu_ref",
                onnx)


def gemm_case(rng: np.random.Generator, sa: tuple[int, ...], sb: tuple[int, ...], tb: bool, c: bool) -> Case:
    from onnx import helper

    a, b = _rand(rng, sa), _rand(rng, sb)
    arrays = [a, b]
    prim_in = ["a", "b"]
    if c:
        n = sb[-2] if tb else sb[-1]
        arrays.append(_rand(rng, (n,)))
        prim_in.append("c")
    lays = [Layout(DataType.f32, BFYX, x.shape) for x in arrays]
    prim = cl.Gemm("g", inputs=prim_in, transpose_b=tb)
    lout = prim.calc_output_layout(lays)

    def onnx() -> tuple[Any, dict[str, np.ndarray]]:
        if len(sa) == 2:
            node = helper.make_node("Gemm", prim_in, ["y"], transB=int(tb))
        else:
            node = helper.make_node("MatMul", prim_in, ["y"])
        inits = {"b": b, **({"c": arrays[2]} if c else {})}
        return _model([node], {"a": a}, lout.shape, inits), {"a": a}

    return Case("gemm", lays, arrays, lout, prim.attrs(), "gemm_cpu_blas", "gemm_cpu_ref", onnx)


def cases(rng: np.random.Generator) -> dict[str, Callable[[], Case]]:
    """name -> builder (built lazily: the FC6 weights are 151 MB)."""
    return {
        "r50_pool1_fsv16": lambda: pool_case(rng, (1, 64, 112, 112), FSV16, "max", 3, 2, 1),
        "r50_pool1_bfyx": lambda: pool_case(rng, (1, 64, 112, 112), BFYX, "max", 3, 2, 1),
        "r50_gap_fsv16": lambda: pool_case(rng, (1, 2048, 7, 7), FSV16, "average", glob=True),
        "alex_pool1_fsv16": lambda: pool_case(rng, (1, 64, 55, 55), FSV16, "max"),
        "alex_pool2_fsv16": lambda: pool_case(rng, (1, 192, 27, 27), FSV16, "max"),
        "alex_pool5_fsv16": lambda: pool_case(rng, (1, 256, 13, 13), FSV16, "max"),
        "r50_res2_add_relu_fsv16": lambda: eltwise_case(rng, (1, 256, 56, 56), FSV16, True),
        "r50_res2_add_relu_bfyx": lambda: eltwise_case(rng, (1, 256, 56, 56), BFYX, True),
        "r50_res3_add_fsv16": lambda: eltwise_case(rng, (1, 512, 28, 28), FSV16, False),
        "r50_res5_add_relu_fsv16": lambda: eltwise_case(rng, (1, 2048, 7, 7), FSV16, True),
        "r50_fc_b1": lambda: fc_case(rng, (1, 2048, 1, 1), 1000, FSV16),
        "r50_fc_b8": lambda: fc_case(rng, (8, 2048), 1000),
        "alex_fc6_b1_fsv16": lambda: fc_case(rng, (1, 256, 6, 6), 4096, FSV16),
        "alex_fc6_b8": lambda: fc_case(rng, (8, 9216), 4096),
        "alex_fc7_b1": lambda: fc_case(rng, (1, 4096), 4096),
        "alex_fc8_b1": lambda: fc_case(rng, (1, 4096), 1000),
        "gemm_alex_fc6_b8": lambda: gemm_case(rng, (8, 9216), (4096, 9216), True, True),
        "gemm_r50_fc_b1": lambda: gemm_case(rng, (1, 2048), (1000, 2048), True, True),
        "gemm_512": lambda: gemm_case(rng, (512, 512), (512, 512), False, False),
        "matmul_batched_12x128x64": lambda: gemm_case(rng, (12, 128, 64), (12, 64, 128), False, False),
    }


class Runner:
    """One kernel of a case on engine buffers: ``run()`` calls its fn once."""

    def __init__(self, engine: Any, case: Case, kernel: str) -> None:
        n_own = len(case.inputs)
        params = Params(case.kind, "cpu", case.inputs[:n_own], case.output, dict(case.attrs), list(case.fused),
                        case.kind, engine.info)
        _, kd = selector.select(params, kernel)
        (self.k,) = kd.kernels
        self.mems = []
        for lay, arr in zip(case.inputs, case.arrays):
            mem = engine.allocate(lay)
            engine.write_buffer(mem.buffer, lay.to_physical(arr))
            self.mems.append(mem.buffer)
        self.out = engine.allocate(case.output)
        self.args = [self.mems[int(a.index)] if a.kind == "input" else self.out.buffer for a in self.k.args]
        self.layout = case.output
        self.times: list[float] = []

    def run(self) -> None:
        t0 = time.perf_counter()
        self.k.fn(*self.args)
        self.times.append((time.perf_counter() - t0) * 1e3)

    def result(self) -> np.ndarray:
        raw = self.out.buffer[:self.layout.bytes].view(self.layout.dtype.numpy)
        return self.layout.from_physical(raw)


class Ort:
    """The same op in onnxruntime, 2 intra-op threads."""

    def __init__(self, case: Case) -> None:
        import onnxruntime as ort

        model, self.feeds = case.onnx()
        so = ort.SessionOptions()
        so.intra_op_num_threads = 2
        so.inter_op_num_threads = 1
        # no spinning after a run: spinning ORT threads would steal the 2 cores from whatever runs next
        so.add_session_config_entry("session.intra_op.allow_spinning", "0")
        self.sess = ort.InferenceSession(model.SerializeToString(), so, providers=["CPUExecutionProvider"])
        self.times: list[float] = []

    def run(self) -> None:
        t0 = time.perf_counter()
        self.sess.run(None, self.feeds)
        self.times.append((time.perf_counter() - t0) * 1e3)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=9)
    ap.add_argument("--cases", nargs="*", default=None)
    ap.add_argument("--no-ort", action="store_true")
    args = ap.parse_args()
    engine = cl.Engine("cpu")
    rng = np.random.default_rng(0)
    table = cases(rng)
    names = args.cases or list(table)
    print(f"{'case':28s} {'fast ms':>9s} {'ref ms':>9s} {'ort ms':>9s} {'ref/fast':>9s} {'ort/fast':>9s}")
    for name in names:
        case = table[name]()
        fast, ref = Runner(engine, case, case.fast), Runner(engine, case, case.ref)
        cands: list[Any] = [fast, ref]
        ort = None if args.no_ort else Ort(case)
        if ort is not None:
            cands.append(ort)
        for c in cands:  # warm-up (numba compile / cache load, first BLAS call)
            c.run()
            c.times.clear()
        # fast and ref round-robin in a rotating order; then, after a pause that lets every spinning pool thread
        # (OpenBLAS, OpenMP) go to sleep, onnxruntime alone: with the three interleaved, each one's idle threads
        # spinning on the 2 cores slowed the next one by up to 100x (matmul 12x128x64: 186 ms instead of 0.35 ms)
        for i in range(args.runs):
            for j in range(2):
                cands[(i + j) % 2].run()
        if ort is not None:
            time.sleep(0.3)
            for _ in range(args.runs):
                ort.run()
        ok = np.allclose(fast.result(), ref.result(), rtol=1e-3, atol=1e-3)
        med = [float(np.median(c.times)) for c in cands]
        ort_ms = med[2] if ort is not None else float("nan")
        print(f"{name:28s} {med[0]:9.3f} {med[1]:9.3f} {ort_ms:9.3f} {med[1] / med[0]:9.2f} "
              f"{ort_ms / med[0]:9.2f}{'' if ok else '  MISMATCH fast vs ref'}", flush=True)
        del fast, ref, ort, case


if __name__ == "__main__":
    main()
