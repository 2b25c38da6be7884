"""Fused ops on the OpenCL engine beyond the jitter's scalar ``FUSED_OPS``: the one answer to "can this fused chain
be expressed" (:func:`cl_fused_reason`) and the float8 form ``FUSED_OPS8`` (:func:`fused_ops8_jit`) that the
blocked kernels (convolution / pooling b_fs_yx_fsv16, eltwise_vec8, fully_connected_gemm) apply to 8 channels.
Formulas come from the element-wise table (:mod:`cldnn_py.ops.elementwise`).
"""

from __future__ import annotations

from cldnn_py.layout import DataType, Format
from cldnn_py.ops.elementwise import ACTIVATIONS, ELTWISE, cl_activation, cl_eltwise

from ..jitter import JitConstants, tensor_jit
from ..params import FusedOp, Params

# relu without fmax (a call on the pip PoCL; x > 0 ? x : 0 gives the same values, NaN -> 0 included); the other
# call-free float8 forms are the table's formulas marked ``vector_safe``
VECTOR_ACTIVATIONS = {"relu": "((x) > 0.0f ? (x) : (float8)(0.0f))"}


def cl_fused_reason(params: Params, same_shape: bool = False) -> str | None:
    """Why the OpenCL fused-op epilogues (the jitter's ``FUSED_OPS``, :func:`fused_ops8_jit`) cannot express
    ``params.fused_ops``, or None: activations of the table, eltwise modes marked ``fused_cl`` with one operand
    (of the output's shape when ``same_shape``: FUSED_OPS8 reads 8 channels of it)."""
    for op in params.fused_ops:
        if op.kind == "activation":
            if op.act().func not in ACTIVATIONS:
                return f"fused activation {op.act().func!r} has no formula"
        elif op.kind == "eltwise":
            d = ELTWISE.get(op.elt().mode)
            if d is None or not d.fused_cl or len(op.extra_inputs) != 1 or (
                    same_shape and op.extra_inputs[0].dims4 != params.output.dims4):
                return f"fused eltwise {op.elt().mode!r} needs one operand of the output's shape"
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
                j.add(f"FUSED8_ACT{k}(x)", VECTOR_ACTIVATIONS[func])
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
            if e.format == Format.b_fs_yx_fsv16 and e.dtype == DataType.f32:
                operand = f"(((const __global float8*)({ptr} + {name}_GET_INDEX(b, f, y, x)))[0])"
            else:
                lanes = [f"(float){ptr}[{name}_GET_INDEX(b, ((f) + {i} < {out_features} ? (f) + {i} : "
                         f"{out_features - 1}), y, x)]" for i in range(8)]
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
