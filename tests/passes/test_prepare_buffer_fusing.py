"""prepare_buffer_fusing: inputs of a concatenation write into their slices of its buffer (the concat runs no
kernel), and a bfyx reshape is a view."""

from __future__ import annotations

import numpy as np
import pytest

import cldnn_py as cl
from tests.references import conv_ref, pool_ref


def _concat_topology(axis, fmt=cl.Format.bfyx):
    lay = cl.Layout(cl.DataType.f32, cl.Format.bfyx, (2, 3, 4, 5))
    t = cl.Topology(cl.InputLayout("x", lay))
    src = "x"
    if fmt != cl.Format.bfyx:
        t.add(cl.Reorder("xr", "x", fmt))
        src = "xr"
    t.add(cl.Activation("a", src, "tanh"), cl.Activation("b", src, "abs"), cl.Activation("c", src, "square"),
          cl.Concatenation("cat", ["a", "b", "c"], axis=axis),
          cl.Activation("out", "cat", "relu_negative_slope", a=0.5))
    return t


@pytest.mark.parametrize("axis", [1, 2, 3, 0])
def test_concat_runs_no_kernel_and_matches(engine, rng, axis):
    x = rng.standard_normal((2, 3, 4, 5)).astype(np.float32)
    net = cl.Network(cl.Program(engine, _concat_topology(axis)))
    net.poison()
    got = net.run({"x": x})["out"]
    cat = np.concatenate([np.tanh(x), np.abs(x), x * x], axis=axis)
    np.testing.assert_allclose(got, np.where(cat > 0, cat, 0.5 * cat), rtol=1e-5, atol=1e-6)
    info = {p.id: p for p in net.get_profiling_info()}
    assert info["cat"].status == "OPTIMIZED_OUT" and info["cat"].kernel == "in place"
    # no device time of its own: its marker event spans its inputs' kernels (3.5 ms of GoogLeNet's on an H100)
    assert info["cat"].time_us == 0.0 and info["a"].time_us >= 0.0
    prog = net.program
    assert prog.node("a").buffer_of == "cat" and not prog.node("a").layout().padding.is_zero


def test_blocked_feature_concat_keeps_its_kernel(engine, rng):
    x = rng.standard_normal((2, 3, 4, 5)).astype(np.float32)
    net = cl.Network(cl.Program(engine, _concat_topology(1, cl.Format.b_fs_yx_fsv16)))
    got = net.run({"x": x})["out"]
    cat = np.concatenate([np.tanh(x), np.abs(x), x * x], axis=1)
    np.testing.assert_allclose(got, np.where(cat > 0, cat, 0.5 * cat), rtol=1e-5, atol=1e-6)
    assert {p.id: p.status for p in net.get_profiling_info()}["cat"] == "EXECUTED"


