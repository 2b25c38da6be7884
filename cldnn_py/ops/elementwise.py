"""One table of the element-wise math: every activation function and every eltwise mode, with three renderers.

Each activation (:data:`ACTIVATIONS`) has one formula in a neutral form, one integer code and its default
parameters; each eltwise mode (:data:`ELTWISE`) likewise. The neutral form is a small C-like expression language:
numbers (an ``f`` suffix allowed), the variables ``x``, ``A``, ``B`` (activations) or ``a``, ``b`` (eltwise: the
left and the right operand), ``+ - * /``, unary ``-``, comparisons, ``c ? t : f`` and the calls ``exp expm1 log
log1p sqrt tanh erf erfc fabs fmin fmax pow floor ceil rint fmod``. It is valid OpenCL C, so the OpenCL renderer
(:func:`cl_activation`, :func:`cl_eltwise`) emits it as written; :func:`py_expr` translates it to Python source
for the numpy renderer (``kernel_selector.common.elementwise_np``) and the numba renderer
(``kernel_selector.common.elementwise_numba``), which use the codes here as their one numbering.

Formulas follow the ONNX operator definitions (Relu, LeakyRelu, Clip, Sigmoid, Tanh, Elu, Selu, Softplus,
HardSigmoid, HardSwish, Gelu, Erf, Neg, Reciprocal) and clDNN's activation_func list. Forms are chosen to keep tiny
results accurate in float (conformance tests compare with rtol 1e-3 and atol 1e-7): expm1 rather than exp - 1, log1p
rather than log(1 + ...), erfc rather than 1 + erf, and the tanh-approximated Gelu as x * sigmoid(2z) rather than
0.5x(1 + tanh z), which cancels for x << 0. relu is ``x > 0 ? x : 0`` (NaN -> 0; not fmax, a call on the pip PoCL);
clamp, hard_sigmoid and max/min use fmin/fmax, which ignore a NaN operand.
"""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class ActivationDef:
    """One activation function: ``formula`` of ``x`` with parameters ``A``/``B``; ``vector_safe``: the formula is
    valid and call-free on an OpenCL float8."""

    name: str
    code: int
    formula: str
    defaults: tuple[float, float] = (0.0, 0.0)
    vector_safe: bool = False


@dataclass(frozen=True)
class EltwiseDef:
    """One eltwise mode: ``formula`` of the left operand ``a`` and the right ``b``. ``cl_float`` / ``cl_int``: the
    OpenCL function the reference kernel calls instead of the formula (helpers of eltwise_ref.cl), None for the
    formula itself; ``fused_cl`` / ``fused_cpu``: whether a fused eltwise of this mode is expressed by the fused-op
    epilogues of that engine."""

    name: str
    code: int
    formula: str
    cl_float: str | None = None
    cl_int: str | None = None
    fused_cl: bool = True
    fused_cpu: bool = True


