"""Fused ops on the OpenCL engine beyond the jitter's scalar ``FUSED_OPS``: the one answer to "can this fused chain
be expressed" (:func:`cl_fused_reason`) and the float8 form ``FUSED_OPS8`` (:func:`fused_ops8_jit`) that the
blocked kernels (convolution / pooling b_fs_yx_fsv16, eltwise_vec8, fully_connected_gemm) apply to 8 channels.
Formulas come from the element-wise table (:mod:`cldnn_py.ops.elementwise`).
"""

from __future__ import annotations

from cldnn_py.layout import DataType, Format, Layout
from cldnn_py.ops.elementwise import ACTIVATIONS, ELTWISE, cl_activation, cl_eltwise, float_literal

from ..jitter import JitConstants, operand_coords, tensor_jit
from ..params import FusedOp, Params

# Call-free float8 forms (%A% and %B% stand for the parameters). relu without fmax (a call on the pip PoCL; x > 0 ?
# x : 0 gives the same values, NaN -> 0 included); clamp, hard_sigmoid and hard_swish with selects in place of
# fmin/fmax (calls on the pip PoCL: MobileNetV3's 1x1 layers with a fused hard_swish ran at 23-70 GFLOP/s). Their
# selects let NaN through, as onnxruntime's Clip/HardSigmoid/HardSwish and numpy's clip do; the table's scalar
# formulas (fmin/fmax) turn NaN into a bound instead. logistic and swish (SiLU) through CLDNN_EXP8, a call-free float8
# exp (the pip PoCL's exp is a library call that spills every register around it: a YOLO-style 3 -> 16 channel first
# layer with a fused SiLU ran at 10 GFLOP/s). The other call-free float8 forms are the table's formulas marked
# ``vector_safe``.
_F8 = "(float8)"


def _max8(t: str, lo: str) -> str:
    """fmax(t, lo) with a select that keeps NaN (``t`` is evaluated twice: keep it simple)."""
    return f"({t} < {lo} ? {_F8}({lo}) : {t})"


def _min8(t: str, hi: str) -> str:
    """fmin(t, hi) with a select that keeps NaN."""
    return f"({t} > {hi} ? {_F8}({hi}) : {t})"


