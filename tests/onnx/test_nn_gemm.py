"""Gemm and MatMul converters vs onnxruntime: alpha, beta, transA, transB, every C broadcast (none, scalar,
vector, column, matrix; constant or run-time), the FullyConnected mapping of a constant B (checked to be taken),
MatMul with 1-D operands, batch broadcasting and ranks up to 6, Gemm versions 7/9/11/13."""

from __future__ import annotations

import pytest

from cldnn_py.frontend.onnx import load_onnx
from tests.onnx.nn_util import check, model, randn

pytest.importorskip("onnxruntime")

GEMM = [
    # A shape, B shape, C shape or None, attrs, opset, B constant, C constant
    ((3, 5), (5, 4), None, {}, 11, False, False),
    ((3, 5), (5, 4), (1, 4), {"alpha": 0.5, "beta": 2.0}, 13, False, False),
    ((6, 3), (6, 4), (4,), {"transA": 1}, 9, False, False),
    ((3, 6), (4, 6), (3, 4), {"transB": 1, "beta": -0.5}, 13, False, False),
    ((4, 3), (5, 4), (3, 1), {"alpha": 0.25, "beta": 0.35, "transA": 1, "transB": 1}, 7, False, False),
    ((2, 7), (7, 3), (), {}, 13, False, False),                            # scalar C
    # constant B, transA = 0: FullyConnected
    ((3, 5), (5, 4), None, {"alpha": 1.5}, 13, True, False),
    ((3, 5), (4, 5), (4,), {"transB": 1, "beta": 0.5}, 13, True, True),     # bias
    ((3, 5), (5, 4), (1, 4), {"alpha": 2.0, "beta": 3.0}, 11, True, True),  # bias
    ((3, 5), (5, 4), (), {}, 13, True, True),                               # scalar C as a bias
    ((3, 5), (5, 4), (3, 4), {"beta": 0.5}, 13, True, True),                # row-varying C: Eltwise
    ((3, 5), (5, 4), (3, 1), {"alpha": 0.5, "beta": -2.0}, 13, True, False),  # run-time C: Eltwise
    ((6, 3), (6, 4), (4,), {"transA": 1}, 13, True, True),                  # transA: Gemm primitive
]


@pytest.mark.ocl_every(2)
@pytest.mark.parametrize("case", GEMM, ids=lambda c: f"{c[0]}x{c[1]}-c{c[2]}-{sorted(c[3])}-v{c[4]}-"
                         f"{'constB' if c[5] else 'B'}-{'constC' if c[6] else 'C'}")
def test_gemm(engine, rng, case):
    sa, sb, sc, attrs, opset, b_const, c_const = case
    inputs, inits, feeds = [("a", sa)], {}, {"a": randn(rng, sa)}
    for name, shape, const in (("b", sb, b_const), ("c", sc, c_const)):
        if shape is None:
            continue
        arr = randn(rng, shape)
        if const:
            inits[name] = arr
            inputs.append(name)
        else:
            feeds[name] = arr
            inputs.append((name, shape))
    m = model("Gemm", opset, inputs, attrs, inits)
    check(engine, m, feeds, rtol=1e-4, atol=1e-4)
    kinds = {p.type_name for p in load_onnx(m)}
    if b_const and not attrs.get("transA"):
        assert "fully_connected" in kinds and "gemm" not in kinds
    else:
        assert "gemm" in kinds


MATMUL = [
    ((3, 4), (4, 3)),
    ((2, 3, 4), (2, 4, 3)),
    ((3, 1, 3, 4), (1, 2, 4, 2)),
    ((4,), (2, 4, 1)),
    ((1, 2, 4, 3), (3,)),
    ((5,), (5,)),
    ((2, 5, 7), (7, 3)),
    ((2, 1, 3, 2, 4, 5), (3, 1, 5, 2)),     # rank 6 with broadcasting
    ((2, 3, 1, 4, 5), (1, 5, 6)),           # rank 5
]


@pytest.mark.parametrize("shapes", MATMUL, ids=str)
def test_matmul(engine, rng, shapes):
    sa, sb = shapes
    m = model("MatMul", 13, [("a", sa), ("b", sb)])
    check(engine, m, {"a": randn(rng, sa), "b": randn(rng, sb)}, rtol=1e-4, atol=1e-4)


def test_matmul_constant_b_opset9(engine, rng):
    m = model("MatMul", 9, [("a", (2, 3, 6)), "b"], inits={"b": randn(rng, (6, 4))})
    check(engine, m, {"a": randn(rng, (2, 3, 6))}, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("sa,sb", [((3, 6), (6, 13)), ((20, 2, 16), (16, 13)), ((2, 3, 4, 9), (9, 24))], ids=str)
def test_matmul_constant_b_is_fully_connected(engine, rng, sa, sb):
    """A constant 2-D B: FullyConnected (any N; Reshapes around a rank > 2 A), against onnxruntime."""
    m = model("MatMul", 13, [("a", sa), "b"], inits={"b": randn(rng, sb)})
    topo = load_onnx(m)
    assert [p.type_name for p in topo if p.type_name in ("gemm", "fully_connected")] == \
        ["fully_connected"]
    check(engine, m, {"a": randn(rng, sa)}, rtol=1e-4, atol=1e-4)