_A = [
    ActivationDef("relu", 0, "((x) > 0.0f ? (x) : 0.0f)"),
    ActivationDef("relu_negative_slope", 1, "((x) >= 0.0f ? (x) : A * (x))", (0.01, 0.0), vector_safe=True),
    ActivationDef("clamp", 2, "fmin(fmax((x), A), B)", (0.0, 6.0)),
    ActivationDef("logistic", 3, "(1.0f / (1.0f + exp(-(x))))"),
    ActivationDef("tanh", 4, "tanh(x)"),
    ActivationDef("elu", 5, "((x) >= 0.0f ? (x) : A * expm1(x))", (1.0, 0.0)),
    ActivationDef("abs", 6, "fabs(x)"),
    ActivationDef("exp", 7, "exp(x)"),
    ActivationDef("log", 8, "log(x)"),
    ActivationDef("sqrt", 9, "sqrt(x)"),
    ActivationDef("square", 10, "((x) * (x))", vector_safe=True),
    ActivationDef("softplus", 11, "((x) > 20.0f ? (x) : log1p(exp(x)))"),
    ActivationDef("hard_sigmoid", 12, "fmax(0.0f, fmin(1.0f, A * (x) + B))", (0.2, 0.5)),
    ActivationDef("hard_swish", 13, "((x) * fmin(fmax((x) + 3.0f, 0.0f), 6.0f) / 6.0f)"),
    ActivationDef("swish", 14, "((x) / (1.0f + exp(-A * (x))))", (1.0, 0.0)),
    # 0.5x(1 + erf(x/sqrt2)) = 0.5x erfc(-x/sqrt2): no cancellation for x << 0
    ActivationDef("gelu", 15, "(0.5f * (x) * erfc(-(x) * 0.7071067811865476f))"),
    # ONNX Gelu approximate="tanh": 0.5x(1 + tanh z), z = sqrt(2/pi)(x + 0.044715x^3), = x / (1 + exp(-2z))
    ActivationDef("gelu_tanh", 16, "((x) / (1.0f + exp(-1.5957691216057308f * ((x) + 0.044715f * (x) * (x) * (x)))))"),
    ActivationDef("linear", 17, "(A * (x) + B)", (1.0, 0.0), vector_safe=True),
    ActivationDef("neg", 18, "(-(x))", vector_safe=True),
    ActivationDef("reciprocal", 19, "(1.0f / (x))"),
    ActivationDef("erf", 20, "erf(x)"),
    # ONNX Selu: gamma * x for x > 0, gamma * alpha * (exp(x) - 1) otherwise (a = alpha, b = gamma; the float32
    # values of the opset-6 defaults)
    ActivationDef("selu", 21, "((x) > 0.0f ? B * (x) : B * A * expm1(x))",
                  (1.67326319217681884765625, 1.05070102214813232421875)),
    ActivationDef("floor", 22, "floor(x)"),
    ActivationDef("ceil", 23, "ceil(x)"),
    # ONNX Round: halves to even, as C's rint in the default rounding mode
    ActivationDef("round", 24, "rint(x)"),
    # ONNX Sign: 1, -1, or x itself for 0, -0 and NaN
    ActivationDef("sign", 25, "((x) > 0.0f ? 1.0f : ((x) < 0.0f ? -1.0f : (x)))", vector_safe=True),
]
ACTIVATIONS: dict[str, ActivationDef] = {d.name: d for d in _A}

ELTWISE: dict[str, EltwiseDef] = {d.name: d for d in [
    EltwiseDef("sum", 0, "a + b"),
    EltwiseDef("sub", 1, "a - b"),
    EltwiseDef("prod", 2, "a * b"),
    EltwiseDef("div", 3, "a / b", cl_int="eltwise_idiv"),
    EltwiseDef("max", 4, "fmax(a, b)", cl_int="max"),
    EltwiseDef("min", 5, "fmin(a, b)", cl_int="min"),
    EltwiseDef("pow", 6, "pow(a, b)", cl_int="eltwise_ipow", fused_cl=False),
    # ONNX PRelu: b is the slope
    EltwiseDef("prelu", 7, "((a) >= 0.0f ? (a) : (b) * (a))", cl_float="eltwise_prelu_float",
               cl_int="eltwise_prelu_int", fused_cl=False, fused_cpu=False),
    # comparisons (ONNX Equal, Less, Greater, LessOrEqual, GreaterOrEqual; not-equal for Xor): 1 or 0 in the
    # operands' type; the ONNX converter reorders the result to bool (u8)
    EltwiseDef("equal", 8, "((a) == (b) ? 1.0f : 0.0f)", fused_cl=False, fused_cpu=False),
    EltwiseDef("not_equal", 9, "((a) != (b) ? 1.0f : 0.0f)", fused_cl=False, fused_cpu=False),
    EltwiseDef("less", 10, "((a) < (b) ? 1.0f : 0.0f)", fused_cl=False, fused_cpu=False),
    EltwiseDef("greater", 11, "((a) > (b) ? 1.0f : 0.0f)", fused_cl=False, fused_cpu=False),
    EltwiseDef("less_equal", 12, "((a) <= (b) ? 1.0f : 0.0f)", fused_cl=False, fused_cpu=False),
    EltwiseDef("greater_equal", 13, "((a) >= (b) ? 1.0f : 0.0f)", fused_cl=False, fused_cpu=False),
    # selects (ONNX Where = mask(x, c) + mask_not(y, c)): a where b is non-zero, else 0 / the other way round;
    # the unselected operand never enters the arithmetic (an Inf or NaN there does not leak)
    EltwiseDef("mask", 14, "((b) != 0.0f ? (a) : 0.0f)", cl_int="eltwise_imask", fused_cl=False, fused_cpu=False),
    EltwiseDef("mask_not", 15, "((b) != 0.0f ? 0.0f : (a))", cl_int="eltwise_imask_not", fused_cl=False,
               fused_cpu=False),
    # remainders (ONNX Mod): fmod has the dividend's sign (C fmod, ONNX fmod=1); mod the divisor's (ONNX fmod=0,
    # Python's float % and its special cases: fmod corrected by b when the signs differ, a zero with b's sign); an
    # integer x mod 0 gives 0 (a hardware divide would trap)
    EltwiseDef("fmod", 16, "fmod(a, b)", cl_int="eltwise_ifmod", fused_cl=False, fused_cpu=False),
    EltwiseDef("mod", 17, "(fmod(a, b) != 0.0f ? ((fmod(a, b) < 0.0f) != ((b) < 0.0f) ? fmod(a, b) + (b) : "
               "fmod(a, b)) : ((b) < 0.0f ? -0.0f : 0.0f))", cl_int="eltwise_imod", fused_cl=False,
               fused_cpu=False),
]}

