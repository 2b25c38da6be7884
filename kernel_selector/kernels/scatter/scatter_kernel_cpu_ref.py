"""scatter_cpu_ref: the CPU engine's reference scatter, on logical arrays."""

from __future__ import annotations

import numpy as np

from cldnn_py.ops import ScatterAttrs

from ...cpu_kernel_base import CpuRefKernel
from ...params import Params
from ...selector import register
from .scatter_kernel_ref import ScatterKernelRef

_AT = {"add": np.add, "mul": np.multiply, "max": np.maximum, "min": np.minimum}


@register
class ScatterKernelCpuRef(CpuRefKernel):
    """Reference scatter on the CPU engine, the semantics of ``scatter_ref``: a copy of the data, then every update
    in row-major order at its flat offset (``none``: the last of repeated offsets wins; add / mul / max / min through
    the ufuncs' unbuffered ``.at``). Offsets outside [0, count) are dropped, as in the OpenCL kernel."""

    twin = ScatterKernelRef  # key and validate() are the OpenCL reference's: the same on both engines

    def compute(self, params: Params, inputs: list[np.ndarray]) -> np.ndarray:
        """The updated data in its own type and shape."""
        data, idx, upd = inputs
        out = np.array(data, copy=True).reshape(-1)
        flat = idx.reshape(-1).astype(np.int64)
        vals = upd.reshape(-1).astype(out.dtype)
        keep = (flat >= 0) & (flat < out.size)
        flat, vals = flat[keep], vals[keep]
        red = str(params.attrs_as(ScatterAttrs).reduction)
        if red == "none":
            last = np.unique(flat[::-1], return_index=True)[1]     # the last update of each offset
            sel = len(flat) - 1 - last
            out[flat[sel]] = vals[sel]
        else:
            with np.errstate(all="ignore"):
                _AT[red].at(out, flat, vals)
        return out.reshape(data.shape)
