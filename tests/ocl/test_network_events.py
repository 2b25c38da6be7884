"""Network.execute enqueues without host waits; dependency order is carried by events; profiling is per primitive.

These test the runtime, so they build without graph optimizations (reference kernels, one per primitive)."""

from __future__ import annotations

import time

import numpy as np
import pyopencl as pcl
import pytest

import cldnn_py as cl

REF = cl.BuildOptions(optimize_data=False)


def _chain(rng, n_layers=6, c=32, hw=40):
    topo = cl.Topology(cl.InputLayout("data", cl.Layout(cl.DataType.f32, cl.Format.bfyx, (1, c, hw, hw))))
    prev = "data"
    for i in range(n_layers):
        topo.add(cl.Data(f"w{i}", (rng.standard_normal((c, c, 3, 3)) * 0.05).astype(np.float32)),
                 cl.Convolution(f"conv{i}", prev, weights=f"w{i}", pad=(1, 1)))
        prev = f"conv{i}"
    return topo, prev


def _device_s(net) -> float:
    """Device time of the last run, in seconds: the sum of the executed primitives' profiled times."""
    return sum(p.time_us for p in net.get_profiling_info() if p.status == "EXECUTED") / 1e6


# The chain's (channels, height = width), smallest first. A CPU device (PoCL) needs far longer for the first than
# Python takes to enqueue its six kernels; a GPU can finish it about as fast (H100: 0.1 ms for six convolutions),
# so the chain grows until the device needs ENOUGH_S for it (each step is 16 times the work).
SIZES = ((32, 40), (64, 80), (128, 160))
ENOUGH_S = 0.005


def test_enqueue_returns_before_kernels_finish(engine, rng):
    if engine.kind != "ocl":
        pytest.skip("the CPU engine's stream runs each kernel when it is enqueued (documented in cpu_engine.py)")
    for c, hw in SIZES:
        topo, last = _chain(rng, c=c, hw=hw)
        net = cl.Network(cl.Program(engine, topo, REF))
        x = rng.standard_normal((1, c, hw, hw)).astype(np.float32)
        net.run({"data": x})  # warm-up: first launches pay one-time costs
        if _device_s(net) >= ENOUGH_S:
            break
    net.set_input_data("data", x)
    t0 = time.perf_counter()
    outs = net.execute()
    enqueue_s = time.perf_counter() - t0
    status_after_enqueue = outs[last].event.command_execution_status
    outs[last].numpy()
    device_s = _device_s(net)
    assert status_after_enqueue != pcl.command_execution_status.COMPLETE
    assert enqueue_s < device_s / 2, (enqueue_s, device_s)


def test_events_order_dependencies(engine, rng):
    topo, last = _chain(rng, n_layers=3, c=8, hw=16)
    net = cl.Network(cl.Program(engine, topo, REF))
    net.run({"data": rng.standard_normal((1, 8, 16, 16)).astype(np.float32)})
    insts = net._insts
    for i in range(1, 3):
        dep = insts[f"conv{i - 1}"].events[0].profile.end
        start = insts[f"conv{i}"].events[0].profile.start
        assert start >= dep


def test_profiling_info_lists_every_primitive(engine, rng):
    topo, last = _chain(rng, n_layers=2, c=8, hw=8)
    net = cl.Network(cl.Program(engine, topo, REF))
    net.run({"data": rng.standard_normal((1, 8, 8, 8)).astype(np.float32)})
    info = net.get_profiling_info()
    by_id = {p.id: p for p in info}
    assert set(by_id) == {"data", "w0", "w1", "conv0", "conv1"}
    assert by_id["conv0"].kernel.startswith("convolution_") and by_id["conv0"].status == "EXECUTED"
    assert by_id["conv0"].time_us > 0
    assert by_id["w0"].status == "OPTIMIZED_OUT"


def test_repeated_runs_give_fresh_results(engine, rng):
    topo, last = _chain(rng, n_layers=2, c=4, hw=6)
    net = cl.Network(engine, topo)
    xs = [rng.standard_normal((1, 4, 6, 6)).astype(np.float32) for _ in range(3)]
    outs = [net.run({"data": x})[last] for x in xs]
    again = net.run({"data": xs[0]})[last]
    np.testing.assert_array_equal(outs[0], again)
    assert not np.allclose(outs[0], outs[1])



def test_feeds_in_flight_keep_their_own_values(engine, rng):
    """set_input_data copies into one reused host array per plain input (Network._staged). A feed the caller
    changes afterwards, and a feed whose device copy still waits behind a queued run when the next feed is set,
    each reach the device as given: run A (long) is queued, x1 is set (its copy waits for A) and run B queued, x2
    is set before anything is read: B must still compute on x1."""
    topo, last = _chain(rng, n_layers=4, c=32, hw=40)
    net = cl.Network(cl.Program(engine, topo, REF))
    xs = [rng.standard_normal((1, 32, 40, 40)).astype(np.float32) for _ in range(3)]
    want = [net.run({"data": x})[last].copy() for x in xs[:2]]
    feed = xs[0].copy()
    net.set_input_data("data", feed)
    feed[...] = np.nan  # the caller's array, changed after the call: not what runs
    np.testing.assert_array_equal(net.execute()[last].numpy(), want[0])
    net.set_input_data("data", xs[0])
    net.execute()  # run A
    net.set_input_data("data", xs[1])
    b = net.execute()[last]  # run B, its input copy queued behind A
    net.set_input_data("data", xs[2])  # refills the host array only once B's copy has read it
    np.testing.assert_array_equal(b.numpy(), want[1])
