"""The CPU engine's execution scope. BLAS on one thread during executions (kernel_selector/common/cpu_blas_threads.py):
the limit holds inside, nests and is undone only by the last exit; a fully connected layer above SMALL_BATCH rows
runs as one BLAS product per numba thread then (dot_rows) and matches the float64 product on a poisoned output.
numba's thread count inside launch_scope (kernel_selector/common/cpu_launch.py): left as the last kernel set it,
restored at exit, also after an error; results unchanged."""

from __future__ import annotations

import numba
import numpy as np
import pytest
from threadpoolctl import threadpool_info

import cldnn_py as cl
from kernel_selector.common.cpu_blas import SMALL_BATCH
from kernel_selector.common.cpu_blas_threads import active, single_threaded_blas
from kernel_selector.common.cpu_launch import Launcher, launch_scope
from tests.helpers import assert_close, f32


def _blas_threads() -> set[int]:
    return {i["num_threads"] for i in threadpool_info() if i["user_api"] == "blas"}


def test_limit_nests_and_restores():
    before = _blas_threads()
    assert not active()
    with single_threaded_blas():
        assert active() and _blas_threads() == {1}
        with single_threaded_blas():
            assert _blas_threads() == {1}
        assert active() and _blas_threads() == {1}  # the inner exit keeps the limit
    assert not active() and _blas_threads() == before


def test_split_product_in_a_network(cpu_engine, rng):
    n, k, m = SMALL_BATCH + 29, 70, 33
    x, w, b = f32(rng.standard_normal((n, k))), f32(rng.standard_normal((m, k))), f32(rng.standard_normal(m))
    topo = cl.Topology(cl.InputLayout("x", cl.Layout(cl.DataType.f32, cl.Format.bfyx, x.shape)), cl.Data("w", w),
                       cl.Data("b", b), cl.FullyConnected("fc", "x", weights="w", bias="b"),
                       cl.Activation("act", "fc", "gelu"))
    # forced: past SMALL_BATCH the packed micro-kernel takes such a layer by default; this checks BLAS's split
    net = cl.Network(cl.Program(cpu_engine, topo,
                                cl.BuildOptions(force_implementations={"fc": "fully_connected_cpu_blas"})))
    assert net.program.node("fc").impl.kernel_name == "fully_connected_cpu_blas"
    before, threads = _blas_threads(), numba.get_num_threads()
    net.poison()
    out = net.run({"x": x})["act"]
    assert numba.get_num_threads() == threads  # launch_scope restored numba's count
    y = x.astype(np.float64) @ w.T.astype(np.float64) + b
    from scipy import special

    assert_close(out, 0.5 * y * special.erfc(-y / np.sqrt(2.0)), rtol=1e-4, atol=1e-4)
    assert _blas_threads() == before and not active()


@numba.njit(parallel=True)
def _fill(out, v):  # pragma: no cover - numba
    for i in numba.prange(out.shape[0]):
        out[i] = v + i


def test_launch_scope_keeps_and_restores_the_thread_count():
    numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)
    start = numba.get_num_threads()
    if start < 2:
        pytest.skip("one numba thread: nothing to switch")
    small, big = Launcher(10), Launcher(1 << 20)
    a, b = np.zeros(10, np.float32), np.zeros(1 << 20, np.float32)
    with launch_scope():
        small(_fill, a, np.float32(1.0))
        assert numba.get_num_threads() == 1  # left at one thread for the next small kernel
        with launch_scope():  # nested: the outer scope's
            small(_fill, a, np.float32(2.0))
        assert numba.get_num_threads() == 1
        big(_fill, b, np.float32(3.0))
        assert numba.get_num_threads() == start
        small(_fill, a, np.float32(4.0))
    assert numba.get_num_threads() == start
    np.testing.assert_array_equal(a, np.arange(10) + 4.0)
    np.testing.assert_array_equal(b, np.arange(1 << 20, dtype=np.float32) + 3.0)
    with pytest.raises(RuntimeError):
        with launch_scope():
            small(_fill, a, np.float32(5.0))
            raise RuntimeError("a kernel failed")
    assert numba.get_num_threads() == start
    small(_fill, a, np.float32(6.0))  # outside a scope: set and restored around the call
    assert numba.get_num_threads() == start and a[0] == 6.0