# in the table's order (fmin(fmax(x, A), B) gives B when A > B, as ONNX Clip does)
VECTOR_ACTIVATIONS = {
    "relu": "((x) > 0.0f ? (x) : (float8)(0.0f))",
    "clamp": _min8(_max8("(x)", "%A%"), "%B%"),
    "hard_sigmoid": _max8(_min8("(%A% * (x) + %B%)", "1.0f"), "0.0f"),
    "hard_swish": f"((x) * {_min8(_max8('((x) + 3.0f)', '0.0f'), '6.0f')} / 6.0f)",
    "logistic": "((float8)(1.0f) / ((float8)(1.0f) + CLDNN_EXP8(-(x))))",
    "swish": "((x) / ((float8)(1.0f) + CLDNN_EXP8(-%A% * (x))))",
    # rint without a call: for 0 <= x < 2^23, x + 2^23 lies where the float32 spacing is 1, so the addition rounds
    # half to even in the default rounding mode and subtracting 2^23 is exact (negative x mirrored); |x| >= 2^23 is
    # already an integer (and inf / NaN fail the tests and stay). A value that rounds to zero gives +0 where rint may
    # give -0 (equal in comparisons; fake quantization multiplies it). (Until 2026-11-27 one addition of 1.5 * 2^23
    # under |x| < 2^22 left the halves of [2^22, 2^23) unrounded.)
    "round": "((x) >= 0.0f ? ((x) < 8388608.0f ? ((x) + 8388608.0f) - 8388608.0f : (x)) : "
             "((x) > -8388608.0f ? ((x) - 8388608.0f) + 8388608.0f : (x)))",
    # exp: CLDNN_EXP8 with the float32 ends (inf above ln(FLT_MAX), 0 below the normal range); in (88.3, 88.72]
    # 2^n would overflow the exponent bits, so e^x = 2 e^{0.000212194440} e^{x - 0.693359375} (ln 2's two parts,
    # x - 0.693359375 exact in float32)
    "exp": "((x) > 88.7228394f ? (float8)(INFINITY) : ((x) < -87.3f ? (float8)(0.0f) : ((x) > 88.3f ? "
           "2.00042443f * CLDNN_EXP8((x) - 0.693359375f) : CLDNN_EXP8(x))))",
    "tanh": "CLDNN_TANH8(x)",
    "erf": "CLDNN_ERF8(x)",
    "gelu": "CLDNN_GELU8(x, CLDNN_ERFC8A(CLDNN_ABS8(x) * 0.70710678118654752f))",
}
# CLDNN_TANH8(x): Cephes' tanhf (S. Moshier): x + x z P(z), z = x^2, for |x| < 0.625 (no cancellation near 0), else
# sign(x) (1 - 2 / (e^{2|x|} + 1)) through CLDNN_EXP8 (whose clamp keeps e^{2|x|} finite: 1 for |x| > 44). NaN stays.
# CLDNN_ERF8(x): for |x| < 0.5 the Maclaurin series of erf to x^13 (truncation under 1e-9 relative), else
# sign(x) (1 - (a1 t + ... + a5 t^5) e^{-x^2}), t = 1 / (1 + p |x|) (Abramowitz & Stegun 7.1.26, |error| <= 1.5e-7,
# where erf >= 0.52: under 3e-7 relative). The pip PoCL's erf / tanh / exp builtins are library calls per lane: a
# (1, 197, 768) erf took 3.4-7.5 ms, tanh 1.9-3.5, exp 0.8-2.1 (logistic through CLDNN_EXP8: 0.11-0.16 ms).
# CLDNN_GELU8(x, e): gelu(x) = x Phi(x) = 0.5 x erfc(-x / sqrt 2) with e = erfc(|x| / sqrt 2): 0.5 x e for x < 0 and
# 0.5 x (2 - e) for x >= 0 (no cancellation either side). CLDNN_ERFC8A(a), a >= 0: erfc(a) = t exp(-a^2 + P(t)),
# t = 1 / (1 + a / 2), P of degree 9 (Numerical Recipes' erfcc, Press et al. 2007 section 6.2.2: relative error under
# 1.2e-7 for every a >= 0), so the tails x << 0 keep their relative accuracy (7.1.26 above has an absolute bound
# only): within 2e-6 relative for a < 4 in float32, 8e-6 out to the float32 range (the rounding of a^2), and 0 once
# the exponent is below -87.3. One CLDNN_EXP8 per value.
SPECIAL8_MACROS = {
    "CLDNN_ABS8(x)": "((x) < 0.0f ? -(x) : (x))",
    "CLDNN_ERFC8_T(a)": "(1.0f / (1.0f + 0.5f * (a)))",
    "CLDNN_ERFC8_P(t)": "(-1.26551223f + (t) * (1.00002368f + (t) * (0.37409196f + (t) * (0.09678418f + (t) * ("
                        "-0.18628806f + (t) * (0.27886807f + (t) * (-1.13520398f + (t) * (1.48851587f + (t) * ("
                        "-0.82215223f + (t) * 0.17087277f)))))))))",
    "CLDNN_ERFC8_K(s, t)": "((s) < -87.3f ? (float8)(0.0f) : (t) * CLDNN_EXP8(s))",
    "CLDNN_ERFC8A(a)": "CLDNN_ERFC8_K(CLDNN_ERFC8_P(CLDNN_ERFC8_T(a)) - (a) * (a), CLDNN_ERFC8_T(a))",
    "CLDNN_GELU8(x, e)": "(0.5f * (x) * ((x) < 0.0f ? (e) : 2.0f - (e)))",
    "CLDNN_TANH8_S(x, z)": "((((((-5.70498872745e-3f * (z) + 2.06390887954e-2f) * (z) - 5.37397155531e-2f) * (z)"
                           " + 1.33314422036e-1f) * (z) - 3.33332819422e-1f) * (z)) * (x) + (x))",
    "CLDNN_TANH8_L(a)": "(1.0f - 2.0f / (CLDNN_EXP8(2.0f * (a)) + 1.0f))",
    "CLDNN_TANH8(x)": "(CLDNN_ABS8(x) < 0.625f ? CLDNN_TANH8_S(x, (x) * (x)) : "
                      "((x) < 0.0f ? -CLDNN_TANH8_L(-(x)) : CLDNN_TANH8_L(x)))",
    "CLDNN_ERF8_S(x, z)": "((x) * (1.1283791670955126f + (z) * (-0.37612638903183754f + (z) * (0.11283791670955126f"
                          " + (z) * (-0.026866170645131252f + (z) * (0.005223977625442188f"
                          " + (z) * (-0.0008548327023450852f + (z) * 0.00012055332981789664f)))))))",
    "CLDNN_ERF8_T(a)": "(1.0f / (1.0f + 0.3275911f * (a)))",
    "CLDNN_ERF8_P(t)": "(((((1.061405429f * (t) - 1.453152027f) * (t) + 1.421413741f) * (t) - 0.284496736f) * (t)"
                       " + 0.254829592f) * (t))",
    "CLDNN_ERF8_L(a)": "(1.0f - CLDNN_ERF8_P(CLDNN_ERF8_T(a)) * CLDNN_EXP8(-(a) * (a)))",
    "CLDNN_ERF8(x)": "(CLDNN_ABS8(x) < 0.5f ? CLDNN_ERF8_S(x, (x) * (x)) : "
                     "((x) < 0.0f ? -CLDNN_ERF8_L(-(x)) : CLDNN_ERF8_L(x)))",
}

