"""eltwise_vec8: element-wise ops on f32 / f16 tensors of one shape (or per-channel operands) with float8 accesses.

``eltwise_ref`` computes one element per work-item through GET_INDEX and calls ``fmax``/``fmin`` (calls on the
pip PoCL). Here the data move as aligned float8 (docs/performance.md) and every operator is
call-free. Two variants: flat (every tensor has the same unpadded layout without block tails: one contiguous
array, any format) and b_fs_yx_fsv16 (per-tensor y/x/batch padding allowed, 16 channels x a few pixels per
work-item). In the zoo models the eltwise sums are fused into their convolutions, so this kernel serves graphs
where they are not (a sum of two poolings, an eltwise after a non-convolution, a forced or unfusable layer).
"""

from __future__ import annotations

from cldnn_py.layout import DataType, Format, Layout
from cldnn_py.ops import EltwiseAttrs, EltwiseMode
from cldnn_py.ops.elementwise import cl_eltwise

from ...common.fused_ops import fused_ops8_jit, fused_ops8_reason
from ...jitter import JitConstants
from ...kernel_base import FORCE_PRIORITY_3, Arg, ClKernelData, KernelBase, KernelData
from ...params import FLOATS, Params, SupportedKey
from ...selector import register

FLAT_BLOCK = 16  # float8 numbers per work-item in the flat variant
FSV16_BLOCK = 4  # pixels per work-item in the b_fs_yx_fsv16 variant

# modes with a float8 form: the infix ones and those with a helper in eltwise_vec8.cl (eltwise_vec8_<mode>: keep
# fmax / fmin's NaN rule, a NaN operand loses, with comparisons: a vector ?: is a blend, fmax() a call)
_VEC8_MODES = frozenset({EltwiseMode.sum, EltwiseMode.sub, EltwiseMode.prod, EltwiseMode.div, EltwiseMode.max,
                         EltwiseMode.min, EltwiseMode.prelu})


def is_flat(lay: Layout) -> bool:
    """True when the buffer holds exactly the tensor's elements (no padding, no block tail)."""
    return lay.padding.is_zero and lay.buffer_size == lay.count()


def per_channel(x: Layout, out: Layout) -> bool:
    """True for an operand of shape (N, C, 1, 1) against a rank-4 (N, C, H, W) output with H·W > 1: one value per
    channel, broadcast over the pixels (the squeeze-excitation scale of MobileNetV3 / EfficientNet)."""
    return (out.rank == 4 and x.rank == 4 and x.shape[:2] == out.shape[:2] and x.shape[2:] == (1, 1)
            and out.shape[2:] != (1, 1))


def scalar(x: Layout, out: Layout) -> bool:
    """True for a one-element operand of a larger output (a constant divisor or scale, as GELU's x / sqrt(2) and
    attention's q·kᵀ · d^-0.5 are exported; a dynamic quantization's scale, a crop view of a padded buffer): one
    value, read at its offset, broadcast to every element."""
    return x.count() == 1 < out.count() and not x.format.is_blocked


def scalar8(k: int) -> str:
    """Input ``k``'s one element (:func:`scalar`), read at its offset (a crop view is padded), as a float8."""
    return f"((float8)(INPUT{k}_LOAD(input{k}, INPUT{k}_GET_INDEX(0, 0, 0, 0))))"


def row_operand(x: Layout, out: Layout) -> bool:
    """True for an operand that numpy broadcasts along the leading axes only: its shape, right-aligned, is the
    output's trailing dims (leading 1s allowed), a multiple of 8 elements, both unpadded bfyx (a bias of C values
    added to a (1, T, C) MatMul result): output element i reads operand element i mod its count."""
    if x.format != Format.bfyx or out.format != Format.bfyx or not is_flat(x) or x.count() == out.count() or \
            x.count() % 8 or out.count() % x.count():
        return False
    dims = list(x.shape)
    while dims and dims[0] == 1 and len(dims) > 1:
        dims.pop(0)
    return len(dims) <= out.rank and tuple(out.shape[out.rank - len(dims):]) == tuple(dims)