def test_launch_scope_sets_the_chunk_size_once_and_restores_it():
    """Inside a scope a pooled launch sets numba's parallel chunk size only when it changes, leaves it for the next
    launch, and the scope restores the entry value (also after a failure)."""
    if numba.config.NUMBA_NUM_THREADS < 2:
        pytest.skip("one numba thread: no pooled launch")
    numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)
    numba.set_parallel_chunksize(0)
    b = np.zeros(1 << 20, np.float32)
    four, one = Launcher(1 << 20, chunk=4), Launcher(1 << 20, chunk=1)
    with launch_scope():
        four(_fill, b, np.float32(1.0))
        assert numba.get_parallel_chunksize() == 4  # left for the next launch
        one(_fill, b, np.float32(2.0))
        assert numba.get_parallel_chunksize() == 1
    assert numba.get_parallel_chunksize() == 0
    np.testing.assert_array_equal(b, np.arange(1 << 20, dtype=np.float32) + 2.0)
    with pytest.raises(RuntimeError):
        with launch_scope():
            four(_fill, b, np.float32(3.0))
            raise RuntimeError("a kernel failed")
    assert numba.get_parallel_chunksize() == 0
    four(_fill, b, np.float32(4.0))  # outside a scope: set and restored around the call
    assert numba.get_parallel_chunksize() == 0 and b[5] == 9.0


@pytest.mark.parametrize("transpose_b", [False, True])
def test_split_batched_gemm_in_a_network(cpu_engine, rng, transpose_b):
    """A batched Gemm (the attention products) during an execution: one BLAS call per (batch item, row block)
    (dot_batched), B transposed or not; numpy's float64 product, alpha applied, poisoned output."""
    a = f32(rng.standard_normal((2, 3, 37, 20)))
    b = f32(rng.standard_normal((2, 3, 29, 20) if transpose_b else (2, 3, 20, 29)))
    topo = cl.Topology(cl.InputLayout("a", cl.Layout(cl.DataType.f32, cl.Format.bfyx, a.shape)),
                       cl.InputLayout("b", cl.Layout(cl.DataType.f32, cl.Format.bfyx, b.shape)),
                       cl.Gemm("g", ["a", "b"], transpose_b=transpose_b, alpha=0.25))
    net = cl.Network(cl.Program(cpu_engine, topo))
    assert net.program.node("g").impl.kernel_name == "gemm_cpu_blas"
    net.poison()
    b64 = b.astype(np.float64).swapaxes(-1, -2) if transpose_b else b.astype(np.float64)
    assert_close(net.run({"a": a, "b": b})["g"], 0.25 * (a.astype(np.float64) @ b64), rtol=1e-5, atol=1e-5)


def test_execution_ignores_floating_point_errors_once_and_restores_them(cpu_engine):
    """NaN / Inf results (log of negatives, overflowing exp; the numpy reference kernels forced) raise no warning
    during a run, as on a device; numpy's error state, set once for the execution, is the caller's again
    afterwards."""
    import warnings

    x = np.array([[-1.0, 0.0, 100.0, 2.0]], np.float32)
    topo = cl.Topology(cl.InputLayout("x", cl.Layout(cl.DataType.f32, cl.Format.bfyx, x.shape)),
                       cl.Activation("l", "x", "log"), cl.Activation("e", "l", "exp"),
                       cl.Activation("y", "x", "exp"), cl.Eltwise("s", ["e", "y"], mode="sum"))
    # the numpy reference kernels: their log and exp would warn (numba's kernels never do)
    net = cl.Network(cl.Program(cpu_engine, topo, cl.BuildOptions(
        force_implementations={"l": "activation_cpu_ref", "y": "activation_cpu_ref"})))
    with np.errstate(all="warn"), warnings.catch_warnings():
        warnings.simplefilter("error")
        out = net.run({"x": x})["s"]
        assert np.geterr() == {"divide": "warn", "over": "warn", "under": "warn", "invalid": "warn"}
    with np.errstate(all="ignore"):
        ref = (np.exp(np.log(x.astype(np.float64))) + np.exp(x.astype(np.float64))).astype(np.float32)
    np.testing.assert_allclose(out, ref, rtol=1e-5, equal_nan=True)
