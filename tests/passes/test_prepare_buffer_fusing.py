"""prepare_buffer_fusing: inputs of a concatenation write into their slices of its buffer (the concat runs no
kernel), and a bfyx reshape is a view."""

from __future__ import annotations

import numpy as np
import pytest

import cldnn_py as cl


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


def test_concat_output_that_is_also_read_elsewhere_is_not_in_place(engine, rng):
    t = _concat_topology(1)
    t.add(cl.Activation("side", "a", "exp"))  # 'a' has a second user: it cannot live in the concat's buffer
    prog = cl.Program(engine, t)
    assert prog.node("a").buffer_of is None and not prog.node("cat").in_place


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
