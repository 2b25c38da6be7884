"""BLAS on one thread during CPU-engine executions (kernel_selector/common/cpu_blas_threads.py): the limit holds
inside, nests and is undone only by the last exit; a fully connected layer above SMALL_BATCH rows runs as one BLAS
product per numba thread then (dot_rows) and matches the float64 product on a poisoned output."""

from __future__ import annotations

import numpy as np
from threadpoolctl import threadpool_info

import cldnn_py as cl
from kernel_selector.common.cpu_blas import SMALL_BATCH
from kernel_selector.common.cpu_blas_threads import active, single_threaded_blas
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
    net = cl.Network(cl.Program(cpu_engine, topo))
    assert net.program.node("fc").impl.kernel_name == "fully_connected_cpu_blas"
    before = _blas_threads()
    net.poison()
    out = net.run({"x": x})["act"]
    y = x.astype(np.float64) @ w.T.astype(np.float64) + b
    from scipy import special

    assert_close(out, 0.5 * y * special.erfc(-y / np.sqrt(2.0)), rtol=1e-4, atol=1e-4)
    assert _blas_threads() == before and not active()
