"""winograd_input_b_fs_yx_fsv16: the Winograd F(4x4, 3x3) input transform of a blocked f32 input for CPU OpenCL
devices (PoCL), one 6x6 tile x 8 channels per work-item with float8 accesses."""

from __future__ import annotations

from cldnn_py.layout import DataType, Format
from cldnn_py.ops.winograd import ALPHA, WinogradInputAttrs

from ...jitter import JitConstants
from ...kernel_base import FORCE_PRIORITY_3, Arg, ClKernelData, KernelBase, KernelData
from ...params import Params, SupportedKey
from ...selector import register


def winograd_input_reason(params: Params) -> str | None:
    """Why ``params`` is no input transform the kernels take, or None: input (N, C, H, W) f32, output (36,
    N·tiles_y·tiles_x, C) (``channel_major``: (1, 36·C, N·tiles_y·tiles_x, 1)) f32 bfyx unpadded."""
    a = params.attrs_as(WinogradInputAttrs)
    x, out = params.inputs[0], params.output
    if x.rank != 4 or x.dtype != DataType.f32:
        return f"input must be rank-4 f32, got {x.dtype.value} {x.shape}"
    n_t = x.shape[0] * a.tiles_y * a.tiles_x
    want = (1, ALPHA * ALPHA * x.shape[1], n_t, 1) if a.channel_major else (ALPHA * ALPHA, n_t, x.shape[1])
    if out.shape != want or out.format != Format.bfyx or not out.padding.is_zero or out.dtype != DataType.f32:
        return f"output must be f32 bfyx {want} unpadded, got {out.dtype.value} {out.format.value} {out.shape}"
    return None


@register
class WinogradInputKernelBFsYxFsv16(KernelBase):
    """V = Bᵀ d B for every 6×6 tile d (Lavin & Gray 2016; semantics in
    :class:`cldnn_py.primitives.winograd.WinogradInput`).

    INPUT0 (N, C, H, W) b_fs_yx_fsv16 f32, C a multiple of 16, padded along y/x/batch as it likes (not along
    features; the padding is never read: outside the image counts as zeros); OUTPUT (36, N·tiles_y·tiles_x, C) f32
    bfyx, unpadded. gws (C/8, tiles_x, tiles_y·N), lws (1, 1, 1): each work-item loads its tile's 36 float8 (8
    channels), transforms rows then columns in private memory and stores 36 float8 (cl_kernels/
    winograd_input_b_fs_yx_fsv16.cl)."""

    name = "winograd_input_b_fs_yx_fsv16"
    primitive = "winograd_input"
    tier = "cpu"  # work-groups of one work-item: shaped for CPU devices

    def supported_key(self) -> SupportedKey:
        """OpenCL, f32 in and out (validate narrows the formats)."""
        return SupportedKey(input_dtypes=frozenset({DataType.f32}), output_dtypes=frozenset({DataType.f32}))

    def validate(self, params: Params) -> str | None:
        """Input b_fs_yx_fsv16 without feature padding, C % 16 == 0; shapes as :func:`winograd_input_reason`."""
        x = params.inputs[0]
        if params.attrs_as(WinogradInputAttrs).channel_major:
            return "channel_major is the CPU engine's layout (winograd_input_cpu_planes)"
        if x.format != Format.b_fs_yx_fsv16 or x.padding.lower[1] or x.padding.upper[1]:
            return f"input must be b_fs_yx_fsv16 without feature padding, got {x.format.value}"
        if x.rank == 4 and x.shape[1] % 16:
            return f"input channels must be a multiple of 16, got {x.shape[1]}"
        return winograd_input_reason(params)

    def priority(self, params: Params) -> int:
        """The fast kernel of its primitive."""
        return FORCE_PRIORITY_3

    def jit_constants(self, params: Params) -> JitConstants:
        """Tensors plus TILES_X, TILES_Y, PAD_X, PAD_Y."""
        a = params.attrs_as(WinogradInputAttrs)
        j = super().jit_constants(params)
        return j.update({"TILES_X": a.tiles_x, "TILES_Y": a.tiles_y, "PAD_X": a.pad_x, "PAD_Y": a.pad_y})

    def dispatch(self, params: Params) -> tuple[tuple[int, ...], tuple[int, ...]]:
        """(C/8, tiles_x, tiles_y·N), (1, 1, 1): the channels fastest, so consecutive work-items (PoCL runs the
        work-groups in order, x fastest) read and write neighbouring 32-byte halves of the same cache lines."""
        a = params.attrs_as(WinogradInputAttrs)
        n, c = params.inputs[0].shape[:2]
        return (c // 8, a.tiles_x, a.tiles_y * n), (1, 1, 1)

    def kernel_data(self, params: Params) -> KernelData:
        """One enqueue: input, output."""
        entry, src = self.make_source(self.jit_constants(params))
        gws, lws = self.dispatch(params)
        return KernelData(self.name, [ClKernelData(entry, src, gws, lws, [Arg("input", 0), Arg("output", 0)])])
