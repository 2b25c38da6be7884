"""winograd_output_b_fs_yx_fsv16: the Winograd F(4x4, 3x3) output transform into a blocked f32 output for CPU OpenCL
devices (PoCL), one 4x4 tile x 8 channels per work-item, bias and fused ops in the epilogue."""

from __future__ import annotations

from cldnn_py.layout import DataType, Format
from cldnn_py.ops.winograd import ALPHA, WinogradOutputAttrs

from ...common.fused_ops import fused_ops8_jit, fused_ops8_reason
from ...jitter import JitConstants
from ...kernel_base import FORCE_PRIORITY_3, Arg, ClKernelData, KernelBase, KernelData
from ...params import Params, SupportedKey
from ...selector import register


def winograd_output_reason(params: Params) -> str | None:
    """Why ``params`` is no output transform the kernels take, or None: input (36, N·tiles_y·tiles_x, OC)
    (``channel_major``: (1, 36·OC, N·tiles_y·tiles_x, 1)) f32 bfyx unpadded, bias (when given) OC contiguous
    values, output (N, OC, out_y, out_x) f32."""
    a = params.attrs_as(WinogradOutputAttrs)
    m, out = params.inputs[0], params.output
    if out.rank != 4 or out.dtype != DataType.f32:
        return f"output must be rank-4 f32, got {out.dtype.value} {out.shape}"
    n_t = out.shape[0] * a.tiles_y * a.tiles_x
    want = (1, ALPHA * ALPHA * out.shape[1], n_t, 1) if a.channel_major else (ALPHA * ALPHA, n_t, out.shape[1])
    if m.shape != want or m.format != Format.bfyx or not m.padding.is_zero or m.dtype != DataType.f32:
        return f"input must be f32 bfyx {want} unpadded, got {m.dtype.value} {m.format.value} {m.shape}"
    if out.shape[2:] != (a.out_y, a.out_x):
        return f"output size {out.shape[2:]}, expected {(a.out_y, a.out_x)}"
    if len(params.inputs) > 1:
        bias = params.inputs[1]
        if bias.count() != out.shape[1] or bias.format.is_blocked or not bias.padding.is_zero \
                or bias.dtype != DataType.f32:
            return f"bias must be {out.shape[1]} contiguous f32 values, got {bias.format.value} {bias.shape}"
    return None


@register
class WinogradOutputKernelBFsYxFsv16(KernelBase):
    """y = Aᵀ M A per 4×4 tile, plus the bias, then the fused ops (Lavin & Gray 2016; semantics in
    :class:`cldnn_py.primitives.winograd.WinogradOutput`).

    INPUT0 M (36, N·tiles_y·tiles_x, OC) f32 bfyx unpadded; INPUT1 the optional bias, OC contiguous f32 values;
    OUTPUT (N, OC, out_y, out_x) b_fs_yx_fsv16 f32, OC a multiple of 16, padded along y/x/batch as the next layer
    likes, and along features by whole slices (an in-place concatenation's input). gws (OC/8, tiles_x, tiles_y·N),
    lws (1, 1, 1): each work-item reduces its tile's 36 float8 (8 channels) along ξ then ν in private memory, adds
    the bias, applies FUSED_OPS8 (activations, the residual sum ...) and stores the pixels inside the output
    (cl_kernels/winograd_output_b_fs_yx_fsv16.cl)."""

    name = "winograd_output_b_fs_yx_fsv16"
    primitive = "winograd_output"
    tier = "cpu"  # work-groups of one work-item: shaped for CPU devices
    writes_padded_blocks = True  # out = output + OUTPUT_OFFSET + b, slice, y, x pitches
    supports_fused_ops = True  # through FUSED_OPS8
    n_data_inputs = 1

    def supported_key(self) -> SupportedKey:
        """OpenCL, f32 in and out (validate narrows the formats)."""
        return SupportedKey(input_dtypes=frozenset({DataType.f32}), output_dtypes=frozenset({DataType.f32}))

    def validate(self, params: Params) -> str | None:
        """Output b_fs_yx_fsv16 (feature padding: whole slices, an in-place concatenation's), OC % 16 == 0; shapes
        as :func:`winograd_output_reason`; fused ops FUSED_OPS8 expresses."""
        out = params.output
        if params.attrs_as(WinogradOutputAttrs).channel_major:
            return "channel_major is the CPU engine's layout (winograd_output_cpu_planes)"
        if out.format != Format.b_fs_yx_fsv16:
            return f"output must be b_fs_yx_fsv16, got {out.format.value}"
        if out.rank == 4 and out.shape[1] % 16:
            return f"output channels must be a multiple of 16, got {out.shape[1]}"
        return winograd_output_reason(params) or fused_ops8_reason(params)

    def priority(self, params: Params) -> int:
        """The fast kernel of its primitive."""
        return FORCE_PRIORITY_3

    def jit_constants(self, params: Params) -> JitConstants:
        """Tensors plus TILES_X, TILES_Y, HAS_BIAS."""
        a = params.attrs_as(WinogradOutputAttrs)
        j = super().jit_constants(params)
        return j.update({"TILES_X": a.tiles_x, "TILES_Y": a.tiles_y, "HAS_BIAS": int(len(params.inputs) > 1)})

    def dispatch(self, params: Params) -> tuple[tuple[int, ...], tuple[int, ...]]:
        """(OC/8, tiles_x, tiles_y·N), (1, 1, 1): the channels fastest, so consecutive work-items (PoCL runs the
        work-groups in order, x fastest) read and write neighbouring 32-byte halves of the same cache lines."""
        a = params.attrs_as(WinogradOutputAttrs)
        n, oc = params.output.shape[:2]
        return (oc // 8, a.tiles_x, a.tiles_y * n), (1, 1, 1)

    def kernel_data(self, params: Params) -> KernelData:
        """One enqueue: M, the bias when given, output, then the fused ops' extra inputs."""
        jit = self.jit_constants(params)
        jit.update(fused_ops8_jit(params.fused_ops, params.output.shape[1]))
        args = ([Arg("input", i) for i in range(len(params.inputs))] + [Arg("output", 0)]
                + [Arg("input", i) for op in params.fused_ops for i in op.dep_indices])
        entry, src = self.make_source(jit)
        gws, lws = self.dispatch(params)
        return KernelData(self.name, [ClKernelData(entry, src, gws, lws, args)])