def test_concat_input_that_is_also_read_elsewhere(engine, rng):
    """An input with a second user: on OpenCL it keeps its own buffer (the concat copies it); on the CPU engine it
    writes its slice of the concat's buffer and the other user reads it there (its kernel unchanged)."""
    t = _concat_topology(1)
    t.add(cl.Activation("side", "a", "exp"))
    net = cl.Network(cl.Program(engine, t))
    prog = net.program
    in_place = engine.kind == "cpu"
    assert (prog.node("a").buffer_of == "cat") == in_place and prog.node("cat").in_place == in_place
    x = rng.standard_normal((2, 3, 4, 5)).astype(np.float32)
    net.poison()
    out = net.run({"x": x})
    cat = np.concatenate([np.tanh(x), np.abs(x), x * x], axis=1)
    np.testing.assert_allclose(out["out"], np.where(cat > 0, cat, 0.5 * cat), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(out["side"], np.exp(np.tanh(x)), rtol=1e-5, atol=1e-6)


def _split_concat_topology(cuts, order, tail=True):
    """YOLO's C2f shape: x (2, 12, 5, 6) -> P = tanh -> crops of P's channels at ``cuts`` (Split) -> m = abs of the
    last crop -> concat of the crops in ``order`` (+ m when ``tail``) -> relu. Returns (topology, reference)."""
    t = cl.Topology(cl.InputLayout("x", cl.Layout(cl.DataType.f32, cl.Format.bfyx, (2, 12, 5, 6))),
                    cl.Activation("p", "x", "tanh"))
    bounds = [0, *cuts, 12]
    names = []
    for j, (lo, hi) in enumerate(zip(bounds, bounds[1:])):
        t.add(cl.Crop(f"s{j}", "p", shape=(2, hi - lo, 5, 6), offsets=(0, lo, 0, 0)))
        names.append(f"s{j}")
    t.add(cl.Activation("m", names[-1], "abs"))
    parts = [names[j] for j in order] + (["m"] if tail else [])
    t.add(cl.Concatenation("cat", parts, axis=1), cl.Activation("out", "cat", "relu"))

    def reference(x):
        p = np.tanh(x.astype(np.float64))
        chunks = {f"s{j}": p[:, lo:hi] for j, (lo, hi) in enumerate(zip(bounds, bounds[1:]))}
        chunks["m"] = np.abs(chunks[names[-1]])
        return np.maximum(np.concatenate([chunks[n] for n in parts], axis=1), 0)

    return t, reference


@pytest.mark.parametrize(("cuts", "order", "in_place"), [
    ((6,), (0, 1), True),          # two halves in order, as C2f's Split
    ((3, 7), (0, 1, 2), True),     # three unequal parts in order
    ((6,), (1, 0), False),         # out of order: P cannot write one slice
])
def test_concat_of_the_crops_that_tile_a_producer(engine, rng, cuts, order, in_place):
    """Crops that tile their producer P, in order, as consecutive concat inputs: P writes its slice of the concat's
    buffer, the crops view it there (one still read by another node), the concat runs no kernel. On OpenCL P's
    fast activation kernel (activation_vec8) writes no padded output, so P keeps its buffer there (_keeps_kernel)."""
    t, reference = _split_concat_topology(cuts, order)
    net = cl.Network(cl.Program(engine, t))
    prog = net.program
    in_place = in_place and engine.kind == "cpu"
    assert prog.node("cat").in_place == in_place
    if in_place:
        assert prog.node("p").buffer_of == "cat" and prog.node("s0").buffer_of == "cat"
    x = rng.standard_normal((2, 12, 5, 6)).astype(np.float32)
    net.poison()
    np.testing.assert_allclose(net.run({"x": x})["out"], reference(x), rtol=1e-5, atol=1e-6)


def test_concat_of_part_of_a_producer_is_not_in_place(engine, rng):
    """Only the first of two crops goes into the concat: P's slice would not hold the other crop."""
    t = cl.Topology(cl.InputLayout("x", cl.Layout(cl.DataType.f32, cl.Format.bfyx, (2, 12, 5, 6))),
                    cl.Activation("p", "x", "tanh"),
                    cl.Crop("s0", "p", shape=(2, 6, 5, 6), offsets=(0, 0, 0, 0)),
                    cl.Crop("s1", "p", shape=(2, 6, 5, 6), offsets=(0, 6, 0, 0)),
                    cl.Activation("m", "s1", "abs"), cl.Concatenation("cat", ["s0", "m"], axis=1),
                    cl.Activation("out", "cat", "relu"))
    net = cl.Network(cl.Program(engine, t))
    assert net.program.node("p").buffer_of is None
    x = rng.standard_normal((2, 12, 5, 6)).astype(np.float32)
    p = np.tanh(x.astype(np.float64))
    net.poison()
    np.testing.assert_allclose(net.run({"x": x})["out"], np.maximum(np.concatenate([p[:, :6], np.abs(p[:, 6:])], 1),
                                                                     0), rtol=1e-5, atol=1e-6)


def test_reshape_is_a_view(engine, rng):
    t = cl.Topology(cl.InputLayout("x", cl.Layout(cl.DataType.f32, cl.Format.bfyx, (2, 3, 4, 5))),
                    cl.Activation("a", "x", "tanh"), cl.Reshape("r", "a", (2, 60)), cl.Activation("o", "r", "abs"))
    x = rng.standard_normal((2, 3, 4, 5)).astype(np.float32)
    net = cl.Network(cl.Program(engine, t))
    np.testing.assert_allclose(net.run({"x": x})["o"], np.abs(np.tanh(x)).reshape(2, 60), rtol=1e-6)
    assert {p.id: p.kernel for p in net.get_profiling_info()}["r"] == "view"


def test_crop_is_a_view(engine, rng):
    t = cl.Topology(cl.InputLayout("x", cl.Layout(cl.DataType.f32, cl.Format.bfyx, (2, 6, 5, 7))),
                    cl.Activation("a", "x", "tanh"),
                    cl.Crop("left", "a", shape=(2, 3, 5, 4), offsets=(0, 0, 0, 1)),
                    cl.Crop("right", "a", shape=(1, 3, 2, 7), offsets=(1, 3, 2, 0)),
                    cl.Eltwise("o1", ["left", "left"], mode="sum"), cl.Activation("o2", "right", "abs"))
    x = rng.standard_normal((2, 6, 5, 7)).astype(np.float32)
    net = cl.Network(cl.Program(engine, t))
    net.poison()
    out = net.run({"x": x})
    a = np.tanh(x)
    np.testing.assert_allclose(out["o1"], 2 * a[:, 0:3, :, 1:5], rtol=1e-6)
    np.testing.assert_allclose(out["o2"], np.abs(a[1:2, 3:6, 2:4, :]), rtol=1e-6)
    kinds = {p.id: p.kernel for p in net.get_profiling_info()}
    assert kinds["left"] == "view" and kinds["right"] == "view"
    assert "a" not in net.program.memory_slots  # viewed: its buffer lives as long as the views' readers



def _fsv16_concat_case(rng, widths, pool=True):
    """x (2, 32, 14, 18) -> a 1x1 convolution (fsv16 on PoCL) -> one convolution per width (1x1 and 3x3 with bias in
    turn: the 3x3 ones run as Winograd products) and a 3x3 max pooling (second) -> concatenation along features ->
    ReLU. Returns the topology and a float64 reference of its output for an input."""
    consts = {}

    def data(name, shape):
        consts[name] = (rng.standard_normal(shape) * 0.2).astype(np.float32)
        return cl.Data(name, consts[name])

    t = cl.Topology(cl.InputLayout("x", cl.Layout(cl.DataType.f32, cl.Format.bfyx, (2, 32, 14, 18))),
                    data("w0", (32, 32, 1, 1)), cl.Convolution("c0", "x", "w0"))
    names = []
    for i, oc in enumerate(widths, 1):
        k = 3 if i % 2 == 0 else 1
        t.add(data(f"w{i}", (oc, 32, k, k)), data(f"b{i}", (oc,)),
              cl.Convolution(f"c{i}", "c0", f"w{i}", bias=f"b{i}", pad=(k // 2, k // 2)))
        names.append(f"c{i}")
    if pool:
        t.add(cl.Pooling("p", "c0", mode="max", kernel=(3, 3), stride=(1, 1), pad=(1, 1)))
        names.insert(1, "p")
    t.add(cl.Concatenation("cat", names, axis=1), cl.Activation("out", "cat", "relu"))

    def reference(x):
        c0 = conv_ref(x.astype(np.float64), consts["w0"], None, (1, 1), (1, 1), (0, 0), (0, 0), 1)
        parts = []
        for n in names:
            if n == "p":
                parts.append(pool_ref(c0, "max", (3, 3), (1, 1), (1, 1), (1, 1)))
            else:
                w, b = consts["w" + n[1:]], consts["b" + n[1:]]
                p = w.shape[2] // 2
                parts.append(conv_ref(c0, w, b, (1, 1), (1, 1), (p, p), (p, p), 1))
        return np.maximum(np.concatenate(parts, axis=1), 0)

    return t, names, reference


@pytest.mark.parametrize("widths", [(16, 32, 24), (32, 48)], ids=["tail-24", "whole"])
def test_fsv16_concat_of_whole_slices_runs_no_kernel_and_matches(engine, rng, widths):
    """PoCL: convolution, Winograd and pooling producers write their 16-channel slices of the concatenation's
    b_fs_yx_fsv16 buffer (their outputs padded along features by whole slices); the last input may end inside a
    slice. The CPU engine keeps the copy (its kernels take no such padding)."""
    t, names, reference = _fsv16_concat_case(rng, widths)
    net = cl.Network(cl.Program(engine, t))
    net.poison()
    x = rng.standard_normal((2, 32, 14, 18)).astype(np.float32)
    np.testing.assert_allclose(net.run({"x": x})["out"], reference(x), rtol=1e-4, atol=1e-4)
    prog = net.program
    if engine.kind == "cpu" or prog.node("cat").layout().format != cl.Format.b_fs_yx_fsv16:
        assert not prog.node("cat").in_place or prog.node("cat").layout().format != cl.Format.b_fs_yx_fsv16
        return
    assert prog.node("cat").in_place
    assert {p.id: p.kernel for p in net.get_profiling_info()}["cat"] == "in place"
    offset = 0
    for n in names:
        lay = prog.node(n).layout()
        assert prog.node(n).buffer_of == "cat" and lay.padding.lower[1] == offset
        offset += lay.shape[1]
    assert {prog.node(n).kind for n in names} >= {"convolution", "pooling", "winograd_output"}


def test_fsv16_concat_with_a_slice_starting_inside_a_block_keeps_its_kernel(ocl_engine, rng):
    t, names, reference = _fsv16_concat_case(rng, (24, 16), pool=False)
    net = cl.Network(cl.Program(ocl_engine, t))
    x = rng.standard_normal((2, 32, 14, 18)).astype(np.float32)
    np.testing.assert_allclose(net.run({"x": x})["out"], reference(x), rtol=1e-4, atol=1e-4)
    prog = net.program
    assert not prog.node("cat").in_place and all(prog.node(n).buffer_of is None for n in names)


def test_fsv16_concat_whose_producer_kernel_writes_no_slices_keeps_its_kernel(ocl_engine, rng):
    """A producer whose best kernel would change with a padded output (here a forced one) keeps its own buffer."""
    t, names, reference = _fsv16_concat_case(rng, (16, 32), pool=False)
    opts = cl.BuildOptions(force_implementations={"c1": "convolution_ref"})
    net = cl.Network(cl.Program(ocl_engine, t, opts))
    x = rng.standard_normal((2, 32, 14, 18)).astype(np.float32)
    np.testing.assert_allclose(net.run({"x": x})["out"], reference(x), rtol=1e-4, atol=1e-4)
    assert not net.program.node("cat").in_place
