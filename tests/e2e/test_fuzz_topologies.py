"""Property-based fuzzing of small topologies on both engines: random chains and branches of convolution (kernel
1-3, stride 1-2, pads, groups 1 or depthwise, bias or not), pooling (max / average / average_no_padding, kernel 2-3,
stride 1-2, pads, ceil mode), eltwise (sum / prod / max of two branches of equal shape), concatenation along
features and activation (relu, tanh, logistic, relu_negative_slope), built with the Topology API and compared with
an independent float64 numpy reference. Every leaf is an output, plus a random subset of intermediates (which
changes what the fusing and in-place passes may do), with or without ``optimize_data``.

Hypothesis draws the graph (printed as the falsifying example, already shrunk) and a seed for the numbers. The
shapes come from small pools (every distinct shape is a new OpenCL kernel, ~0.3 s to build) and the number of
examples is small, so one run stays well under a minute per engine; cases are fresh on every run."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import cldnn_py as cl
from tests.helpers import assert_close, f32, run_topology
from tests.references import activation_ref, conv_ref, pool_out_size, pool_ref

# Shape pools: spread over N 1-2, C 1-20, H/W 3-12 while keeping the number of distinct kernels low.
BATCHES = [1, 2]
CHANNELS = [1, 3, 8, 16, 20]
SIZES = [3, 5, 8, 12]
OUT_CHANNELS = [1, 4, 8, 17]
MAX_OPS = 4
ACTIVATIONS = ["relu", "tanh", "logistic", "relu_negative_slope"]


@dataclass
class Graph:
    """The drawn case: input shape, ops in topological order (id, kind, inputs, params), extra outputs."""

    shape: tuple[int, int, int, int]
    ops: list[tuple[str, str, tuple[str, ...], dict]]
    extra_outputs: list[str]
    optimize_data: bool
    seed: int


def _conv_params(draw, shape, oc=None, same=False):
    """Convolution parameters valid for ``shape``; ``same`` keeps the spatial size (odd kernel, stride 1)."""
    n, c, h, w = shape
    depthwise = draw(st.booleans()) if oc is None or oc == c else False
    if same:
        kh = kw = draw(st.sampled_from([1, 3]))
        stride, pad, pad_end = (1, 1), (kh // 2, kw // 2), (kh // 2, kw // 2)
    else:
        kh = draw(st.integers(1, min(3, h)))
        kw = draw(st.integers(1, min(3, w)))
        stride = (draw(st.integers(1, 2)), draw(st.integers(1, 2)))
        pad = (draw(st.integers(0, kh - 1)), draw(st.integers(0, kw - 1)))
        pad_end = (draw(st.integers(0, kh - 1)), draw(st.integers(0, kw - 1))) if draw(st.booleans()) else pad
    if depthwise:
        oc, groups = c, c
    else:
        oc, groups = (draw(st.sampled_from(OUT_CHANNELS)) if oc is None else oc), 1
    return dict(oc=oc, k=(kh, kw), stride=stride, pad=pad, pad_end=pad_end, groups=groups,
                bias=draw(st.booleans()))


def _pool_params(draw, shape):
    """Pooling parameters valid for ``shape`` (pads < kernel, at least one output)."""
    _, _, h, w = shape
    k = (draw(st.integers(2, 3)), draw(st.integers(2, 3)))
    stride = (draw(st.integers(1, 2)), draw(st.integers(1, 2)))
    pad = [draw(st.integers(0, k[0] - 1)), draw(st.integers(0, k[1] - 1))]
    pad_end = [draw(st.integers(0, k[0] - 1)), draw(st.integers(0, k[1] - 1))] if draw(st.booleans()) else list(pad)
    for d, size in enumerate((h, w)):
        if size + pad[d] + pad_end[d] < k[d]:        # window larger than the padded input: pad the end
            pad_end[d] = k[d] - size - pad[d]
    return dict(mode=draw(st.sampled_from(["max", "average", "average_no_padding"])), k=k, stride=stride,
                pad=tuple(pad), pad_end=tuple(pad_end), ceil_mode=draw(st.booleans()))


def _out_shape(kind, params, in_shapes):
    """Expected output shape, computed independently of the primitives' calc_output_layout."""
    n, c, h, w = in_shapes[0]
    if kind == "conv":
        (kh, kw), s, pb, pe = params["k"], params["stride"], params["pad"], params["pad_end"]
        return (n, params["oc"], (h + pb[0] + pe[0] - kh) // s[0] + 1, (w + pb[1] + pe[1] - kw) // s[1] + 1)
    if kind == "pool":
        k, s, pb, pe, cm = params["k"], params["stride"], params["pad"], params["pad_end"], params["ceil_mode"]
        return (n, c, pool_out_size(h, k[0], s[0], pb[0], pe[0], cm), pool_out_size(w, k[1], s[1], pb[1], pe[1], cm))
    if kind == "concat":
        return (n, sum(x[1] for x in in_shapes), h, w)
    return in_shapes[0]


@st.composite
def graphs(draw) -> Graph:
    shape = (draw(st.sampled_from(BATCHES)), draw(st.sampled_from(CHANNELS)),
             draw(st.sampled_from(SIZES)), draw(st.sampled_from(SIZES)))
    shapes: dict[str, tuple[int, int, int, int]] = {"x": shape}
    ops: list[tuple[str, str, tuple[str, ...], dict]] = []

    def add(kind, inputs, params):
        oid = f"{kind}{len(ops)}"
        ops.append((oid, kind, tuple(inputs), params))
        shapes[oid] = _out_shape(kind, params, [shapes[i] for i in inputs])
        return oid

    def branch(src, oc=None):
        """A second branch from ``src`` with its N, H, W (and C unless ``oc``): activation or 'same' conv."""
        if oc is None and draw(st.booleans()):
            return add("act", [src], _act_params(draw))
        return add("conv", [src], _conv_params(draw, shapes[src], oc=oc or shapes[src][1], same=True))

    for _ in range(draw(st.integers(1, MAX_OPS))):
        ids = list(shapes)
        src = draw(st.sampled_from([ids[-1]] * len(ids) + ids))   # chains more often than branches
        kind = draw(st.sampled_from(["conv", "pool", "eltwise", "concat", "act"]))
        s = shapes[src]
        if kind == "conv":
            add("conv", [src], _conv_params(draw, s))
        elif kind == "pool":
            add("pool", [src], _pool_params(draw, s))
        elif kind == "act":
            add("act", [src], _act_params(draw))
        elif kind == "eltwise":
            same = [i for i in shapes if i != src and shapes[i] == s]
            other = draw(st.sampled_from(same)) if same and draw(st.booleans()) else branch(src)
            pair = [src, other] if draw(st.booleans()) else [other, src]
            add("eltwise", pair, dict(mode=draw(st.sampled_from(["sum", "prod", "max"]))))
        else:
            fits = [i for i in shapes if shapes[i][0] == s[0] and shapes[i][2:] == s[2:]]
            if draw(st.booleans()):
                fits.append(branch(src, oc=draw(st.sampled_from(OUT_CHANNELS))))
            others = draw(st.lists(st.sampled_from(fits), min_size=1, max_size=2))
            add("concat", [src, *others], {})
    consumed = {i for _, _, inputs, _ in ops for i in inputs}
    inner = [oid for oid, *_ in ops if oid in consumed]
    extra = draw(st.lists(st.sampled_from(inner), unique=True, max_size=2)) if inner else []
    return Graph(shape, ops, extra, draw(st.sampled_from([True, True, True, False])), draw(st.integers(0, 2**32 - 1)))


def _act_params(draw):
    func = draw(st.sampled_from(ACTIVATIONS))
    a = draw(st.sampled_from([0.01, 0.2, -0.5, 1.5])) if func == "relu_negative_slope" else None
    return dict(func=func, a=a)


def build_and_reference(g: Graph):
    """(topology, feeds, {output id: float64 reference}) for the drawn graph."""
    rng = np.random.default_rng(g.seed)
    x = f32(rng.standard_normal(g.shape))
    topo = cl.Topology()
    topo.add(cl.InputLayout("x", cl.Layout(cl.DataType.f32, cl.Format.bfyx, g.shape)))
    ref = {"x": x.astype(np.float64)}
    for oid, kind, inputs, p in g.ops:
        xs = [ref[i] for i in inputs]
        if kind == "conv":
            c = xs[0].shape[1]
            fan_in = (c // p["groups"]) * p["k"][0] * p["k"][1]
            w = f32(rng.standard_normal((p["oc"], c // p["groups"], *p["k"])) / np.sqrt(fan_in))
            b = f32(rng.standard_normal(p["oc"])) if p["bias"] else None
            topo.add(cl.Data(oid + "_w", w))
            if b is not None:
                topo.add(cl.Data(oid + "_b", b))
            topo.add(cl.Convolution(oid, inputs[0], weights=oid + "_w", bias=oid + "_b" if p["bias"] else None,
                                    stride=p["stride"], pad=p["pad"], pad_end=p["pad_end"], groups=p["groups"]))
            ref[oid] = conv_ref(xs[0], w, b, p["stride"], (1, 1), p["pad"], p["pad_end"], p["groups"])
        elif kind == "pool":
            topo.add(cl.Pooling(oid, inputs[0], mode=p["mode"], kernel=p["k"], stride=p["stride"], pad=p["pad"],
                                pad_end=p["pad_end"], ceil_mode=p["ceil_mode"]))
            ref[oid] = pool_ref(xs[0], cl.PoolingMode(p["mode"]), p["k"], p["stride"], p["pad"], p["pad_end"],
                                p["ceil_mode"])
        elif kind == "act":
            topo.add(cl.Activation(oid, inputs[0], p["func"], a=p["a"]))
            ref[oid] = activation_ref(xs[0], p["func"], np.float64(np.float32(p["a"])) if p["a"] is not None else None)
        elif kind == "eltwise":
            topo.add(cl.Eltwise(oid, list(inputs), mode=p["mode"]))
            ref[oid] = {"sum": np.add, "prod": np.multiply, "max": np.maximum}[p["mode"]](*xs)
        else:
            topo.add(cl.Concatenation(oid, list(inputs), axis=1))
            ref[oid] = np.concatenate(xs, axis=1)
        assert ref[oid].shape == _out_shape(kind, p, [r.shape for r in xs]), oid
    consumed = {i for _, _, inputs, _ in g.ops for i in inputs}
    outputs = [oid for oid, *_ in g.ops if oid not in consumed] + g.extra_outputs
    return topo, {"x": x}, {o: ref[o] for o in outputs}


SETTINGS = settings(deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
# Examples per engine: a new OpenCL kernel costs ~0.5 s (build and PoCL's first launch), a numba one nothing.
MAX_EXAMPLES = {"cpu": 25, "ocl": 12}


def check_graph(engine: cl.Engine, g: Graph) -> None:
    topo, feeds, expected = build_and_reference(g)
    opts = cl.BuildOptions(outputs=g.extra_outputs or None, optimize_data=g.optimize_data)
    outs = run_topology(engine, topo, feeds, opts)
    assert set(expected) <= set(outs), f"missing outputs {set(expected) - set(outs)}"
    for oid, ref in expected.items():
        scale = max(1.0, float(np.abs(ref).max()))
        try:
            assert_close(outs[oid], ref, rtol=1e-4, atol=1e-4 * scale)
        except AssertionError as e:
            raise AssertionError(f"output '{oid}' of {g}:\n{e}") from None


@pytest.mark.network
def test_random_topology_matches_reference(engine):
    @settings(SETTINGS, max_examples=MAX_EXAMPLES.get(engine.kind, 12))
    @given(g=graphs())
    def fuzz(g: Graph) -> None:
        ran.append(g)
        check_graph(engine, g)

    ran: list[Graph] = []
    fuzz()
    print(f"{len(ran)} graphs checked on the {engine.kind} engine ({sum(len(g.ops) for g in ran)} ops)")