ACTIVATION_DEFAULTS: dict[str, tuple[float, float]] = {n: d.defaults for n, d in ACTIVATIONS.items()
                                                       if d.defaults != (0.0, 0.0)}


# ---- OpenCL renderer ------------------------------------------------------------------------------------------

def float_literal(v: float) -> str:
    """A float as a parenthesized OpenCL C literal (``(1e-05f)``, ``INFINITY``, ``NAN``)."""
    v = float(v)
    if v != v:
        return "NAN"
    if v in (float("inf"), float("-inf")):
        return "INFINITY" if v > 0 else "(-INFINITY)"
    r = repr(v)
    return f"({r}f)" if ("e" in r or "." in r) else f"({r}.0f)"


def cl_activation(func: str, a: float, b: float) -> str:
    """Body of a function-like OpenCL macro of ``x`` computing ``func`` with parameters a, b substituted (``rint``,
    ``fmin``, ``fmax`` as common.cl's ``CLDNN_RINT`` / ``CLDNN_FMIN`` / ``CLDNN_FMAX``: the same functions without
    PoCL's library calls). Raises KeyError for an unknown function."""
    body = ACTIVATIONS[func].formula.replace("A", float_literal(a)).replace("B", float_literal(b))
    return "(" + re.sub(r"\b(rint|fmin|fmax)\(", lambda m: f"CLDNN_{m.group(1).upper()}(", body) + ")"


def cl_eltwise(mode: str, a: str, b: str, integer: bool = False, helper: str | None = None,
               paren: bool = False) -> str:
    """OpenCL text of eltwise ``mode`` on the operand texts ``a`` and ``b`` (inserted as given): the int function
    for ``integer`` operands where the table has one, else the infix form ``a + b`` (``(a + b)`` with ``paren``)
    for sum/sub/prod/div, else a call ``fn(a, b)``: ``fn`` is ``helper`` + the mode's name when a kernel brings its
    own helpers (``eltwise_vec8_``), else the table's float helper, else the formula's function."""
    d = ELTWISE[mode]
    mode = d.name  # an EltwiseMode member formats as its class name
    fn = d.cl_int if integer else None
    op = eltwise_infix(mode)
    if fn is None and op is not None:
        return f"({a} {op} {b})" if paren else f"{a} {op} {b}"
    if fn is None:
        fn = f"{helper}{mode}" if helper else d.cl_float
    if fn is None:
        tree = parse(d.formula)
        if tree[0] != "call":  # a comparison, a select, mod: the formula itself, operands substituted
            return re.sub(r"\b[ab]\b", lambda m: f"({a})" if m.group(0) == "a" else f"({b})", d.formula)
        fn = str(tree[1])
    return f"{fn}({a}, {b})"


