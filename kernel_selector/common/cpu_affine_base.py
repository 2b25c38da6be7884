"""The base of the CPU engine's per-channel affine kernels (batch_norm_cpu_vec, eltwise_cpu_channel): validation of
the data layouts and the launch of :func:`~kernel_selector.common.cpu_channel_affine.channel_affine`."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from cldnn_py.layout import DataType, Format, Layout

from ..cpu_kernel_base import CPU, CpuKernelBase
from ..params import Params, SupportedKey
from .cpu_channel_affine import channel_affine
from .cpu_epilogue import EMPTY, chain_arrays, fused_reason
from .cpu_launch import Launcher, viewer
from .cpu_layout import row_map

F32 = frozenset({DataType.f32})
ROW_FORMATS = frozenset({Format.bfyx, Format.byxf, Format.yxfb, Format.fyxb, Format.b_fs_yx_fsv16})


def affine_layout_reason(x: Layout, out: Layout) -> str | None:
    """Why the per-channel affine rows cannot map ``x`` to ``out`` (rank 2-4, same shape and format, f32), or
    None."""
    if not 2 <= x.rank <= 4:
        return f"rank {x.rank}: needs 2-4"
    if x.shape != out.shape or x.format != out.format:
        return f"input {x} and output {out} differ in shape or format"
    if x.format not in ROW_FORMATS:
        return f"format {x.format.value} has no row map here"
    return None


class CpuAffineKernel(CpuKernelBase):
    """A CPU kernel whose output is ``x · mul[b, c] + add[b, c]`` of its first input, then its fused chain.
    Subclasses say how ``mul`` and ``add`` come from the buffers (:meth:`coefficients`)."""

    supports_fused_ops = True

    def supported_key(self) -> SupportedKey:
        """CPU, f32 in and out, plain or b_fs_yx_fsv16, padding allowed."""
        return SupportedKey(engines=CPU, input_dtypes=F32, output_dtypes=F32, input_formats=ROW_FORMATS,
                            output_formats=ROW_FORMATS)

    def validate(self, params: Params) -> str | None:
        """Data and output layouts the rows take, a fused chain the epilogue takes."""
        return affine_layout_reason(params.inputs[0], params.output) or fused_reason(params)

    def coefficients(self, params: Params) -> Callable[[tuple[Any, ...]], tuple[np.ndarray, int, np.ndarray, int]]:
        """A function of the kernel's buffers returning (mul, mul batch pitch, add, add batch pitch), float32."""
        raise NotImplementedError

    def make_fn(self, params: Params) -> Callable[..., None]:
        """fn(x, ..inputs.., out, [chain operand])."""
        x_lay, out = params.inputs[0], params.output
        n_in = len(params.inputs)
        codes, fa, fb, mr = chain_arrays(list(params.fused_ops), out)
        has_res = any(op.kind == "eltwise" for op in params.fused_ops)
        res_lay = next((lay for op in params.fused_ops for lay in op.extra_inputs), None)
        b, f, y, xw = out.dims4
        lanes = 16 if out.format == Format.b_fs_yx_fsv16 else 1
        dims = np.array([b, -(-f // lanes), y, xw, lanes, f], np.int64)
        mo, mx = row_map(out), row_map(x_lay)
        if lanes == 1 and all(m[4] == 1 and m[3] == xw for m in (mo, mx)) and \
                (not has_res or (mr[3] == xw * mr[4] and (mr[5:9] == 1).all())):
            dims[2], dims[3] = 1, y * xw  # contiguous planes: one row per plane (per-row overhead > 7-56 columns)
        view_x, view_out = viewer(x_lay), viewer(out)
        view_res = viewer(res_lay) if has_res and res_lay is not None else None
        coeffs = self.coefficients(params)
        launch = Launcher(2 * out.count())

        def fn(*bufs: Any) -> None:
            mul, mb, add, ab = coeffs(bufs)
            res = view_res(bufs[n_in + 1]) if view_res is not None else EMPTY
            launch(channel_affine, view_out(bufs[n_in]), mo, view_x(bufs[0]), mx, dims, mul, mb, add, ab, codes, fa,
                   fb, res, mr, has_res)

        return fn
