"""Bad input, index math: OpenCL kernels compute offsets in ``int``, so a tensor of more than 2^31-1 elements is
refused by kernel selection, naming the primitive and the element count (a layout-only check: nothing is allocated).
The CPU engine's numba kernels index in 64 bits. Part of the bad-input catalogue (tests/*/test_bad_input_*.py)."""

from __future__ import annotations

import dataclasses

import pytest

import cldnn_py as cl


def test_a_tensor_past_int32_offsets_is_refused_by_the_opencl_engine(ocl_engine, monkeypatch):
    # the device's own allocation limits would refuse 8 GiB first on most devices: pretend it has room
    monkeypatch.setattr(ocl_engine, "info", dataclasses.replace(ocl_engine.info, max_alloc_bytes=2**40,
                                                                global_mem_bytes=2**41))
    topo = cl.Topology(cl.InputLayout("x", cl.Layout(cl.DataType.f32, cl.Format.bfyx, (2, 2**30))),
                       cl.Activation("relu", "x"))
    with pytest.raises(cl.UnsupportedError) as info:
        cl.Program(ocl_engine, topo)
    msg = str(info.value)
    assert "activation 'relu'" in msg and "no kernel supports it" in msg
    assert "input 0 f32:bfyx:2x1073741824 has 2147483648 elements, more than the 2147483647" in msg
