"""Einsum of float32 operands, composed of Reduce, Transpose (Permute), Reshape and batched Gemms (ONNX operator
spec: numpy.einsum semantics).

The equation is parsed first: explicit (``lhs->rhs``) or implicit (the output is the letters that occur once,
sorted, after the ellipsis dimensions); spaces are ignored; an ellipsis stands for the same number of leading
dimensions in every operand that has one. Each letter of an operand is then one of:
- batch: in both operands and the output; M / N: in one operand and the output; K (contracted): in both operands,
  not the output; summed: in one operand only (reduced first, Reduce sum).
- One operand ("ij->ji", "ij->i", "ii"-free): Reduce sum over the summed letters, then a transpose to the output
  order.
- Two operands ("bij,bjk->bik", "bhid,bhjd->bhij", "bhij,bhjd->bhid", "ij,jk->ik", "bid,jd->bij" ...): A is viewed as
  (batch, M, K) and B as (batch, K, N) — each is transposed only when its letters are not already in one of the
  orders (batch, M, K) / (batch, K, M) (resp. (batch, K, N) / (batch, N, K)), else Gemm's transpose flags do it —
  one Gemm gives (batch, M, N), which is reshaped to the letters and transposed to the output order.
- Three or more operands ("ij,jk,kl->il", "bn,bd,dn->b" ...): contracted left to right as pairs, each intermediate
  keeping the letters that a later operand or the output still needs (no search for the cheapest order, as
  numpy.einsum's default ``optimize=False`` does not either).

Refused with UnsupportedError naming the node and the equation: a letter repeated within one operand (diagonals
such as "ii->i"), broadcasting (a letter or ellipsis dimension of size 1 against a larger one), a non-float32
operand. ShapeError for an equation that does not match the operands (term count, ranks,
sizes of one letter).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...errors import ShapeError, UnsupportedError
from ...primitives.gemm import Gemm
from ...primitives.reduce import Reduce
from . import converter
from .elementwise_common import require_f32
from .movement import permute_to, reshape_to


def parse(equation: str, ranks: list[int], what: str) -> tuple[list[str], str]:
    """(one letter string per operand, output letters) with each ellipsis replaced by letters of its own (chr 256+).
    Raises ShapeError when the terms do not match the ranks, UnsupportedError for repeated letters or ellipses of
    different lengths."""
    eq = equation.replace(" ", "")
    lhs, rhs = eq.split("->", 1) if "->" in eq else (eq, None)
    terms = lhs.split(",")
    if len(terms) != len(ranks):
        raise ShapeError(f"{what}: operand count: the equation has {len(terms)}, the node {len(ranks)}")
    ell_len = {r - (len(t) - 3) for t, r in zip(terms, ranks) if "..." in t}
    if len(ell_len) > 1:
        raise UnsupportedError(f"{what}: ellipses of different lengths {sorted(ell_len)} (broadcasting) are not "
                               f"supported")
    ell = "".join(chr(256 + k) for k in range(ell_len.pop() if ell_len else 0))
    terms = [t.replace("...", ell) for t in terms]
    for t, r in zip(terms, ranks):
        if len(t) != r or not all(c.isalpha() or ord(c) >= 256 for c in t):
            raise ShapeError(f"{what}: term '{t}': expected {r} letters (the operand's rank), got {len(t)}")
        if len(set(t)) != len(t):
            raise UnsupportedError(f"{what}: a letter repeated within one operand ('{t}': a diagonal) is not "
                                   f"supported")
    if rhs is None:
        counts = {c: sum(t.count(c) for t in terms) for t in terms for c in t}
        out = ell + "".join(sorted(c for c, k in counts.items() if k == 1 and ord(c) < 256))
    else:
        out = rhs.replace("...", ell)
        if len(set(out)) != len(out) or any(c not in "".join(terms) for c in out):
            raise ShapeError(f"{what}: output '{rhs}': expected distinct letters of the inputs")
    return terms, out


@converter("Einsum", versions=(12, 28))
def einsum(ctx: Any, node: Any) -> None:
    """Einsum (``equation``) of float32 operands → Reduce / Permute / Reshape / Gemm; three or more operands are
    contracted left to right, each intermediate keeping the letters a later operand or the output needs."""
    equation = str(ctx.attrs(node).get("equation", ""))
    what = f"Einsum '{node.name}' (equation '{equation}')"
    ins = list(node.input)
    if not ins:
        raise UnsupportedError(f"{what}: no operand")
    for i in ins:
        require_f32(ctx, node, i)
    shapes = [ctx.shape(i) for i in ins]
    terms, out = parse(equation, [len(s) for s in shapes], what)
    size: dict[str, int] = {}
    for t, s in zip(terms, shapes):
        for c, n in zip(t, s):
            if size.setdefault(c, n) != n:
                kind = UnsupportedError if 1 in (n, size[c]) else ShapeError
                shown = c if ord(c) < 256 else "..."
                raise kind(f"{what}: sizes of '{shown}': expected equal (no broadcasting), got {size[c]} and {n}")
    o = node.output[0]
    if len(ins) == 1:
        src, cur = _reduce_only(ctx, o, ins[0], terms[0], set(out))
        _to_output(ctx, node, src, cur, out, size)
        return
    cur, tc = ins[0], terms[0]
    for j in range(1, len(ins)):
        last = j == len(ins) - 1
        later = set(out).union(*(set(t) for t in terms[j + 1:]))
        want = out if last else "".join(dict.fromkeys(c for c in tc + terms[j] if c in later))
        y, letters = _contract(ctx, node, o if last else f"{o}_{j}", cur, tc, ins[j], terms[j], want, size)
        if last:
            _to_output(ctx, node, y, letters, out, size)
        else:
            cur, tc = ctx.fresh(f"{o}_{j}_letters"), letters
            reshape_to(ctx, cur, y, tuple(size[c] for c in letters) or (1,), node)


def _contract(ctx: Any, node: Any, o: str, a: str, ta: str, b: str, tb: str, out: str, size: dict[str, int]
              ) -> tuple[str, str]:
    """One product of two operands keeping the letters ``out``: (Gemm output viewed (batch, M, N), its letters in
    the order batch + M + N)."""
    batch = [c for c in out if c in ta and c in tb]
    m = [c for c in out if c in ta and c not in tb]
    n = [c for c in out if c in tb and c not in ta]
    k = [c for c in ta if c in tb and c not in out]
    a, ta = _reduce_only(ctx, o + "_a", a, ta, set(tb) | set(out))
    b, tb = _reduce_only(ctx, o + "_b", b, tb, set(ta) | set(out))
    prod = [int(np.prod([size[c] for c in g])) for g in (batch, m, k, n)]
    lead = (prod[0],) if batch else ()
    a, trans_a = _operand(ctx, node, o + "_a", a, ta, batch, m, k, lead + (prod[1], prod[2]))
    b, trans_b = _operand(ctx, node, o + "_b", b, tb, batch, k, n, lead + (prod[2], prod[3]))
    y = ctx.add(Gemm(ctx.fresh(o + "_gemm"), [ctx.ref(a), ctx.ref(b)], transpose_a=trans_a, transpose_b=trans_b))
    return y, "".join(batch + m + n)


def _reduce_only(ctx: Any, base: str, src: str, letters: str, needed: set[str]) -> tuple[str, str]:
    """Sum ``src`` over its letters not in ``needed``; returns (tensor, remaining letters)."""
    axes = tuple(i for i, c in enumerate(letters) if c not in needed)
    if not axes:
        return src, letters
    pid = ctx.add(Reduce(ctx.fresh(base + "_sum"), ctx.ref(src), mode="sum", axes=axes, keep_dims=False))
    return pid, "".join(c for c in letters if c in needed)


def _operand(ctx: Any, node: Any, base: str, src: str, letters: str, batch: list[str], rows: list[str],
             cols: list[str], view: tuple[int, ...]) -> tuple[str, bool]:
    """``src`` viewed as ``view`` = (batch, rows, cols) for Gemm: (tensor, transpose flag). No transpose when the
    letters are in the order batch+rows+cols, the Gemm transpose flag for batch+cols+rows, a Permute otherwise."""
    flag = False
    if letters == "".join(batch + cols + rows) and letters != "".join(batch + rows + cols):
        view, flag = view[:-2] + (view[-1], view[-2]), True
    elif letters != "".join(batch + rows + cols):
        t = ctx.fresh(base + "_perm")
        permute_to(ctx, t, src, tuple(letters.index(c) for c in batch + rows + cols), node)
        src = t
    v = ctx.fresh(base + "_view")
    reshape_to(ctx, v, src, view, node)
    return v, flag


def _to_output(ctx: Any, node: Any, src: str, letters: str, out: str, size: dict[str, int]) -> None:
    """node.output[0] = ``src`` (holding ``letters`` in some grouped view) reshaped to the letters and transposed
    to ``out``."""
    o = node.output[0]
    if letters == out:
        reshape_to(ctx, o, src, tuple(size[c] for c in out), node)
        return
    v = ctx.fresh(o + "_letters")
    reshape_to(ctx, v, src, tuple(size[c] for c in letters), node)
    permute_to(ctx, o, v, tuple(letters.index(c) for c in out), node)
