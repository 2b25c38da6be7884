"""quantized_convolution_cpu_gemm: the CPU engine's integer convolution as exact float32 BLAS products over chunks.

A float32 sum of integer products is exact while every partial sum stays below 2^24 in magnitude, whatever the
summation order. With |x − x_zp| ≤ X (the larger distance from this run's zero point to the ends of the input's
type) and |w − w_zp| ≤ Wmax (from the weights themselves), a chunk of
KC = ⌊(2^24 − 1) / (X·Wmax)⌋ products cannot leave that range: each chunk of K runs as one sgemm (OpenBLAS, all
cores) and its result is added to an int64 accumulator. K = C/groups·KH·KW; KC is 517 for full-range int8 weights,
so a 3×3 layer of 512 channels runs as 9 sgemms. Then bias, and the output conversion of the reference
(:func:`~.quantized_convolution_kernel_cpu_ref.convert_output`). Exact float arithmetic on integers is what lets a
CPU without integer dot products (this AVX2 machine) run the integer layers at sgemm speed; the chunking by the
proven bound is this engine's.

The weights are converted (centred, float32, per group) once and kept while the buffer holds the same bytes (checked
at every run against a copy: a weights tensor computed at run time is still right).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from cldnn_py.layout import DataType, Format
from cldnn_py.ops import QuantizedConvolutionAttrs

from ...common.cpu_window import pad_spatial, window_extent
from ...cpu_kernel_base import CPU, CpuKernelBase, read_logical, typed, write_logical
from ...kernel_base import FORCE_PRIORITY_5
from ...params import Params, SupportedKey
from ...selector import register
from ..convolution.convolution_kernel_cpu_ref import im2col
from .quantized_convolution_kernel_cpu_ref import convert_output
from .quantized_convolution_kernel_ref import OUTPUTS, QUANTIZED, QuantizedConvolutionKernelRef, optional_inputs

EXACT = 2 ** 24 - 1
"""The largest magnitude every partial float32 sum of a chunk may reach."""


def input_bound(dtype: DataType, zero_point: int) -> int:
    """The largest |x − zp| for x of ``dtype`` (u8 or i8): the distance from ``zero_point`` to the farther end of the
    type's range."""
    lo, hi = (0, 255) if dtype == DataType.u8 else (-128, 127)
    return max(zero_point - lo, hi - zero_point)


def chunk_size(x_bound: int, w_bound: int) -> int:
    """Products per exact float32 chunk: ⌊EXACT / (x_bound · w_bound)⌋, at least 1."""
    return max(1, EXACT // max(1, x_bound * w_bound))


@register
class QuantizedConvolutionKernelCpuGemm(CpuKernelBase):
    """Integer convolution on the CPU engine by exact float32 sgemm chunks (module docstring).

    Inputs as ``quantized_convolution_ref``: data (N, C, H, W) u8/i8 plain bfyx, weights (OC, C/groups, KH, KW) plain
    oiyx, then bias, input zero point, weights zero point, output scale when present. Output (N, OC, OH, OW) bfyx in
    the primitive's type, bit for bit the reference's.
    """

    name = "quantized_convolution_cpu_gemm"
    primitive = "quantized_convolution"

    def supported_key(self) -> SupportedKey:
        """CPU engine, u8/i8 data, any output type of the primitive, bfyx data and output (padding read through the
        layout)."""
        bfyx = frozenset({Format.bfyx})
        return SupportedKey(engines=CPU, input_dtypes=QUANTIZED, output_dtypes=OUTPUTS, input_formats=bfyx,
                            output_formats=bfyx)

    def validate(self, params: Params) -> str | None:
        """The reference's checks (plain unpadded weights)."""
        return QuantizedConvolutionKernelRef().validate(params)

    def priority(self, params: Params) -> int:
        """Ahead of the reference."""
        return FORCE_PRIORITY_5

    def make_fn(self, params: Params) -> Callable[..., None]:
        """The run function: read, centre, im2col, chunked sgemm, bias, output conversion."""
        a = params.attrs_as(QuantizedConvolutionAttrs)
        opt = optional_inputs(a)
        ins, out = list(params.inputs), params.output
        oc, cg, kh, kw = ins[1].shape
        g = int(a.groups)
        oh, ow = out.shape[2], out.shape[3]
        need = (window_extent(oh, kh, a.stride[0], a.dilation[0]), window_extent(ow, kw, a.stride[1], a.dilation[1]))
        k = cg * kh * kw
        cache: dict[str, Any] = {}

        def weights(w_raw: np.ndarray, w_zp: np.ndarray | None) -> tuple[np.ndarray, int]:
            zp = np.zeros(1, np.int64) if w_zp is None else w_zp.astype(np.int64)
            if "raw" in cache and np.array_equal(cache["raw"], w_raw) and np.array_equal(cache["zp"], zp):
                return cache["w"], cache["bound"]  # the same bytes as last run: a compare, no copy
            wc = w_raw.astype(np.float32).reshape(oc, k) - zp.astype(np.float32).reshape(-1, 1)
            cache.update(raw=w_raw.copy(), zp=zp, w=np.ascontiguousarray(wc.reshape(g, oc // g, k)),
                         bound=int(np.abs(wc).max(initial=0)))
            return cache["w"], cache["bound"]

        def fn(*bufs: Any) -> None:
            vals = {name: read_logical(bufs[i], ins[i]) for name, i in opt.items()}
            x = typed(bufs[0], ins[0]).reshape(ins[0].shape) if ins[0].padding.is_zero else \
                read_logical(bufs[0], ins[0])
            w_raw = typed(bufs[1], ins[1])
            wc, w_bound = weights(w_raw, vals["WZP"].reshape(-1) if "WZP" in vals else None)
            zp = int(vals["IZP"].reshape(-1)[0]) if "IZP" in vals else 0
            xc = x.astype(np.float32)
            if zp:
                xc -= np.float32(zp)
            cols = im2col(pad_spatial(xc, a.pad, need), g, (kh, kw), a.stride, a.dilation, (oh, ow))
            n = x.shape[0]
            kc = chunk_size(input_bound(ins[0].dtype, zp), w_bound)
            if kc >= k:
                acc = np.rint(np.matmul(wc, cols)).astype(np.int64)
            else:
                acc = np.zeros((n, g, oc // g, oh * ow), np.int64)
                for k0 in range(0, k, kc):
                    acc += np.matmul(wc[:, :, k0:k0 + kc], cols[:, :, k0:k0 + kc]).astype(np.int64)
            acc = acc.reshape(n, oc, oh, ow)
            if "BIAS" in vals:
                acc += vals["BIAS"].astype(np.int64).reshape(1, oc, 1, 1)
            y = convert_output(params, acc.astype(np.int32), vals.get("SCALE"))
            if out.padding.is_zero:
                typed(bufs[len(ins)], out)[:] = y.reshape(-1)
            else:
                write_logical(bufs[len(ins)], out, y)

        return fn
