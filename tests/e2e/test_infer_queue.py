"""Serving (issue 19): ``Network.start_async``, ``InferRequest`` and ``AsyncInferQueue`` on both engines.

Each request's outputs are checked against the float64 reference of its own input (and, bit for bit, against a
single Network of the same Program); callbacks must come once per inference with its userdata; errors of runs and
callbacks must surface from ``wait()`` / ``wait_all()``. On an OpenCL device with an out-of-order queue, one network's
execution must not wait for another network's (the barrier this replaced made it), and one network's consecutive
executions must still be ordered (write-after-read). No assertion on durations."""

from __future__ import annotations

import logging
import threading
from collections import Counter

import numpy as np
import pytest

import cldnn_py as cl
from cldnn_py.errors import CldnnError, DeviceError, ShapeError
from tests.helpers import assert_close, f32
from tests.references import conv_ref

SHAPE = (1, 8, 9, 9)


def _topology(w, b):
    """x -> conv 3x3 (16) + bias -> relu ("relu"), and x -> conv -> max pool 2x2 ("pool"): two outputs."""
    t = cl.Topology()
    t.add(cl.InputLayout("x", cl.Layout(cl.DataType.f32, cl.Format.bfyx, SHAPE)))
    t.add(cl.Data("w", w), cl.Data("b", b))
    t.add(cl.Convolution("conv", "x", weights="w", bias="b", pad=(1, 1)))
    t.add(cl.Activation("relu", "conv", func="relu"))
    t.add(cl.Pooling("pool", "conv", mode="max", kernel=(2, 2), stride=(2, 2)))
    return t


def _reference(x, w, b):
    y = conv_ref(x, w, b, (1, 1), (1, 1), (1, 1), (1, 1), 1)
    pool = y[:, :, :8, :8].reshape(1, 16, 4, 2, 4, 2).max(axis=(3, 5))
    return {"relu": np.maximum(y, 0), "pool": pool}


@pytest.fixture
def case(engine, rng):
    w, b = f32(rng.standard_normal((16, 8, 3, 3)) * 0.2), f32(rng.standard_normal(16))
    program = cl.Program(engine, _topology(w, b))
    inputs = [f32(rng.standard_normal(SHAPE)) for _ in range(9)]
    return program, inputs, [_reference(x, w, b) for x in inputs]


