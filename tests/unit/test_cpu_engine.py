"""The CPU engine's own contract: Engine("cpu") and the no-OpenCL fallback, host memory, completed events."""

from __future__ import annotations

import logging
import pickle

import numpy as np
import pytest

import cldnn_py as cl
from cldnn_py.cpu_engine import ALIGN, CpuEngine, CpuEvent, aligned_bytes
from kernel_selector.kernel_base import Arg, ClKernelData, CpuKernelData


def test_engine_cpu_is_the_cpu_engine():
    e = cl.Engine("cpu")
    assert isinstance(e, CpuEngine) and isinstance(e, cl.Engine) and e.kind == "cpu" and e.info.spec == "cpu"
    with pytest.raises(TypeError, match="cannot be pickled"):
        pickle.dumps(e)


def test_engine_falls_back_to_cpu_without_opencl(monkeypatch, caplog):
    import cldnn_py.device as device

    monkeypatch.setattr(device, "_platforms", lambda: [])
    monkeypatch.delenv("CLDNN_PY_DEVICE", raising=False)
    monkeypatch.delenv("PYOPENCL_CTX", raising=False)
    with caplog.at_level(logging.WARNING, logger="cldnn_py.engine"):
        e = cl.Engine()
    assert e.kind == "cpu"
    assert "no OpenCL platform found" in caplog.text and "pocl-binary-distribution" in caplog.text
    with pytest.raises(cl.DeviceError, match="no OpenCL platform"):
        cl.Engine("cl:0:0")  # an explicit OpenCL device still says what is missing


def test_host_buffers_are_aligned_zeroed_and_checked():
    e = cl.Engine("cpu")
    buf = aligned_bytes(1000)
    assert buf.ctypes.data % ALIGN == 0 and buf.size == 1000 and not buf.any()
    lay = cl.Layout(cl.DataType.f32, cl.Format.b_fs_yx_fsv16, (1, 19, 3, 2), cl.Padding((0, 0, 1, 1), (0, 0, 1, 1)))
    mem = e.allocate(lay)
    x = np.random.default_rng(1).standard_normal(lay.shape).astype(np.float32)
    mem.write(x)
    np.testing.assert_array_equal(mem.read(), x)
    with pytest.raises(cl.DeviceError, match="'big'.*exceeds the CPU engine's max allocation"):
        e.allocate_buffer(e.info.max_alloc_bytes + 1, owner="big")


def test_stream_runs_at_enqueue_and_events_carry_times():
    e = cl.Engine("cpu")
    calls = []
    k = e.bind_kernel(CpuKernelData("probe", lambda a, b: calls.append(a + b), []), [1, 2])
    ev = e.enqueue_kernel(k, (1,), None)
    assert calls == [3] and isinstance(ev, CpuEvent) and ev.profile.end >= ev.profile.start
    ev.wait()
    k = e.bind(CpuKernelData("probe", lambda *a: calls.append(a), [Arg("input", 1), Arg("output"), Arg("int", 4)]),
               lambda kind, i: f"{kind}{i}")
    e.enqueue_kernel(k, (1,), None)
    assert calls[-1] == ("input1", "output0", np.int32(4))
    with pytest.raises(cl.DeviceError, match="no CPU implementation"):
        e.bind_kernel(ClKernelData("an_opencl_kernel", "", (1,), None, []), [])


def test_engines_are_siblings_and_subclasses_implement_the_protocol():
    from cldnn_py.engine import PROTOCOL
    from cldnn_py.ocl_engine import OclEngine

    assert not issubclass(CpuEngine, OclEngine) and not issubclass(OclEngine, CpuEngine)
    assert not hasattr(CpuEngine, "kernel_cache") and CpuEngine.build is cl.Engine.build
    with pytest.raises(TypeError, match="does not implement"):
        type("Half", (cl.Engine,), {m: lambda self: None for m in PROTOCOL[:3]})
    with pytest.raises(cl.CldnnError, match="'p': unknown kernel argument kind 'blob'"):
        cl.Engine("cpu").bind(CpuKernelData("k", print, [Arg("blob")]), lambda kind, i: None, owner="p")


def test_clamp_lws_keeps_divisors_of_gws_under_the_limit():
    from cldnn_py.engine import clamp_lws

    assert clamp_lws((64, 30, 4), (16, 15, 1), 1024) == (16, 15, 1)  # already fits
    assert clamp_lws((64, 30, 4), (16, 15, 1), 64) == (8, 6, 1)  # 16 -> 8, then 15 -> 10 -> 6 (divisors of 30)
    out = clamp_lws((7, 9), (7, 9), 10)
    assert out[0] * out[1] <= 10 and 7 % out[0] == 0 and 9 % out[1] == 0
    with pytest.raises(ValueError, match="limit must be >= 1"):
        clamp_lws((4,), (2,), 0)