# CLDNN_EXP8(x): e^x for a float8 without calls: Cephes' expf (S. Moshier), as cldnn_py's numba exp_f32 does. The
# argument is clamped to [-87.3, 88.3] (2^n stays a normal float; below, e^x is under 1.2e-38 and the activations
# above round it away; above, 2e38 stands for inf: 1 / (1 + 2e38) is 5e-39 instead of 0), n = round(x / ln 2) by
# the 1.5 * 2^23 trick, r = x - n ln 2 in two parts, e^r by a degree-7 polynomial, 2^n by building the exponent
# bits. Relative error under 2 ulp on [-87, 88] (tests/ocl/test_activation_vec8.py). NaN stays NaN.
EXP8_MACROS = {
    "CLDNN_EXP8_CL(x)": "((x) < -87.3f ? (float8)(-87.3f) : ((x) > 88.3f ? (float8)(88.3f) : (x)))",
    "CLDNN_EXP8_N(c)": "(((c) * 1.44269504088896341f + 12582912.0f) - 12582912.0f)",
    "CLDNN_EXP8_R(c, n)": "((c) - (n) * 0.693359375f + (n) * 2.12194440e-4f)",
    "CLDNN_EXP8_P(r)": "((((((1.9875691500e-4f * (r) + 1.3981999507e-3f) * (r) + 8.3334519073e-3f) * (r)"
                       " + 4.1665795894e-2f) * (r) + 1.6666665459e-1f) * (r) + 5.0000001201e-1f) * (r) * (r)"
                       " + (r) + 1.0f)",
    "CLDNN_EXP8_2N(n)": "as_float8((convert_int8(n) + 127) << 23)",
    "CLDNN_EXP8_C(c)": "(CLDNN_EXP8_P(CLDNN_EXP8_R(c, CLDNN_EXP8_N(c))) * CLDNN_EXP8_2N(CLDNN_EXP8_N(c)))",
    "CLDNN_EXP8(x)": "CLDNN_EXP8_C(CLDNN_EXP8_CL(x))",
}


def broadcasts(operand: Layout, out: Layout) -> bool:
    """True when the OpenCL epilogues can read ``operand`` for every output element: the output's shape, one
    element, or the output's rank with each dimension the output's or 1 (:func:`~kernel_selector.jitter.operand_coords`
    zeroes the coordinate of a size-1 dimension; a lower-rank operand would align its dimensions differently from
    numpy's trailing alignment, so it is refused)."""
    if operand.shape == out.shape or operand.count() == 1:
        return True
    return operand.rank == out.rank and all(n in (1, o) for n, o in zip(operand.shape, out.shape))


def cl_fused_reason(params: Params, same_shape: bool = False) -> str | None:
    """Why the OpenCL fused-op epilogues (the jitter's ``FUSED_OPS``, :func:`fused_ops8_jit`) cannot express
    ``params.fused_ops``, or None: activations of the table, eltwise modes marked ``fused_cl`` with one operand that
    :func:`broadcasts` to the output (both epilogues read a broadcast operand; ``same_shape`` is kept for the
    FUSED_OPS8 callers and asks nothing more)."""
    for op in params.fused_ops:
        if op.kind == "activation":
            if op.act().func not in ACTIVATIONS:
                return f"fused activation {op.act().func!r} has no formula"
        elif op.kind == "eltwise":
            d = ELTWISE.get(op.elt().mode)
            if d is None or not d.fused_cl or len(op.extra_inputs) != 1:
                return f"fused eltwise {op.elt().mode!r} needs one operand"
            e, out = op.extra_inputs[0], params.output
            if not broadcasts(e, out):
                return (f"fused eltwise {op.elt().mode!r}: operand {e.shape} is neither the output's shape "
                        f"{out.shape} nor broadcast to it along size-1 dimensions of the same rank")
        else:
            return f"fused op {op.kind!r} is not supported"
    return None


