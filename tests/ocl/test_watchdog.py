"""The run watchdog (``BuildOptions.watchdog_s``, ``cldnn_py/watchdog.py``): a run longer than the deadline raises a
DeviceError naming a primitive of the network that had not finished; a generous deadline changes nothing (results
against the float64 reference); the CPU engine's network is unusable after its watchdog fired."""

from __future__ import annotations

import re

import numpy as np
import pytest

import cldnn_py as cl
from tests.references import conv_ref


def _net(engine, rng, watchdog_s, hw=128, oc=64):
    """A reference-kernel convolution (slow on purpose: 0.15 G multiply-adds at ``hw`` 64, tens of milliseconds on
    PoCL; the CPU engine's reference is BLAS-fast and needs more work: ``oc``) from (1, 64, hw, hw) to ``oc``
    channels, and a ReLU."""
    x = rng.standard_normal((1, 64, hw, hw)).astype(np.float32)
    w = (rng.standard_normal((oc, 64, 3, 3)) * 0.1).astype(np.float32)
    topo = cl.Topology(cl.InputLayout("x", cl.Layout(cl.DataType.f32, cl.Format.bfyx, x.shape)), cl.Data("w", w),
                       cl.Convolution("conv", "x", weights="w", pad=(1, 1)),
                       cl.Activation("relu", "conv", cl.ActivationFunc.relu))
    ref = "convolution_cpu_ref" if engine.kind == "cpu" else "convolution_ref"
    opts = cl.BuildOptions(force_implementations={"conv": ref}, watchdog_s=watchdog_s)
    return cl.Network(engine, topo, opts), x, w


def test_a_generous_deadline_changes_nothing(engine, rng):
    net, x, w = _net(engine, rng, 120.0, hw=24)  # small: the run only has to finish and be right
    net.poison()
    got = net.run({"x": x})["relu"]
    ref = np.maximum(conv_ref(x, w, None, (1, 1), (1, 1), (1, 1), (1, 1), 1), 0)
    np.testing.assert_allclose(got, ref, rtol=1e-4, atol=1e-4)


def test_a_run_past_the_deadline_names_the_primitive(engine, rng):
    # far less than the convolution, far more than setting the input; a GPU runs the 128x128 case within the
    # deadline (an H100: under 10 ms), so there the planes are 4x4 times larger (9.7 G multiply-adds); the CPU
    # engine's reference convolution is an im2col and BLAS's sgemm, which ran the 64x64 case (0.15 G) in under
    # 10 ms on an AVX-512 Zen 4: 128x128 to 256 channels there (2.4 G, 25 ms or more at the machine's 200 GFLOP/s;
    # 256x256 to 64 channels is as much work, but its 16 MB input alone took 10 ms to get in under the full suite's
    # load, and the watchdog then fired before the first primitive)
    gpu = engine.kind == "ocl" and engine.info.caps.device_type == "gpu"
    warm, wx, _ = _net(engine, rng, 120.0, hw=8)  # the kernels' first use (numba's cache, PoCL's work-group
    warm.run({"x": wx})                            # functions) is paid here, not inside the 0.01 s
    hw = 512 if gpu else 128 if engine.kind == "cpu" else 64
    net, x, _ = _net(engine, rng, 0.01, hw=hw, oc=256 if engine.kind == "cpu" else 64)  # well past 0.01 s
    with pytest.raises(cl.DeviceError, match=r"watchdog: primitive '(\w+)' did not finish within 0.01 s") as e:
        net.run({"x": x})
    named = re.search(r"primitive '(\w+)'", str(e.value)).group(1)
    assert named in {n.id for n in net.program.order}, named
    if engine.kind == "cpu":
        with pytest.raises(cl.DeviceError, match="no longer usable"):
            net.run({"x": x})
    engine.finish()  # let the kernel that kept running end before the next test


def test_bad_watchdog_values_are_refused(monkeypatch):
    with pytest.raises(ValueError, match="watchdog_s must be a number of seconds > 0"):
        cl.BuildOptions(watchdog_s=0)
    monkeypatch.setenv("CLDNN_PY_WATCHDOG_S", "soon")
    with pytest.raises(ValueError, match="CLDNN_PY_WATCHDOG_S: expected a number of seconds > 0, got 'soon'"):
        cl.BuildOptions()


def test_a_dynamic_network_runs_under_the_watchdog(engine, rng):
    """A dynamic batch: each specialization's run is watched (a generous deadline: the result is the reference)."""
    from onnx import TensorProto, helper

    from cldnn_py.dynamic_network import DynamicNetwork

    g = helper.make_graph([helper.make_node("Relu", ["x"], ["y"])], "g",
                          [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["n", 3])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["n", 3])])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)], ir_version=10)
    net = cl.Network(engine, cl.load_onnx(m), cl.BuildOptions(watchdog_s=120.0))
    assert isinstance(net, DynamicNetwork)
    for n in (2, 5):
        x = rng.standard_normal((n, 3)).astype(np.float32)
        np.testing.assert_array_equal(net.run({"x": x})["y"], np.maximum(x, 0))
