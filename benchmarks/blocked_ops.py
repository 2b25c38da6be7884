"""Device time of the blocked (b_fs_yx_fsv16) non-convolution kernels vs their reference kernels, zoo shapes.

    python benchmarks/blocked_ops.py [--runs 15] [--shapes r50_pool1 gn_lrn2 ...]

Pooling, LRN, concatenation and the input reorder at the shapes they have in ResNet-50 / GoogLeNet / SqueezeNet /
AlexNet (batch 1), each run directly (no Program) on the same data by the ``_ref`` kernel and by the fast kernel
the selector picks; the candidates of one shape run round-robin (load from other processes hits them alike).
Prints median / min device time (OpenCL profiling events) and the largest difference from the reference output.
"""

from __future__ import annotations

import argparse
import pathlib
import sys

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

POOLS = {  # input shape, pooling attributes
    "r50_pool1": ((1, 64, 112, 112), dict(mode="max", kernel=(3, 3), stride=(2, 2), pad=(1, 1))),
    "sq_pool1": ((1, 64, 111, 111), dict(mode="max", kernel=(3, 3), stride=(2, 2), ceil_mode=True)),
    "gn_pool_480": ((1, 480, 27, 27), dict(mode="max", kernel=(3, 3), stride=(1, 1), pad=(1, 1))),
    "r50_gap": ((1, 2048, 7, 7), dict(mode="average_no_padding", global_pooling=True)),
}
LRNS = {"alex_lrn1": (1, 96, 54, 54), "gn_lrn2": (1, 192, 55, 55)}  # size 5, beta 0.75
CONCATS = {"gn_cat_3b": ((128, 192, 96, 64), (27, 27)), "sq_fire2": ((64, 64), (55, 55))}
REORDERS = {"input_224": (1, 3, 224, 224)}
ALL = [*POOLS, *LRNS, *CONCATS, *REORDERS]


def candidates(engine, name: str, rng: np.random.Generator) -> list:
    """[reference Candidate, fast Candidate] for one named shape, on the same random input."""
    from conv_kernels import Candidate

    import cldnn_py as cl
    from cldnn_py.layout import DataType, Format, Layout
    from kernel_selector import Params, selector

    fsv16 = Format.b_fs_yx_fsv16
    if name in POOLS:
        shape, attrs = POOLS[name]
        prim = cl.Pooling("p", "x", **attrs)
        ins = [Layout(DataType.f32, fsv16, shape)]
        out = prim.calc_output_layout(ins)
        kind, a, ref = "pooling", prim.attrs(), "pooling_ref"
    elif name in LRNS:
        ins = [Layout(DataType.f32, fsv16, LRNS[name])]
        out = ins[0]
        kind, a, ref = "lrn", {"size": 5, "alpha": 1e-4, "beta": 0.75, "k": 1.0}, "lrn_ref"
    elif name in CONCATS:
        chans, hw = CONCATS[name]
        ins = [Layout(DataType.f32, fsv16, (1, c) + hw) for c in chans]
        out = Layout(DataType.f32, fsv16, (1, sum(chans)) + hw)
        kind, a, ref = "concatenation", {"axis": 1}, "concatenation_ref"
    else:
        shape = REORDERS[name]
        ins = [Layout(DataType.f32, Format.bfyx, shape)]
        out = Layout(DataType.f32, fsv16, shape)
        kind, a, ref = "reorder", {}, "reorder_ref"
    params = Params(kind, "ocl", ins, out, a, layer_id=name, device=engine.info)
    arrays = [rng.standard_normal(x.shape).astype(np.float32) for x in ins]
    fast, kd = selector.select(params)
    cands = []
    for label, data in (("ref", selector.select(params, ref)[1]), (fast.name, kd)):
        # concatenation_ref has one enqueue per input: MultiCandidate times their sum
        cls = Candidate if len(data.kernels) == 1 else MultiCandidate
        cands.append(cls(engine, label, data, ins, arrays, out))
    return cands


class MultiCandidate:
    """A kernel with several enqueues (concatenation_ref): the device times of one run are summed."""

    def __init__(self, engine, label: str, kd, layouts, arrays, out_layout) -> None:
        import pyopencl as pcl

        from kernel_selector.kernel_base import common_header

        self.label, self.engine, self.out_layout, self.times = label, engine, out_layout, []
        self.mems = []
        for lay, arr in zip(layouts, arrays):
            mem = engine.allocate(lay)
            engine.write_buffer(mem.buffer, lay.to_physical(arr))
            self.mems.append(mem)
        self.out = engine.allocate(out_layout)
        self.knls = []
        for k in kd.kernels:
            knl = pcl.Kernel(engine.build(common_header() + k.source), k.entry)
            knl.set_args(*[self.mems[int(a.index)].buffer if a.kind == "input" else self.out.buffer
                           for a in k.args])
            self.knls.append((knl, k.gws, k.lws))

    def run(self, record: bool = True) -> None:
        """Every enqueue, waited for; the summed device time (ms) is recorded."""
        import pyopencl as pcl

        total = 0.0
        for knl, gws, lws in self.knls:
            ev = pcl.enqueue_nd_range_kernel(self.engine.queue, knl, gws, lws)
            ev.wait()
            total += (ev.profile.end - ev.profile.start) * 1e-6
        if record:
            self.times.append(total)

    def result(self) -> np.ndarray:
        """The logical output of the last run."""
        raw = np.empty(self.out_layout.buffer_size, dtype=np.float32)
        self.engine.read_buffer(self.out.buffer, raw)
        return self.out_layout.from_physical(raw)


def main(argv: list[str] | None = None) -> int:
    """Time every requested shape and print one line per kernel."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--runs", type=int, default=15)
    ap.add_argument("--shapes", nargs="+", default=ALL, choices=ALL)
    args = ap.parse_args(argv)
    import cldnn_py as cl

    engine = cl.Engine()
    rng = np.random.default_rng(0)
    for name in args.shapes:
        cands = candidates(engine, name, rng)
        for c in cands:
            c.run(record=False)
        for _ in range(args.runs):
            for c in cands:
                c.run()
        ref = cands[0].result()
        for c in cands:
            err = float(np.abs(c.result() - ref).max())
            print(f"{name:12s} {c.label:30s} median {np.median(c.times):7.3f} ms  min {min(c.times):7.3f} ms  "
                  f"max |diff| {err:.1e}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
