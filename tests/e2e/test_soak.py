"""Soak and bad feeds: 800 executions of SqueezeNet batch 1 (zoo graph, seeded weights) on the OpenCL engine must
not grow resident memory or the number of live pyopencl objects after warm-up (growth under 5%), and NaN / Inf
inputs must not corrupt later runs of the same Network (its next output equals a fresh Network's)."""

from __future__ import annotations

import gc

import numpy as np
import pyopencl as pcl
import pytest

import cldnn_py as cl
from cldnn_py.frontend import load_onnx
from cldnn_py.tools import zoo

RUNS = 800
WARMUP = 150


def rss_bytes() -> int:
    """Resident set size of this process (/proc/self/statm), bytes."""
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * 4096


def live_cl_objects() -> int:
    """pyopencl events, buffers, kernels and programs reachable by the garbage collector (a ``weakref.proxy``
    whose referent is gone raises ReferenceError on isinstance: such objects are skipped; one left by another test
    in the same worker failed this test in CI)."""
    gc.collect()
    kinds = (pcl.Event, pcl.Buffer, pcl.Kernel, pcl.Program)

    def is_cl(o: object) -> bool:
        try:
            return isinstance(o, kinds)
        except ReferenceError:
            return False

    return sum(is_cl(o) for o in gc.get_objects())


@pytest.fixture(scope="module")
def squeezenet():
    model = zoo.make_model("squeezenet", seed=3, batch=1, check=False)
    return load_onnx(model), zoo.input_name("squeezenet")


@pytest.mark.network
def test_eight_hundred_runs_do_not_grow(ocl_engine, squeezenet, rng):
    topo, inp = squeezenet
    net = cl.Network(ocl_engine, topo)
    x = rng.standard_normal(zoo.input_shape("squeezenet", 1)).astype(np.float32)
    for _ in range(WARMUP):
        net.run({inp: x})
    rss0, objs0 = rss_bytes(), live_cl_objects()
    for _ in range(RUNS - WARMUP):
        net.run({inp: x})
    rss1, objs1 = rss_bytes(), live_cl_objects()
    print(f"RSS {rss0 / 2**20:.1f} -> {rss1 / 2**20:.1f} MiB, live OpenCL objects {objs0} -> {objs1}")
    assert rss1 <= rss0 * 1.05, (rss0, rss1)
    assert objs1 <= objs0 * 1.05 + 5, (objs0, objs1)


@pytest.mark.network
def test_nan_and_inf_feeds_do_not_corrupt_later_runs(engine, squeezenet, rng):
    topo, inp = squeezenet
    net = cl.Network(engine, topo)
    shape = zoo.input_shape("squeezenet", 1)
    x = rng.standard_normal(shape).astype(np.float32)
    expect = cl.Network(engine, topo).run({inp: x})
    for bad in (np.full(shape, np.nan, np.float32), np.full(shape, np.inf, np.float32),
                np.where(rng.random(shape) < 0.01, -np.inf, x).astype(np.float32)):
        net.run({inp: bad})
        got = net.run({inp: x})
        for k, v in expect.items():
            np.testing.assert_array_equal(got[k], v)
