"""mvn_ref: mean-variance normalization over any set of axes, one work-item per normalized group, any data
format, ranks 1-6; outputs the normalized tensor or its mean / inverse standard deviation."""

from __future__ import annotations

from cldnn_py.ops import MVNAttrs, mvn_scale_offset
from cldnn_py.ops.elementwise import float_literal

from ...common.nd_index import MAX_RANK, nd_check, nd_jit
from ...common.nd_reduce import normalize_axes, reduce_jit
from ...jitter import JitConstants
from ...kernel_base import KernelBase
from ...params import Params
from ...selector import register

_RESULT = {"normalized": 0, "mean": 1, "inv_std_dev": 2}


@register
class MVNKernelRef(KernelBase):
    """Reference MVN (clDNN ``mvn_gpu_ref``; ONNX InstanceNormalization / LayerNormalization).

    For every position of the non-reduced axes: mean = Σx / R, var = Σ(x − mean)² / R (two passes, biased),
    inv_std = 1 / sqrt(var + epsilon), then y = (x − mean)·inv_std (or x − mean without ``normalize_variance``),
    times scale and plus bias broadcast from their aligned axes. ``result`` mean / inv_std_dev writes that
    statistic instead, once per group, at the group's coordinates with the reduced axes 0.

    Inputs: INPUT0 x of rank 1-6 (any format up to rank 4, unpadded bfyx for 5-6), then scale when
    ``has_scale`` and bias when ``has_bias``, each read through its IDX6 macro. gws = (number of groups,).
    """

    name = "mvn_ref"
    primitive = "mvn"
    n_data_inputs = None

    def validate(self, params: Params) -> str | None:
        """Input count matches has_scale/has_bias; axes in range; ranks 5-6 plain bfyx."""
        a = params.attrs_as(MVNAttrs)
        want = 1 + int(bool(a.has_scale)) + int(bool(a.has_bias))
        if len(params.inputs) != want:
            return f"expected {want} inputs (x[, scale][, bias]), got {len(params.inputs)}"
        try:
            normalize_axes(a.axes, params.inputs[0].rank)
        except ValueError as e:
            return str(e)
        return nd_check(params.inputs, params.output)

    def jit_constants(self, params: Params) -> JitConstants:
        """Tensors, IDX6 macros, the group enumeration, EPSILON, MVN_RESULT, NORMALIZE_VARIANCE,
        ``STATS_INDEX`` and ``SCALE_INDEX`` / ``BIAS_INDEX``."""
        j = super().jit_constants(params)
        x = params.inputs[0]
        a = params.attrs_as(MVNAttrs)
        for i, t in enumerate(params.inputs):
            j.update(nd_jit(f"INPUT{i}", t))
        j.update(nd_jit("OUTPUT", params.output))
        axes = normalize_axes(a.axes, x.rank)
        j.update(reduce_jit(x, axes))
        coords = [f"c{i}" for i in range(MAX_RANK)]
        stats = ["0" if i in axes else c for i, c in enumerate(coords)]
        j.add("STATS_INDEX", f"OUTPUT_IDX6({', '.join(stats)})")
        n = 1
        for flag, macro in (("has_scale", "SCALE_INDEX"), ("has_bias", "BIAS_INDEX")):
            if getattr(a, flag):
                t = params.inputs[n]
                off = mvn_scale_offset(a.scale_axis, x.rank, t.rank)
                sc = ["0" if s == 1 else f"c{off + i}" for i, s in enumerate(t.shape)]
                sc += ["0"] * (MAX_RANK - len(sc))
                j.add(macro, f"INPUT{n}_IDX6({', '.join(sc)})")
                j.add(f"{macro}_BUF", f"input{n}")
                n += 1
        j.update({"EPSILON": float_literal(a.epsilon), "MVN_RESULT": _RESULT[a.result],
                  "NORMALIZE_VARIANCE": bool(a.normalize_variance),
                  "HAS_SCALE": bool(a.has_scale), "HAS_BIAS": bool(a.has_bias)})
        return j

    def dispatch(self, params: Params) -> tuple[tuple[int, ...], tuple[int, ...] | None]:
        """gws = (number of groups,)."""
        x = params.inputs[0]
        groups = x.count()
        for ax in normalize_axes(params.attrs_as(MVNAttrs).axes, x.rank):
            groups //= x.shape[ax]
        return (groups,), None