def eltwise_infix(mode: str) -> str | None:
    """The C operator of an infix mode (sum ``+``, sub ``-``, prod ``*``, div ``/``), else None."""
    tree = parse(ELTWISE[mode].formula)
    return str(tree[1]) if tree[0] == "bin" and tree[2:] == (("var", "a"), ("var", "b")) else None


# ---- the neutral form: parser and Python renderer -----------------------------------------------------------

Node = tuple  # ("num", text) ("var", name) ("call", fn, args) ("neg", e) ("bin", op, l, r) ("cond", c, t, f)

_TOKEN = re.compile(r"\s*(?:(\d+\.\d*(?:[eE][-+]?\d+)?f?|\d+f?)|([A-Za-z_]\w*)|(>=|<=|==|!=|[-+*/()?:,<>]))")
_BIN_PREC = {"==": 1, "!=": 1, ">": 1, ">=": 1, "<": 1, "<=": 1, "+": 2, "-": 2, "*": 3, "/": 3}


def _tokens(text: str) -> list[str]:
    out, pos = [], 0
    text = text.rstrip()
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if m is None:
            raise ValueError(f"bad formula {text!r} at {pos}")
        out.append(m.group(m.lastindex or 0))
        pos = m.end()
    return out


def parse(text: str) -> Node:
    """The syntax tree of a neutral-form formula. Raises ValueError on a syntax error."""
    toks = _tokens(text)
    pos = 0

    def peek() -> str | None:
        return toks[pos] if pos < len(toks) else None

    def take(t: str | None = None) -> str:
        nonlocal pos
        tok = peek()
        if tok is None or (t is not None and tok != t):
            raise ValueError(f"bad formula {text!r}: expected {t!r}, got {tok!r}")
        pos += 1
        return tok

    def cond() -> Node:
        c = binary(1)
        if peek() == "?":
            take("?")
            t = cond()
            take(":")
            return ("cond", c, t, cond())
        return c

    def binary(prec: int) -> Node:
        left = unary()
        while True:
            op = peek()
            p = _BIN_PREC.get(op or "")
            if p is None or p < prec:
                return left
            take()
            left = ("bin", op, left, binary(p + 1))

    def unary() -> Node:
        if peek() == "-":
            take()
            return ("neg", unary())
        tok = take()
        if tok == "(":
            e = cond()
            take(")")
            return e
        if tok[0].isdigit():
            return ("num", tok)
        if peek() == "(":
            take("(")
            args = [cond()]
            while peek() == ",":
                take(",")
                args.append(cond())
            take(")")
            return ("call", tok, args)
        return ("var", tok)

    tree = cond()
    if pos != len(toks):
        raise ValueError(f"bad formula {text!r}: trailing {toks[pos:]}")
    return tree


def py_expr(tree: Node, names: dict[str, str], where: str | None) -> str:
    """Python source of a syntax tree: variables and called functions renamed by ``names`` (a missing name kept),
    ``c ? t : f`` as ``where(c, t, f)`` (numpy) or, when ``where`` is None, as ``(t if c else f)`` (scalars)."""
    kind = tree[0]
    if kind == "num":
        return str(tree[1]).rstrip("f")
    if kind == "var":
        return names.get(tree[1], tree[1])
    if kind == "neg":
        return f"(-{py_expr(tree[1], names, where)})"
    if kind == "bin":
        return f"({py_expr(tree[2], names, where)} {tree[1]} {py_expr(tree[3], names, where)})"
    if kind == "call":
        args = ", ".join(py_expr(a, names, where) for a in tree[2])
        return f"{names.get(tree[1], tree[1])}({args})"
    c, t, f = (py_expr(e, names, where) for e in tree[1:])
    return f"{where}({c}, {t}, {f})" if where else f"({t} if {c} else {f})"
