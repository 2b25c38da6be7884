"""The CPU kernels' shared numba helpers are compiled once per argument type, not once per literal: a call like
``chain_span(buf, 0, 1, ...)`` from numba code types its bare ints as ``Literal[int](0)`` and numba compiles and caches
another specialization of the callee and of everything it calls (3-5 s each on a fresh cache; chain_span had six).
The callers pass ``cpu_epilogue.I0`` / ``I1`` (int64) instead. A kernel loaded from numba's cache does not list its
callees' specializations in this process, so the check reads the sources (ast): no call of a shared helper in
kernel_selector passes a bare integer or bool constant."""

from __future__ import annotations

import ast
import pathlib

import kernel_selector

HELPERS = {"chain_span", "act_span", "fake_quant_span", "operand_index", "lane_step"}
ROOT = pathlib.Path(kernel_selector.__file__).parent


def literal_calls(source: str, filename: str) -> list[str]:
    """``file:line helper(...)`` of each call of a HELPERS function with a bare int/bool constant argument."""
    found = []
    for node in ast.walk(ast.parse(source, filename)):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in HELPERS:
            if any(isinstance(a, ast.Constant) and isinstance(a.value, (int, bool)) for a in node.args):
                found.append(f"{filename}:{node.lineno} {ast.unparse(node)[:100]}")
    return found


def test_no_helper_call_passes_a_literal():
    found = [hit for f in sorted(ROOT.rglob("*.py")) for hit in literal_calls(f.read_text(), str(f.relative_to(ROOT)))]
    assert not found, "pass cpu_epilogue.I0 / I1 instead of a bare constant:\n" + "\n".join(found)


def test_the_check_sees_a_literal():
    assert literal_calls("def f(b, c):\n    chain_span(b, 0, 3, c)\n", "x.py")
    assert not literal_calls("def f(b, c):\n    chain_span(b, I0, n, c)\n", "x.py")
