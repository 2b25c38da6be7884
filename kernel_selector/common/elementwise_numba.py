"""The numba renderer of the element-wise table (:mod:`cldnn_py.ops.elementwise`): :func:`activate` (an activation
by its table code) and :func:`binary` (an eltwise mode by its table code), scalar numba functions generated from the
formulas, the one code numbering of every numba epilogue (``common/cpu_epilogue.py``, the CPU convolutions).

``NJIT``: the numba options of the CPU kernels: ``cache=True``; fastmath without ``nnan`` / ``ninf`` (relu maps NaN
to 0, fmax / fmin ignore a NaN operand: those rules must hold) but with reassociation and contraction (vectorized
reductions, fma); ``error_model="numpy"`` (x / 0 gives inf, no exception). The generated functions are compiled
with the same options but without ``cache`` (numba caches only functions with a source file); the cached kernels
that call them hold their compiled code. They are not numba-inlined (``inline="always"``) into their callers: the
typed copy of the whole switch that inlining makes in every caller cost 1-2 s of numba compile per caller and
signature (the CPU test suite's cold compile 231 -> 187 s); the callers reach them only on their generic paths (the
common activations and eltwise modes have straight loops of their own), where LLVM may still inline them.
"""

from __future__ import annotations

import math
from typing import Any

from .numba_cache import configure_numba_cache

configure_numba_cache()  # before numba is first imported

import numba  # noqa: E402
import numpy as np  # noqa: E402

from cldnn_py.ops.elementwise import ACTIVATIONS, ELTWISE, parse, py_expr  # noqa: E402

FASTMATH = {"nsz", "arcp", "contract", "afn", "reassoc"}
NJIT: dict[str, Any] = {"cache": True, "fastmath": FASTMATH, "error_model": "numpy"}
_NJIT_GENERATED = {k: v for k, v in NJIT.items() if k != "cache"}

ACT_CODES: dict[str, int] = {name: d.code for name, d in ACTIVATIONS.items()}
ELT_CODES: dict[str, int] = {name: d.code for name, d in ELTWISE.items()}


@numba.njit(**NJIT)
def fmax(a: float, b: float) -> float:
    """C ``fmax``: a NaN operand is ignored."""
    return a if (a >= b or b != b) else b


@numba.njit(**NJIT)
def fmin(a: float, b: float) -> float:
    """C ``fmin``: a NaN operand is ignored."""
    return a if (a <= b or b != b) else b


@numba.njit(**NJIT)
def _log(x: float) -> float:
    return math.log(x) if x >= 0.0 else math.nan


@numba.njit(**NJIT)
def _sqrt(x: float) -> float:
    return math.sqrt(x) if x >= 0.0 else math.nan


@numba.njit(**NJIT)
def _fmod(a: float, b: float) -> float:
    """C ``fmod``: the remainder with the dividend's sign (NaN for b = 0)."""
    return np.fmod(a, b)


_NAMES = {"fmod": "_fmod", "A": "a", "B": "b", "fmin": "fmin", "fmax": "fmax", "exp": "math.exp", "expm1": "math.expm1",
          "log": "_log", "log1p": "math.log1p", "sqrt": "_sqrt", "tanh": "math.tanh", "erf": "math.erf",
          "erfc": "math.erfc", "fabs": "abs", "floor": "np.floor", "ceil": "np.ceil", "rint": "np.rint"}



def _source(name: str, args: str, sel: str, cases: list[tuple[int, str]], fallback: str) -> str:
    lines = [f"def {name}({args}):"]
    for code, expr in cases:
        lines.append(f"    if {sel} == {code}:")
        lines.append(f"        return {expr}")
    lines.append(f"    return {fallback}")
    return "\n".join(lines) + "\n"


def _scalar(tree: Any, names: dict[str, str]) -> str:
    if tree[0] == "call" and tree[1] == "pow":
        return f"({_scalar(tree[2][0], names)} ** {_scalar(tree[2][1], names)})"
    return py_expr(tree, names, None)


def _generate() -> dict[str, Any]:
    ns: dict[str, Any] = {"math": math, "np": np, "fmin": fmin, "fmax": fmax, "_log": _log, "_sqrt": _sqrt,
                          "_fmod": _fmod}
    act = _source("activate", "x, code, a, b", "code",
                  [(d.code, _scalar(parse(d.formula), _NAMES)) for d in ACTIVATIONS.values()], "x")
    elt = _source("binary", "a, b, mode", "mode",
                  [(d.code, _scalar(parse(d.formula), _NAMES)) for d in ELTWISE.values()], "a")
    exec(compile(act + elt, "<cldnn_py elementwise table>", "exec"), ns)  # noqa: S102 - the fixed table only
    return ns


_GEN = _generate()
activate = numba.njit(**_NJIT_GENERATED)(_GEN["activate"])
activate.__doc__ = "activate(x, code, a, b): activation ``code`` (:data:`ACT_CODES`) of x with parameters a, b."
binary = numba.njit(**_NJIT_GENERATED)(_GEN["binary"])
binary.__doc__ = "binary(a, b, mode): eltwise ``mode`` (:data:`ELT_CODES`) of a (the left operand) and b."
