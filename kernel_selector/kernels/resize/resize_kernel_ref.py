"""resize_ref: separable gather-and-weight resampling; one work-item per output element, any format (rank <= 4)."""

from __future__ import annotations

import numpy as np

from cldnn_py.ops import ResizeAttrs

from ...common.nd_index import dims6, nd_check, nd_jit, nd_output_coords
from ...jitter import JitConstants
from ...kernel_base import KernelBase
from ...params import FLOATS, Params, SupportedKey
from ...selector import register
from .resize_taps import axis_taps, is_identity_axis


def _floats(a: np.ndarray) -> str:
    return ", ".join(f"{float(np.float32(v)):.9e}f" for v in a.reshape(-1))


def _ints(a: np.ndarray) -> str:
    return ", ".join(str(int(v)) for v in a.reshape(-1))


def resize_jit(params: Params) -> JitConstants:
    """Per axis d of six: ``TAPS_d``, ``IDX_d(o, t)``, ``W_d(o, t)``, ``EXTRAP_d(o)``; ``RESIZE_TABLES`` declares
    the ``__constant`` index/weight/extrapolation tables of the resized axes (at kernel scope, so kernels batched
    in one program never clash); ``EXTRAPOLATION_VALUE``."""
    j = JitConstants()
    x, out = params.inputs[0], params.output
    tables = []
    for d, (n, m) in enumerate(zip(dims6(x), dims6(out))):
        if d >= x.rank or is_identity_axis(params.attrs_as(ResizeAttrs), d, n, m):
            j.add(f"TAPS_{d}", 1).add(f"IDX_{d}(o, t)", "(o)").add(f"W_{d}(o, t)", "1.0f")
            j.add(f"EXTRAP_{d}(o)", 0)
            continue
        idx, w, extrap = axis_taps(params.attrs_as(ResizeAttrs), d, n, m)
        taps = idx.shape[1]
        tables.append(f"__constant int resize_idx{d}[{idx.size}] = {{{_ints(idx)}}};")
        tables.append(f"__constant float resize_w{d}[{w.size}] = {{{_floats(w)}}};")
        j.add(f"TAPS_{d}", taps)
        j.add(f"IDX_{d}(o, t)", f"resize_idx{d}[(o) * {taps} + (t)]")
        j.add(f"W_{d}(o, t)", f"resize_w{d}[(o) * {taps} + (t)]")
        if extrap.any():
            tables.append(f"__constant uchar resize_ex{d}[{m}] = {{{_ints(extrap.astype(np.uint8))}}};")
            j.add(f"EXTRAP_{d}(o)", f"resize_ex{d}[o]")
        else:
            j.add(f"EXTRAP_{d}(o)", 0)
    j.add("RESIZE_TABLES", " ".join(tables))
    j.add("EXTRAPOLATION_VALUE", f"{float(np.float32(params.attrs_as(ResizeAttrs).extrapolation_value)):.9e}f")
    return j


@register
class ResizeKernelRef(KernelBase):
    """Reference resize (clDNN ``resample_ref``): ``y[o] = sum_t prod_d W_d[o_d, t_d] * x[IDX_d[o_d, t_d]]``.

    INPUT0 any format and padding (rank <= 4; unpadded bfyx for rank 5-6), OUTPUT the ``sizes`` shape. The index
    and weight tables of each resized axis come from :mod:`.resize_taps` (all ONNX Resize modes: nearest with
    its rounding modes, linear, cubic, antialias, exclude_outside, tf_crop_and_resize extrapolation); axes
    copied unchanged get a single tap of weight 1. Accumulates in float; f32 or f16 (storage) in and out (a nearest
    or copied value passes through unchanged, so f16 -> f16 nearest is exact).
    gws = (x, y, f * b) of the output's dims4 (:mod:`..nd_index`).
    """

    name = "resize_ref"
    primitive = "resize"

    def supported_key(self) -> SupportedKey:
        """f32 or f16 in and out; any format, padding allowed."""
        return SupportedKey(input_dtypes=FLOATS, output_dtypes=FLOATS)

    def validate(self, params: Params) -> str | None:
        """Rank <= 6, equal input and output rank; rank 5-6 plain bfyx."""
        if params.inputs[0].rank != params.output.rank:
            return f"input rank {params.inputs[0].rank} != output rank {params.output.rank}"
        if params.output.dtype not in FLOATS:
            return "f32 or f16 output only"
        return nd_check(params.inputs, params.output)

    def jit_constants(self, params: Params) -> JitConstants:
        """Tensors, N-D indexing and the tap tables."""
        j = super().jit_constants(params)
        j.update(nd_jit("INPUT0", params.inputs[0]))
        j.update(nd_jit("OUTPUT", params.output))
        j.update(nd_output_coords())
        j.update(resize_jit(params))
        return j