def variant(params: Params) -> str | None:
    """``flat``, ``fsv16`` or None (neither applies) for these layouts. Only the fsv16 variant takes per-channel
    operands (:func:`per_channel`), only the flat one row operands (:func:`row_operand`); both take scalar operands
    (:func:`scalar`: in the fsv16 variant a run-time scale or clamp bound of a dynamic quantization, whose output is
    padded for the convolution that reads it)."""
    out = params.output
    full = [x for x in params.inputs if not scalar(x, out) and not row_operand(x, out)]
    if any(x.shape != out.shape and not per_channel(x, out) for x in full):
        return None
    tensors = [*full, out]
    if all(x.shape == out.shape for x in full) and all(x.format == out.format and is_flat(x) for x in tensors):
        return "flat"
    rows = [x for x in params.inputs if not scalar(x, out) and row_operand(x, out)]
    if not rows and all(x.format == Format.b_fs_yx_fsv16 and not x.padding.lower[1] and not x.padding.upper[1]
                        for x in tensors):
        return "fsv16"
    return None


@register
class EltwiseKernelVec8(KernelBase):
    """y = in0 ∘ in1 ∘ ... (left to right, as ``eltwise_ref``) for N inputs of the output's shape, or, in the
    b_fs_yx_fsv16 variant, of shape (N, C, 1, 1) broadcast over the pixels (a squeeze-excitation scale), in both
    variants of one element broadcast to all (a scalar), or, in the flat variant, of the output's trailing dims
    broadcast along the leading ones (a bias row, :func:`row_operand`). Inputs and
    output f32 or f16 (storage, each tensor its own), float8 arithmetic either way.

    Modes sum (coefficients too), sub, prod, div, max, min, prelu; ``pow`` is rejected (only the ``pow`` builtin,
    a call, computes it). Layouts: flat (identical unpadded layouts without block tails, any format; gws
    (ceil(count / 8 / FLAT_BLOCK)), lws (1)) or b_fs_yx_fsv16 (each tensor padded along y/x/batch as it likes; gws
    (ceil(X / P), Y, ceil(C / 16) * N), lws (1, 1, 1)). Fused activations in both; fused eltwise operands (of the
    output's shape) in the fsv16 variant, through FUSED_OPS8.
    """

    name = "eltwise_vec8"
    primitive = "eltwise"
    tier = "cpu"  # work-groups of one work-item, registers as the tile: shaped for CPU devices
    supports_fused_ops = True  # through FUSED_OPS8 (fused_ops8_jit)
    n_data_inputs = None

    def supported_key(self) -> SupportedKey:
        """OpenCL, f32 or f16 (storage, each tensor its own) inputs and output, any format, padding allowed
        (validate narrows it)."""
        return SupportedKey(input_dtypes=FLOATS, output_dtypes=FLOATS)

    def validate(self, params: Params) -> str | None:
        """A call-free mode, inputs of the output's shape in one of the two layout variants, fused ops that
        FUSED_OPS8 expresses (in the flat variant activations and one-element eltwise operands only)."""
        mode = EltwiseMode(params.attrs_as(EltwiseAttrs).mode)
        if mode not in _VEC8_MODES:
            return f"mode {mode.value} needs a builtin call (pow) on every element"
        coeffs = params.attrs_as(EltwiseAttrs).coefficients
        if coeffs is not None and len(coeffs) != len(params.inputs):
            return f"{len(coeffs)} coefficients for {len(params.inputs)} inputs"
        v = variant(params)
        if v is None:
            return ("inputs must have the output's shape (broadcasting only (N, C, 1, 1) in b_fs_yx_fsv16 and one "
                    "element in the flat variant), either all the output's unpadded layout without block tails, or "
                    "all b_fs_yx_fsv16")
        if v == "flat" and any(op.kind != "activation" and op.extra_inputs[0].count() != 1 for op in params.fused_ops):
            return ("fused eltwise operands of more than one element need the b_fs_yx_fsv16 variant (the flat one "
                    "has no coordinates)")
        return fused_ops8_reason(params)

    def priority(self, params: Params) -> int:
        """Well below the reference: it wins whenever it validates."""
        return FORCE_PRIORITY_3

    def jit_constants(self, params: Params) -> JitConstants:
        """Tensors, EV_FLAT, EV_ALL_F32 (no tensor stored as half), EV_BLOCK, EV_COUNT, ELTWISE_INPUTS_DECL,
        ELTWISE_INPUT_NUM and the generated fold (ELTWISE_VEC8_RESULT, ELTWISE_VEC8_ROWS or ELTWISE_VEC8_STAGE /
        ELTWISE_VEC8_STAGED_RESULT)."""
        j = super().jit_constants(params)
        n = len(params.inputs)
        flat = variant(params) == "flat"
        mode = EltwiseMode(params.attrs_as(EltwiseAttrs).mode)
        coeffs = params.attrs_as(EltwiseAttrs).coefficients

        def fold(vals: list[str]) -> str:
            if coeffs is not None:
                vals = [f"({float(c):.9e}f * {v})" for c, v in zip(coeffs, vals)]
            expr = vals[0]
            for v in vals[1:]:
                expr = cl_eltwise(mode.value, expr, v, helper="eltwise_vec8_", paren=True)
            return f"({expr})"

        all_f32 = all(x.dtype == DataType.f32 for x in [*params.inputs, params.output])
        j.update({"EV_FLAT": int(flat), "EV_ALL_F32": int(all_f32),
                  "EV_BLOCK": FLAT_BLOCK if flat else self.fsv16_block(params),
                  "EV_COUNT": params.output.count(), "ELTWISE_INPUT_NUM": n,
                  "ELTWISE_INPUTS_DECL": ", ".join(f"const __global INPUT{i}_TYPE* input{i}" for i in range(n))})
        if flat:  # a scalar operand: its one value broadcast to a float8; a row operand: float8 i mod its count
            out = params.output
            one = [scalar(x, out) for x in params.inputs]
            rows = [not one[k] and x.shape != out.shape and row_operand(x, out) for k, x in enumerate(params.inputs)]

            def vec(k: int) -> str:
                if one[k]:
                    return scalar8(k)
                if rows[k]:
                    return f"EV_LD8(INPUT{k}, input{k}, ((i) % {params.inputs[k].count() // 8}))"
                return f"EV_LD8(INPUT{k}, input{k}, (i))"

            def elem(k: int) -> str:
                return f"INPUT{k}_GET_INDEX(0, 0, 0, 0)" if one[k] else \
                    f"(idx) % {params.inputs[k].count()}" if rows[k] else "idx"

            j.add("ELTWISE_VEC8_RESULT(i)", fold([vec(k) for k in range(n)]))
            j.add("ELTWISE_VEC8_STAGE(t, k, idx)",
                  " ".join(f"t[{m}].s[k] = INPUT{m}_LOAD(input{m}, {elem(m)});" for m in range(n)))
            j.add("ELTWISE_VEC8_STAGED_RESULT(t)", fold([f"t[{m}].v" for m in range(n)]))
        else:
            out = params.output
            one = [scalar(x, out) for x in params.inputs]
            bcast = [per_channel(x, out) for x in params.inputs]

            def vec16(k: int) -> str:  # a scalar: its one value; per channel: the same two float8 for every pixel
                if one[k]:
                    return scalar8(k)
                return f"EV_LD8(INPUT{k}, row{k}, {'((i) & 1)' if bcast[k] else '(i)'})"

            j.add("ELTWISE_VEC8_RESULT(i)", fold([vec16(k) for k in range(n)]))
            j.add("ELTWISE_VEC8_ROWS", " ".join(
                f"const __global INPUT{k}_TYPE* row{k} = input{k} + INPUT{k}_OFFSET + b * INPUT{k}_BATCH_PITCH "
                f"+ fs * INPUT{k}_FEATURE_PITCH" + ("" if bc else f" + y * INPUT{k}_Y_PITCH + x0 * 16") + ";"
                for k, bc in enumerate(bcast) if not one[k]))
        return j

    def fsv16_block(self, params: Params) -> int:
        """Pixels per work-item of the fsv16 variant: FSV16_BLOCK, or the whole row when narrower."""
        return min(FSV16_BLOCK, params.output.dims4[3])

    def dispatch(self, params: Params) -> tuple[tuple[int, ...], tuple[int, ...]]:
        """Flat: (ceil(count / 8 / FLAT_BLOCK),), (1,); fsv16: (ceil(X / P), Y, ceil(C / 16) * N), (1, 1, 1)."""
        if variant(params) == "flat":
            vecs = params.output.count() // 8
            return (max(1, -(-vecs // FLAT_BLOCK)),), (1,)
        b, f, y, x = params.output.dims4
        return (-(-x // self.fsv16_block(params)), y, -(-f // 16) * b), (1, 1, 1)

    def kernel_data(self, params: Params) -> KernelData:
        """One enqueue: the inputs, the output, then the fused ops' extra inputs."""
        jit = self.jit_constants(params)
        jit.update(fused_ops8_jit(params.fused_ops, params.output.dims4[1]))
        args = ([Arg("input", i) for i in range(len(params.inputs))] + [Arg("output", 0)]
                + [Arg("input", i) for op in params.fused_ops for i in op.dep_indices])
        entry, src = self.make_source(jit)
        gws, lws = self.dispatch(params)
        return KernelData(self.name, [ClKernelData(entry, src, gws, lws, args)])