def _check(outputs, expected):
    assert set(outputs) == {"relu", "pool"}
    for k in expected:
        assert_close(outputs[k], expected[k], rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("streams", [None, True, False])
def test_queue_gives_each_request_its_own_outputs_and_one_callback(case, streams):
    program, inputs, expected = case
    single = cl.Network(program)
    alone = [single.run({"x": x}) for x in inputs]
    queue = cl.AsyncInferQueue(program, jobs=3, streams=streams)
    got, calls, lock = {}, Counter(), threading.Lock()

    def callback(request, userdata):
        with lock:
            calls[userdata] += 1
            got[userdata] = request.results
        assert request.userdata == userdata and request.latency > 0

    queue.set_callback(callback)
    for i, x in enumerate(inputs):
        assert queue.start_async({"x": x}, userdata=i) in range(3)
    queue.wait_all()
    assert calls == Counter(range(len(inputs)))  # once each, with its own userdata
    for i, exp in enumerate(expected):
        _check(got[i], exp)
        for k in exp:
            np.testing.assert_array_equal(got[i][k], alone[i][k])  # same kernels, same bits
    assert queue.is_ready() and queue.get_idle_request_id() in range(3)
    assert len(queue) == 3 and [r.network for r in queue] == [queue[i].network for i in range(3)]
    assert len({id(r.network) for r in queue}) == 3  # each request its own activations
    assert sorted(u for u in queue.userdata if u is not None) == sorted(set(queue.userdata) - {None})


def test_queue_over_a_network_reuses_it_as_request_zero(case):
    program, inputs, expected = case
    net = cl.Network(program)
    queue = cl.AsyncInferQueue(net, jobs=2)
    assert queue[0].network is net and queue[1].network.program is program
    for i, x in enumerate(inputs[:4]):
        queue.start_async({"x": x}, userdata=i)
    queue.wait_all()
    last = {r.userdata: r.results for r in queue}
    for i, out in last.items():
        _check(out, expected[i])


def test_callback_exception_is_logged_and_raised_by_wait_all(case, caplog):
    program, inputs, _ = case
    queue = cl.AsyncInferQueue(program, jobs=2)
    seen = []

    def callback(request, userdata):
        seen.append(userdata)
        if userdata == 3:
            raise ValueError("callback failed on purpose for userdata 3")

    queue.set_callback(callback)
    with caplog.at_level(logging.ERROR, logger="cldnn_py"):
        for i, x in enumerate(inputs):
            queue.start_async({"x": x}, userdata=i)
        with pytest.raises(ValueError, match="on purpose for userdata 3"):
            queue.wait_all()
    assert sorted(seen) == list(range(len(inputs)))  # the others ran; the failing request became idle again
    assert any("on purpose" in r.getMessage() for r in caplog.records)
    queue.start_async({"x": inputs[0]}, userdata=0)
    queue.wait_all()  # reported once: the next wait_all is clean


def test_failed_run_skips_the_callback_and_is_raised(case, monkeypatch):
    program, inputs, _ = case
    queue = cl.AsyncInferQueue(program, jobs=2)
    called = []
    queue.set_callback(lambda request, userdata: called.append(userdata))

    def broken(self):
        raise DeviceError("the device lost this output (injected)")

    monkeypatch.setattr(cl.network.NetworkOutput, "numpy", broken)
    queue.start_async({"x": inputs[0]}, userdata="a")
    with pytest.raises(DeviceError, match="injected"):
        queue.wait_all()
    with pytest.raises(DeviceError, match="injected"):
        queue[0].wait()
    assert called == [] and queue.is_ready()
    monkeypatch.undo()
    queue.start_async({"x": inputs[1]}, userdata="b")
    queue.wait_all()
    assert called == ["b"]


def test_network_start_async_returns_a_future(case):
    program, inputs, expected = case
    net = cl.Network(program)
    seen = []
    runs = [net.start_async({"x": x}, callback=lambda run: seen.append(run.userdata), userdata=i)
            for i, x in enumerate(inputs[:3])]  # each waits for the previous one's outputs to be read
    for run, exp in zip(runs, expected):
        _check(run.result(), exp)
        assert run.done() and run.latency_ms is not None and run.latency_ms > 0 and run.error is None
    assert seen == [0, 1, 2]  # one worker per network: callbacks in start order
    _check(net.run({"x": inputs[4]}), expected[4])  # the synchronous API afterwards


def test_bad_feed_raises_at_start_and_leaves_the_request_idle(case):
    program, inputs, expected = case
    queue = cl.AsyncInferQueue(program, jobs=1)
    with pytest.raises(ShapeError, match="'x'"):
        queue.start_async({"x": np.zeros((1, 8, 9, 8), np.float32)})
    assert queue.is_ready()
    queue.wait_all()  # nothing in flight, nothing to raise
    queue.start_async({"x": inputs[2]}, userdata=2)
    queue.wait_all()
    _check(queue[0].results, expected[2])
    with pytest.raises(CldnnError, match="never set"):
        cl.Network(program).start_async({})


def test_busy_request_refuses_a_second_start(case):
    program, inputs, expected = case
    request = cl.InferRequest(program)
    release = threading.Event()
    request.set_callback(lambda req, userdata: release.wait(30))
    request.start_async({"x": inputs[0]})
    with pytest.raises(CldnnError, match="busy"):
        request.start_async({"x": inputs[1]})
    assert request.busy
    release.set()
    request.wait()
    assert not request.busy
    _check(request.results, expected[0])
    request.set_callback(None)
    _check(request.infer({"x": inputs[1]}), expected[1])
    with pytest.raises(CldnnError, match="no run has completed"):
        _ = cl.InferRequest(program).results


def test_requests_started_directly_are_not_handed_out_while_busy(case):
    program, inputs, expected = case
    queue = cl.AsyncInferQueue(program, jobs=2)
    for r, x in zip(queue, inputs):
        r.infer({"x": x})  # each request used directly once: the queue must not list it twice afterwards
    release = threading.Event()
    queue[0].set_callback(lambda request, userdata: release.wait(30))
    queue[0].start_async({"x": inputs[2]}, userdata="direct")
    assert queue.get_idle_request_id() == 1
    assert queue.start_async({"x": inputs[3]}, userdata=3) == 1  # request 0 is busy: skipped
    queue[1].wait()
    assert queue.is_ready() and queue.get_idle_request_id() == 1
    release.set()
    queue.wait_all()
    queue.set_callback(None)
    for i in range(4, 8):
        queue.start_async({"x": inputs[i]}, userdata=i)
    queue.wait_all()
    assert 7 in queue.userdata and all(u in range(4, 8) for u in queue.userdata)
    for r in queue:
        _check(r.results, expected[r.userdata])


def test_dynamic_network_start_async_runs_on_the_worker(engine, rng):
    import onnx
    from onnx import TensorProto, helper

    w = f32(rng.standard_normal((4, 3, 3, 3)) * 0.3)
    g = helper.make_graph([helper.make_node("Conv", ["x", "w"], ["c"], pads=[1, 1, 1, 1]),
                           helper.make_node("Relu", ["c"], ["y"])], "g",
                          [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 3, 5, 5])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N", 4, 5, 5])],
                          [onnx.numpy_helper.from_array(w, "w")])
    model = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)], ir_version=10)
    net = cl.Network(engine, cl.load_onnx(model))
    assert type(net).__name__ == "DynamicNetwork"
    xs = [f32(rng.standard_normal((n, 3, 5, 5))) for n in (1, 2)]
    runs = [net.start_async({"x": x}, userdata=len(x)) for x in xs]
    for x, run in zip(xs, runs):
        expect = np.maximum(conv_ref(x, w, None, (1, 1), (1, 1), (1, 1), (1, 1), 1), 0)
        assert_close(run.result()["y"], expect, rtol=1e-4, atol=1e-4)
        assert run.userdata == len(x)
    with pytest.raises(TypeError, match="DynamicNetwork"):
        cl.AsyncInferQueue(net)


