"""Einsum vs onnxruntime: the contractions of attention and linear layers (batched matmuls with and without
transposes), transposes, sums, outer and inner products, implicit output, ellipsis, and the refused forms."""

from __future__ import annotations

import numpy as np
import pytest
from onnx import helper

import cldnn_py as cl
from cldnn_py.errors import ShapeError, UnsupportedError
from tests.onnx.ort_compare import build, compare, declare, randf32

CASES = [
    ("bij,bjk->bik", [(2, 3, 4), (2, 4, 5)]),
    ("bhid,bhjd->bhij", [(2, 3, 4, 5), (2, 3, 6, 5)]),
    ("bhij,bhjd->bhid", [(2, 3, 4, 6), (2, 3, 6, 5)]),
    ("ij,jk->ik", [(3, 4), (4, 5)]),
    ("bid,jd->bij", [(2, 3, 4), (5, 4)]),
    ("bid,dj->bij", [(2, 3, 4), (4, 5)]),
    ("ij,kj->ik", [(3, 4), (5, 4)]),
    ("ji,jk->ik", [(4, 3), (4, 5)]),
    ("bhij,hbjd->bhid", [(2, 3, 4, 6), (3, 2, 6, 5)]),
    ("bij,bjk->bki", [(2, 3, 4), (2, 4, 5)]),
    ("abc,cd->abd", [(2, 3, 4), (4, 5)]),
    ("nchw,kc->nkhw", [(2, 3, 4, 5), (6, 3)]),
    ("i,j->ij", [(3,), (4,)]),
    ("i,i->", [(5,)]*2),
    ("ij,ij->i", [(3, 4), (3, 4)]),
    ("ij,jk", [(3, 4), (4, 5)]),
    ("ba,ca", [(3, 4), (5, 4)]),
    ("...ij,...jk->...ik", [(2, 3, 4), (2, 4, 5)]),
    ("bijx,bjk->bik", [(2, 3, 4, 2), (2, 4, 5)]),
    ("ij->ji", [(3, 4)]),
    ("bij->bji", [(2, 3, 4)]),
    ("ij->i", [(3, 4)]),
    ("ijk->", [(2, 3, 4)]),
    ("ijk->ki", [(2, 3, 4)]),
    ("ij", [(3, 4)]),
    ("ji", [(3, 4)]),
    (" b i j , b j k -> b i k ", [(2, 3, 4), (2, 4, 5)]),
    ("ij,jk,kl->il", [(2, 3), (3, 4), (4, 5)]),                      # three operands: a chain of products
    ("bn,bd,dn->b", [(2, 3), (2, 4), (4, 3)]),                       # a letter shared by the first and last
    ("ij,ij,ij->i", [(3, 4), (3, 4), (3, 4)]),                       # element-wise, then a sum
    ("bhq,bhk,bhkd,de->bhqe", [(2, 3, 4), (2, 3, 5), (2, 3, 5, 6), (6, 2)]),
]


@pytest.mark.ocl_every(2)
@pytest.mark.parametrize("equation,shapes", CASES, ids=[c[0].replace(" ", "_") for c in CASES])
def test_einsum(engine, rng, equation, shapes):
    feeds = {f"x{i}": randf32(rng, *s) for i, s in enumerate(shapes)}
    m = build([helper.make_node("Einsum", list(feeds), ["y"], equation=equation)], feeds, {}, ["y"], 12)
    compare(engine, m, feeds, atol=1e-5)


def test_einsum_constant_operand_opset13(engine, rng):
    x, w = randf32(rng, 2, 3, 4), randf32(rng, 5, 4)
    m = build([helper.make_node("Einsum", ["x", "w"], ["y"], equation="bid,jd->bij")], {"x": x}, {"w": w}, ["y"], 13)
    compare(engine, m, {"x": x}, atol=1e-5)


@pytest.mark.parametrize("equation,shapes,error,match", [
    ("ii->i", [(3, 3)], UnsupportedError, "a letter repeated within one operand"),
    ("ij,jk->ik", [(2, 1), (3, 4)], UnsupportedError, "no broadcasting"),
    ("ij,jk->ik", [(2, 3), (4, 5)], ShapeError, "sizes of 'j'"),
])
def test_einsum_refused(equation, shapes, error, match):
    feeds = {f"x{i}": np.zeros(s, np.float32) for i, s in enumerate(shapes)}
    m = build([helper.make_node("Einsum", list(feeds), ["y"], equation=equation, name="es")], feeds, {}, ["y"], 12)
    with pytest.raises(error, match=f"Einsum 'es' \\(equation '{equation}'\\).*{match}"):
        cl.load_onnx(declare(m, [np.zeros((1,), np.float32)]))