def fused_ops8_jit(fused_ops: list[FusedOp], out_features: int) -> JitConstants:
    """``FUSED_OPS_ARGS`` and ``FUSED_OPS8(val, b, f, y, x)``: the fused ops applied to ``val``, the float8 of
    output channels f..f+7 (f a multiple of 8) of pixel (b, y, x), in order.

    The jitter's scalar ``FUSED_OPS`` would cost a kernel 16 calls per pixel on the pip PoCL. Activations use a
    call-free float8 form where one exists (VECTOR_ACTIVATIONS, the table's ``vector_safe`` formulas), else the
    shared scalar formula lane by lane. An eltwise operand in b_fs_yx_fsv16 f32 is read as one aligned float8; any
    other layout is gathered through ``FUSEDn_GET_INDEX`` (channels past the last are clamped to it; those lanes
    are not stored). Extra inputs are named ``fused_input<n>`` as in the jitter.
    """
    j = JitConstants()
    args, stmts = [], []
    n_in = 0
    for k, op in enumerate(fused_ops):
        if op.kind == "activation":
            func, a, b = op.act().func, op.act().a, op.act().b
            if func in VECTOR_ACTIVATIONS:
                form = VECTOR_ACTIVATIONS[func].replace("%A%", float_literal(a)).replace("%B%", float_literal(b))
                if "CLDNN_" in form:  # the call-free exp and what is built on it
                    for name, body in {**EXP8_MACROS, **SPECIAL8_MACROS}.items():
                        if name not in j:
                            j.add(name, body)
                j.add(f"FUSED8_ACT{k}(x)", form)
                stmts.append(f"val = FUSED8_ACT{k}(val);")
            elif ACTIVATIONS[func].vector_safe:
                j.add(f"FUSED8_ACT{k}(x)", cl_activation(func, a, b))
                stmts.append(f"val = FUSED8_ACT{k}(val);")
            else:
                j.add(f"FUSED8_ACT{k}(x)", cl_activation(func, a, b))
                stmts.append(f"{{ union {{ float8 v; float s[8]; }} u_; u_.v = val; for (int i_ = 0; i_ < 8; ++i_) "
                             f"u_.s[i_] = FUSED8_ACT{k}(u_.s[i_]); val = u_.v; }}")
        elif op.kind == "eltwise":
            e = op.extra_inputs[0]
            name, ptr = f"FUSED{n_in}", f"fused_input{n_in}"
            j.update(tensor_jit(name, e))
            args.append(f"const __global {e.dtype.cl_type}* {ptr}")
            b_, f_, y_, x_ = operand_coords(e).split(", ")
            if e.format == Format.b_fs_yx_fsv16 and e.dtype in (DataType.f32, DataType.f16) and e.dims4[1] > 1:
                operand = f"({name}_LOAD8({ptr}, {name}_GET_INDEX({b_}, f, {y_}, {x_})))"
            elif e.dims4[1] == 1:  # one value for the 8 channels
                operand = f"((float8)((float){name}_LOAD({ptr}, {name}_GET_INDEX({b_}, 0, {y_}, {x_}))))"
            else:
                lanes = [f"(float){name}_LOAD({ptr}, {name}_GET_INDEX({b_}, ((f) + {i} < {out_features} ? (f) + {i} "
                         f": {out_features - 1}), {y_}, {x_}))" for i in range(8)]
                operand = "((float8)(" + ", ".join(lanes) + "))"
            stmts.append("val = " + cl_eltwise(op.elt().mode, "val", operand) + ";")
            n_in += 1
        else:
            raise ValueError(f"unknown fused op kind {op.kind!r}")
    j.add("FUSED_OPS_ARGS", "".join(", " + a for a in args))
    j.add("FUSED_OPS8(val, b, f, y, x)", "do { " + " ".join(stmts) + " } while (0)")
    return j


def fused_ops8_reason(params: Params) -> str | None:
    """Why FUSED_OPS8 cannot express ``params.fused_ops`` (:func:`cl_fused_reason` with operands of the output's
    shape), or None."""
    return cl_fused_reason(params, same_shape=True)


def trailing_shuffle(fused_ops: list[FusedOp]) -> tuple[list[FusedOp], int]:
    """(the ops before it, its groups G) when the last fused op is a channel shuffle (a kernel that takes one writes
    output channel c to (c mod C/G)·G + c div C/G: passes/fuse_shuffle_into_stores.py and
    passes/fusing/fuse_shuffle_channels.py put it there), else (``fused_ops``, 0)."""
    if not fused_ops or fused_ops[-1].kind != "shuffle_channels":
        return fused_ops, 0
    return fused_ops[:-1], int(fused_ops[-1].attrs.group)  # type: ignore[attr-defined]