def test_jobs_and_sources_are_checked(case):
    program, _, _ = case
    with pytest.raises(ValueError, match="jobs"):
        cl.AsyncInferQueue(program, jobs=-1)
    assert len(cl.AsyncInferQueue(program)) == cl.infer_queue.DEFAULT_JOBS
    with pytest.raises(TypeError, match="Program"):
        cl.InferRequest("model.onnx")  # type: ignore[arg-type]


# ----- ordering on the device queue (OpenCL) ---------------------------------------------------------------------
def _chain(rng, c, hw, n_layers=4):
    t = cl.Topology(cl.InputLayout("data", cl.Layout(cl.DataType.f32, cl.Format.bfyx, (1, c, hw, hw))))
    prev = "data"
    for i in range(n_layers):
        t.add(cl.Data(f"w{i}", f32(rng.standard_normal((c, c, 3, 3)) * (1.0 / (3 * np.sqrt(c))))),
              cl.Convolution(f"conv{i}", prev, weights=f"w{i}", pad=(1, 1)))
        prev = f"conv{i}"
    return t, prev


def test_consecutive_executions_of_one_network_stay_ordered(engine, rng):
    """set_input_data right after execute() (outputs not read) must not overwrite the input the running execution
    reads, and execute() again must not overwrite its buffers before it ends: the first outputs stay those of the
    first input, the second those of the second."""
    topo, last = _chain(rng, c=16, hw=24)
    net = cl.Network(cl.Program(engine, topo))
    xs = [f32(rng.standard_normal((1, 16, 24, 24))) for _ in range(10)]
    expected = [cl.Network(net.program).run({"data": x})[last] for x in xs]
    for k in range(0, len(xs), 2):
        net.set_input_data("data", xs[k])
        first = net.execute()[last]
        net.set_input_data("data", xs[k + 1])  # before the first execution's outputs are read
        np.testing.assert_array_equal(first.numpy(), expected[k])
        second = net.execute()[last]
        again = net.execute()[last]  # same input, no read in between
        np.testing.assert_array_equal(again.numpy(), expected[k + 1])
        np.testing.assert_array_equal(second.numpy(), expected[k + 1])


