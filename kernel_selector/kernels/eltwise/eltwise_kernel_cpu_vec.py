"""eltwise_cpu_vec: the CPU engine's fast eltwise, numba loops on the physical buffers of inputs and output that
share one format and shape (no broadcasting).

Two paths, picked at build time from the layouts:

- flat: every tensor unpadded without block tail (``buffer_size == count``) in the same format: one flat loop over
  ``count`` elements, split in chunks of ``CHUNK`` across threads; the mode branch sits outside the inner loops so
  each is a straight vectorizable loop over float32;
- rows: padding may differ per tensor (e.g. a halo for the next convolution) and b_fs_yx_fsv16 may carry a
  channel tail: one thread task per (b, feature slice, y) row, the interior written only, lanes past the channel
  count never touched; a row whose tensors are all x-contiguous (fsv16 full slice, bfyx) is one vector loop.

N > 2 inputs fold left to right through the output buffer (out = in0 ∘ in1, then out = out ∘ in_k). Fused ops
(:mod:`..cpu_epilogue`: activations, one eltwise operand of any layout that broadcasts) run on each chunk / row
while it is in cache. Threads: numba ``prange`` (``numba.get_num_threads()``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numba
import numpy as np
from numba import prange

from cldnn_py.layout import DataType, Format, Layout
from cldnn_py.ops import EltwiseAttrs, EltwiseMode

from ...common.cpu_epilogue import EMPTY, I0, NJIT, chain_arrays, chain_span, fused_reason, lane_step, operand_index
from ...common.cpu_launch import Launcher, viewer
from ...common.cpu_layout import layout_offset, row_map
from ...common.elementwise_numba import ELT_CODES, binary
from ...common.elementwise_numba import fmax as _fmax
from ...common.elementwise_numba import fmin as _fmin
from ...cpu_kernel_base import CPU, CpuKernelBase
from ...kernel_base import FORCE_PRIORITY_3
from ...params import Params, SupportedKey
from ...selector import register
from .eltwise_kernel_vec8 import row_operand

F32 = frozenset({DataType.f32})
CHUNK = 16384  # elements per thread task in the flat path (64 KB per tensor: stays in L2 for the epilogue)


@numba.njit(**NJIT)
def _span(out: np.ndarray, io: int, a: np.ndarray, ia: int, b: np.ndarray, ib: int, cnt: int, mode: int,
          ca: Any, cb: Any) -> None:
    """out[io:io+cnt] = a[ia:..] ∘ b[ib:..] (sum: ca·a + cb·b); one straight loop per mode over sub-views
    (see :func:`..cpu_epilogue.act_span` on why sub-views)."""
    o, x, y = out[io:io + cnt], a[ia:ia + cnt], b[ib:ib + cnt]
    if mode == 0:
        for i in range(cnt):
            o[i] = ca * x[i] + cb * y[i]
    elif mode == 1:
        for i in range(cnt):
            o[i] = x[i] - y[i]
    elif mode == 2:
        for i in range(cnt):
            o[i] = x[i] * y[i]
    elif mode == 3:
        for i in range(cnt):
            o[i] = x[i] / y[i]
    elif mode == 4:
        for i in range(cnt):
            o[i] = _fmax(x[i], y[i])
    elif mode == 5:
        for i in range(cnt):
            o[i] = _fmin(x[i], y[i])
    else:
        for i in range(cnt):
            o[i] = binary(x[i], y[i], mode)


@numba.njit(parallel=True, **NJIT)
def eltwise_flat(out: np.ndarray, a: np.ndarray, b: np.ndarray, n: int, mode: int, ca: Any, cb: Any,
                 codes: np.ndarray, fa: np.ndarray, fb: np.ndarray, res: np.ndarray, has_res: bool) -> None:
    """Flat path: out[i] = chain(a[i] ∘ b[i]) for i < n; the chain's operand ``res`` shares the flat index."""
    for c in prange((n + CHUNK - 1) // CHUNK):
        s = c * CHUNK
        e = min(n, s + CHUNK)
        _span(out, s, a, s, b, s, e - s, mode, ca, cb)
        if codes.shape[0] > 0:
            chain_span(out, s, e - s, codes, fa, fb, res, s, 1 if has_res else 0)


@numba.njit(parallel=True, **NJIT)
def eltwise_rows(out: np.ndarray, mo: np.ndarray, a: np.ndarray, ma: np.ndarray, b: np.ndarray, mb: np.ndarray,
                 dims: np.ndarray, mode: int, ca: Any, cb: Any, codes: np.ndarray, fa: np.ndarray,
                 fb: np.ndarray, res: np.ndarray, mr: np.ndarray, has_res: bool) -> None:
    """Rows path. ``dims`` = (B, FS, Y, X, L, F): batch, feature slices, rows, columns, lanes per slice (16 or 1),
    features. ``m*`` = (offset, b, slice, y, x pitches) of each tensor; ``mr`` the chain operand's map."""
    nb, nfs, ny, nx, nlanes, nf = dims[0], dims[1], dims[2], dims[3], dims[4], dims[5]
    for r in prange(nb * nfs * ny):
        y = r % ny
        t = r // ny
        fs = t % nfs
        bb = t // nfs
        nl = min(nlanes, nf - fs * nlanes)
        ro = mo[0] + bb * mo[1] + fs * mo[2] + y * mo[3]
        ra = ma[0] + bb * ma[1] + fs * ma[2] + y * ma[3]
        rb = mb[0] + bb * mb[1] + fs * mb[2] + y * mb[3]
        if nl == nlanes and mo[4] == nlanes and ma[4] == nlanes and mb[4] == nlanes:
            _span(out, ro, a, ra, b, rb, nx * nlanes, mode, ca, cb)
        else:
            for x in range(nx):
                _span(out, ro + x * mo[4], a, ra + x * ma[4], b, rb + x * mb[4], nl, mode, ca, cb)
        if codes.shape[0] > 0:
            if not has_res and nl == nlanes and mo[4] == nlanes:
                chain_span(out, ro, nx * nlanes, codes, fa, fb, res, I0, I0)
            else:
                step = lane_step(mr)
                for x in range(nx):
                    r0 = operand_index(mr, bb, fs * nlanes, y, x) if has_res else 0
                    chain_span(out, ro + x * mo[4], nl, codes, fa, fb, res, r0, step)


NJIT_EXACT_DIV = {**NJIT, "fastmath": set(NJIT["fastmath"]) - {"arcp"}}
"""The scalar path's options: without ``arcp``, LLVM would hoist 1/s out of the loop and multiply, which differs
from x / s in the last bit (QuantizeLinear's x / scale then rounds a tie the other way)."""


@numba.njit(**NJIT_EXACT_DIV)
def _span_scalar(out: np.ndarray, a: np.ndarray, s: Any, scalar_first: bool, i0: int, cnt: int, mode: int,
                 ca: Any, cb: Any) -> None:
    """out[i0:i0+cnt] = a ∘ s (or s ∘ a with ``scalar_first``; sum: ca·left + cb·right), one loop per mode."""
    o, x = out[i0:i0 + cnt], a[i0:i0 + cnt]
    if mode == 0:
        for i in range(cnt):
            o[i] = ca * s + cb * x[i] if scalar_first else ca * x[i] + cb * s
    elif mode == 2:
        for i in range(cnt):
            o[i] = x[i] * s
    elif mode == 4:  # max and min commute: one loop for either side (a dynamic quantization's clamp bounds)
        for i in range(cnt):
            o[i] = _fmax(s, x[i]) if scalar_first else _fmax(x[i], s)
    elif mode == 5:
        for i in range(cnt):
            o[i] = _fmin(s, x[i]) if scalar_first else _fmin(x[i], s)
    elif scalar_first:
        for i in range(cnt):
            o[i] = binary(s, x[i], mode)
    elif mode == 1:
        for i in range(cnt):
            o[i] = x[i] - s
    elif mode == 3:
        for i in range(cnt):
            o[i] = x[i] / s
    else:
        for i in range(cnt):
            o[i] = binary(x[i], s, mode)


@numba.njit(parallel=True, **NJIT_EXACT_DIV)
def eltwise_flat_scalar(out: np.ndarray, a: np.ndarray, s: np.ndarray, scalar_first: bool, n: int, mode: int,
                        ca: Any, cb: Any, codes: np.ndarray, fa: np.ndarray, fb: np.ndarray, res: np.ndarray,
                        has_res: bool) -> None:
    """Flat path with a one-element operand ``s`` (a tensor computed at run time: a scale, a zero point):
    out[i] = chain(a[i] ∘ s[0]) (or s[0] ∘ a[i])."""
    v = s[0]
    for c in prange((n + CHUNK - 1) // CHUNK):
        st = c * CHUNK
        e = min(n, st + CHUNK)
        _span_scalar(out, a, v, scalar_first, st, e - st, mode, ca, cb)
        if codes.shape[0] > 0:
            chain_span(out, st, e - st, codes, fa, fb, res, st, 1 if has_res else 0)


def _scalar_index(params: Params) -> int | None:
    """Index (0 or 1) of the one-element input of a two-input eltwise whose other input is the output's shape and
    format, both unpadded (the flat path); None otherwise. The one element may sit in a padded plain buffer (a crop
    view of a DynamicQuantParams output): it is read at its offset."""
    out = params.output
    if len(params.inputs) != 2 or not _flat(out):
        return None
    for i in (1, 0):
        s, x = params.inputs[i], params.inputs[1 - i]
        if s.count() == 1 and not s.format.is_blocked and x.shape == out.shape and x.format == out.format and \
                _flat(x):
            return i
    return None


def _flat(lay: Layout) -> bool:
    return lay.padding.is_zero and lay.buffer_size == lay.count()


ROW_UFUNCS: dict[str, Any] = {"sum": np.add, "prod": np.multiply, "sub": np.subtract, "div": np.divide, "max": np.fmax,
              "min": np.fmin}
"""The modes of the row path: numpy's broadcast of a row operand (fmax / fmin: a NaN operand is ignored, as the
fused epilogue's max / min)."""


def _row_index(params: Params) -> int | None:
    """Index (0 or 1) of the row operand of a two-input eltwise (:func:`.eltwise_kernel_vec8.row_operand`: the
    output's trailing dims, a bias of C values added to a (T, C) product), the other input the output's unpadded
    plain layout, no coefficients, only fused activations; the operand second unless the mode commutes. None
    otherwise."""
    out, a = params.output, params.attrs_as(EltwiseAttrs)
    mode = EltwiseMode(a.mode).value
    if len(params.inputs) != 2 or mode not in ROW_UFUNCS or a.coefficients is not None or not _flat(out) or \
            out.format.is_blocked or any(op.kind != "activation" for op in params.fused_ops):
        return None
    for i in (1, 0) if mode in ("sum", "prod", "max", "min") else (1,):
        r, x = params.inputs[i], params.inputs[1 - i]
        if x.shape == out.shape and x.format == out.format and _flat(x) and r.count() > 1 and row_operand(r, out):
            return i
    return None


@register
class EltwiseKernelCpuVec(CpuKernelBase):
    """y = in0 ∘ in1 ∘ ... (left to right, as ``eltwise_ref``) for N >= 2 f32 inputs of the output's shape and
    format, on the CPU engine.

    Modes: every float mode (sum with optional coefficients, sub, prod, div, max/min with C fmax/fmin NaN rules,
    pow, prelu). Layouts: identical shape and format for all tensors; padding may differ (rows path) or be absent
    everywhere (flat path, any format and rank 1-6); b_fs_yx_fsv16 channel tails are never written. Two unpadded
    inputs of which one holds a single element (a scale or zero point computed at run time, as in dynamically
    quantized models) run the flat path with that value broadcast (``eltwise_flat_scalar``). Fused ops:
    activations and one eltwise with an operand that broadcasts to the output. i32, broadcasting inputs and other
    fused ops are left to ``eltwise_cpu_ref`` (validate() says why).
    """

    name = "eltwise_cpu_vec"
    primitive = "eltwise"
    supports_fused_ops = True
    n_data_inputs = None

    def supported_key(self) -> SupportedKey:
        """CPU, f32 in and out, any format, padding allowed."""
        return SupportedKey(engines=CPU, input_dtypes=F32, output_dtypes=F32)

    def validate(self, params: Params) -> str | None:
        """Inputs of the output's shape and format, one coefficient per input, a fused chain the epilogue takes."""
        out = params.output
        if _row_index(params) is not None:
            return None
        for i, x in enumerate(params.inputs):
            if (x.shape != out.shape or x.format != out.format) and _scalar_index(params) is None:
                return (f"input {i} {x} differs from the output {out} in shape or format (broadcasting only of one "
                        f"element, all unpadded)")
        coeffs = params.attrs_as(EltwiseAttrs).coefficients
        if coeffs is not None and len(coeffs) != len(params.inputs):
            return f"{len(coeffs)} coefficients for {len(params.inputs)} inputs"
        if not self._is_flat(params) and (out.rank > 4 or any(x.shape != out.shape for x in params.inputs)):
            return "rank > 4 and a one-element input need unpadded tensors (a fused operand of the output's layout)"
        return fused_reason(params)

    def priority(self, params: Params) -> int:
        """Beats the reference whenever it validates."""
        return FORCE_PRIORITY_3

    @staticmethod
    def _is_flat(params: Params) -> bool:
        """Every tensor unpadded without a block tail (the one-element input of :func:`_scalar_index` may be
        padded), a fused operand in the output's layout."""
        out = params.output
        si = _scalar_index(params)
        extra = [lay for op in params.fused_ops for lay in op.extra_inputs]
        return (all(_flat(x) for i, x in enumerate([*params.inputs, out]) if i != si)
                and all(lay == out.with_(dtype=lay.dtype) for lay in extra))

    def _scalar_fn(self, params: Params, si: int) -> Callable[..., None]:
        """fn(in0, in1, out, [chain operand]) when input ``si`` holds one element (flat layouts)."""
        out = params.output
        mode = ELT_CODES[EltwiseMode(params.attrs_as(EltwiseAttrs).mode).value]
        coeffs = params.attrs_as(EltwiseAttrs).coefficients or [1.0, 1.0]
        ca, cb = np.float32(coeffs[0]), np.float32(coeffs[1])
        codes, fa, fb, _ = chain_arrays(list(params.fused_ops), out)
        has_res = any(op.kind == "eltwise" for op in params.fused_ops)
        res_lay = next((lay for op in params.fused_ops for lay in op.extra_inputs), None)
        count = out.count()
        launch = Launcher(3 * count)
        view_x, view_s, view_out = viewer(params.inputs[1 - si]), viewer(params.inputs[si]), viewer(out)
        view_res = viewer(res_lay) if has_res and res_lay is not None else None
        s_at = layout_offset(params.inputs[si])

        def fn(*bufs: Any) -> None:
            res = view_res(bufs[3]) if view_res is not None else EMPTY
            launch(eltwise_flat_scalar, view_out(bufs[2]), view_x(bufs[1 - si]), view_s(bufs[si])[s_at:s_at + 1],
                   si == 0, count, mode, ca, cb, codes, fa, fb, res, has_res)

        return fn

    def _row_fn(self, params: Params, ri: int) -> Callable[..., None]:
        """fn(in0, in1, out) when input ``ri`` is a row operand: numpy's broadcast over (count / n, n) views of the
        flat buffers (vectorized, no numba specialization), then the fused activations over the whole output."""
        out = params.output
        ufunc = ROW_UFUNCS[EltwiseMode(params.attrs_as(EltwiseAttrs).mode).value]
        codes, fa, fb, _ = chain_arrays(list(params.fused_ops), out)
        count, n = out.count(), params.inputs[ri].count()
        view_x, view_r, view_out = viewer(params.inputs[1 - ri]), viewer(params.inputs[ri]), viewer(out)

        def fn(*bufs: Any) -> None:
            x = view_x(bufs[1 - ri])[:count].reshape(-1, n)
            r = view_r(bufs[ri])[:n]
            dst = view_out(bufs[2])[:count]
            with np.errstate(all="ignore"):
                ufunc(*((r, x) if ri == 0 else (x, r)), out=dst.reshape(-1, n))
            if codes.shape[0]:
                chain_span(dst, I0, np.int64(count), codes, fa, fb, EMPTY, I0, I0)

        return fn

    def make_fn(self, params: Params) -> Callable[..., None]:
        """fn(in0, .., in(N-1), out, [chain operand]) on raw buffers; the flat or rows path fixed here."""
        si = _scalar_index(params)
        if si is not None and any(x.shape != params.output.shape for x in params.inputs):
            return self._scalar_fn(params, si)
        ri = _row_index(params)
        if ri is not None:
            return self._row_fn(params, ri)
        ins, out = list(params.inputs), params.output
        n = len(ins)
        mode = ELT_CODES[EltwiseMode(params.attrs_as(EltwiseAttrs).mode).value]
        coeffs = params.attrs_as(EltwiseAttrs).coefficients or [1.0] * n
        cs = [np.float32(c) for c in coeffs]
        one = np.float32(1.0)
        codes, fa, fb, mr = chain_arrays(list(params.fused_ops), out)
        no_codes = codes[:0]
        has_res = any(op.kind == "eltwise" for op in params.fused_ops)
        res_lay = next((lay for op in params.fused_ops for lay in op.extra_inputs), None)
        flat = self._is_flat(params)
        count = out.count()
        launch = Launcher(3 * count * (n - 1))
        if not flat:
            b, f, y, x = out.dims4
        lanes = 16 if out.format == Format.b_fs_yx_fsv16 else 1
        maps = [] if flat else [row_map(lay) for lay in ins]
        mo = None if flat else row_map(out)
        dims = None if flat else np.array([b, -(-f // lanes), y, x, lanes, f], np.int64)

        view_in, view_out = [viewer(lay) for lay in ins], viewer(out)
        view_res = viewer(res_lay) if has_res and res_lay is not None else None

        def fn(*bufs: Any) -> None:
            xs = [v(buf) for v, buf in zip(view_in, bufs[:n])]
            dst = view_out(bufs[n])
            res = view_res(bufs[n + 1]) if view_res is not None else EMPTY
            for k in range(1, n):
                last = k == n - 1
                ch = (codes, fa, fb) if last else (no_codes, fa[:0], fb[:0])
                a, ca = (xs[0], cs[0]) if k == 1 else (dst, one)
                if flat:
                    launch(eltwise_flat, dst, a, xs[k], count, mode, ca, cs[k], *ch, res, has_res and last)
                else:
                    ma = maps[0] if k == 1 else mo
                    launch(eltwise_rows, dst, mo, a, ma, xs[k], maps[k], dims, mode, ca, cs[k], *ch, res, mr,
                         has_res and last)

        return fn