def test_one_network_does_not_wait_for_another_on_the_queue(engine, rng):
    """A small network executed while a long one runs finishes first: its kernels wait only for its own events.
    (With the former global barrier it always finished after the long one's last kernel.) On a GPU the small one
    runs on a queue of its own (``stream=True``, as AsyncInferQueue's requests there): NVIDIA's out-of-order queue
    runs its kernels in order."""
    from cldnn_py.infer_queue import streams_by_default

    if engine.kind != "ocl" or not engine.info.out_of_order:
        pytest.skip("an out-of-order OpenCL queue overlaps networks; the CPU engine and in-order queues do not")
    topo, last = _chain(rng, c=64, hw=96, n_layers=6)
    long_net = cl.Network(cl.Program(engine, topo))
    small_topo, small_last = _chain(rng, c=4, hw=6, n_layers=1)
    small_program = cl.Program(engine, small_topo)
    small = cl.Network(small_program, stream=streams_by_default(small_program))
    x, s = f32(rng.standard_normal((1, 64, 96, 96))), f32(rng.standard_normal((1, 4, 6, 6)))
    long_net.run({"data": x}), small.run({"data": s})  # warm-up
    long_net.set_input_data("data", x)
    long_out = long_net.execute()[last]
    small_out = small.run({"data": s})[small_last]
    long_value = long_out.numpy()
    small_end = small._insts[small_last].events[0].profile.end
    long_end = long_net._insts[last].events[0].profile.end
    assert small_end < long_end
    np.testing.assert_array_equal(small_out, cl.Network(small.program).run({"data": s})[small_last])
    np.testing.assert_array_equal(long_value, cl.Network(long_net.program).run({"data": x})[last])


def test_stream_networks_get_their_own_queue_and_share_the_program(engine, rng):
    """``Network(program, stream=True)``: on OpenCL a command queue of its own on the same context (its memory and
    the engine's mix: a Memory allocated on the engine binds as its input), on the CPU engine the engine itself;
    outputs equal a plain Network's bit for bit, also with both running at once."""
    from cldnn_py.infer_queue import streams_by_default

    topo, last = _chain(rng, c=16, hw=20, n_layers=3)
    program = cl.Program(engine, topo)
    plain, streamed = cl.Network(program), cl.Network(program, stream=True)
    assert streamed.engine.root is engine and plain.engine is engine
    if engine.kind == "ocl":
        assert streamed.engine.queue is not engine.queue and streamed.engine.context is engine.context
        assert streamed.engine.kernel_cache is engine.kernel_cache
    else:
        assert streamed.engine is engine
    assert streams_by_default(program) == (engine.kind == "ocl" and engine.info.caps.device_type == "gpu")
    xs = [f32(rng.standard_normal((1, 16, 20, 20))) for _ in range(4)]
    for x in xs:
        plain.set_input_data("data", x)
        streamed.set_input_data("data", xs[0] * 2 - x)
        a, b = plain.execute()[last], streamed.execute()[last]  # both in flight
        np.testing.assert_array_equal(b.numpy(), cl.Network(program).run({"data": xs[0] * 2 - x})[last])
        np.testing.assert_array_equal(a.numpy(), cl.Network(program).run({"data": x})[last])
    mem = engine.allocate(cl.Layout(cl.DataType.f32, cl.Format.bfyx, (1, 16, 20, 20)), owner="user")
    mem.write(xs[1])
    streamed.set_input_memory("data", mem)
    np.testing.assert_array_equal(streamed.run({})[last], cl.Network(program).run({"data": xs[1]})[last])
