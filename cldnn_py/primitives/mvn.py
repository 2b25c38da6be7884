"""MVN: mean-variance normalization over a set of axes, with optional scale and bias (clDNN ``mvn``; ONNX
InstanceNormalization, LayerNormalization and its Mean / InvStdDev outputs)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..errors import TopologyError
from ..layout import Format, Layout
from ..ops.normalization import MVNAttrs, MVNResult, mvn_scale_offset
from .base import Primitive, one_input


@dataclass(frozen=True)
class MVN(Primitive, type_name="mvn", attrs=MVNAttrs):
    """y = (x − mean) · inv_std · scale + bias, mean and variance taken over ``axes`` for every position of the
    other axes; inv_std = 1 / sqrt(variance + epsilon) (biased variance, as ONNX and PyTorch normalize).

    - ``axes``: logical axes of the input (rank 1-6) reduced together; negative count from the end.
    - ``normalize_variance=False`` only subtracts the mean.
    - ``scale`` / ``bias``: optional tensors broadcast to the input; their dimension 0 aligns with input axis
      ``scale_axis`` (ONNX InstanceNormalization: per-channel (C,) with ``scale_axis=1``), or with numpy's
      trailing alignment when ``scale_axis`` is None (ONNX LayerNormalization). A size-1 dimension broadcasts.
    - ``result``: ``normalized`` (default, the input's shape and layout), ``mean`` or ``inv_std_dev`` (the input's
      shape with the reduced axes set to 1, bfyx) — the ONNX LayerNormalization Mean and InvStdDev outputs.

    Raises ShapeError naming the primitive for an axis out of range or a scale/bias that does not fit.
    """

    input: str = ""
    axes: Any = ()
    epsilon: float = 1e-5
    normalize_variance: bool = True
    scale: str | None = None
    bias: str | None = None
    scale_axis: int | None = None
    result: MVNResult = MVNResult.normalized

    def __post_init__(self) -> None:
        super().__post_init__()
        axes = self.int_tuple("axes", "axes must be a sequence of ints")
        if not axes:
            raise TopologyError(f"mvn '{self.id}': axes must not be empty")
        object.__setattr__(self, "axes", axes)
        try:
            object.__setattr__(self, "result", MVNResult(self.result))
        except ValueError:
            raise TopologyError(f"mvn '{self.id}': result must be one of {[r.value for r in MVNResult]}, "
                                f"got {self.result!r}") from None
        object.__setattr__(self, "epsilon", float(self.epsilon))
        object.__setattr__(self, "normalize_variance", bool(self.normalize_variance))
        if not self.input:
            raise TopologyError(f"mvn '{self.id}': an input id is required")

    def dependencies(self) -> list[str]:
        """[input] + [scale] + [bias] when given."""
        return [self.input] + [d for d in (self.scale, self.bias) if d]

    def _id_fields(self) -> tuple[str, ...]:
        return ("scale", "bias")

    def attrs(self) -> MVNAttrs:
        """axes, epsilon, normalize_variance, scale_axis, result, and which optional inputs are present."""
        return MVNAttrs(axes=self.axes, epsilon=self.epsilon, normalize_variance=self.normalize_variance,
                        scale_axis=self.scale_axis, result=self.result.value, has_scale=self.scale is not None,
                        has_bias=self.bias is not None)

    def reduced_axes(self, rank: int) -> tuple[int, ...]:
        """The axes made non-negative and sorted for an input of ``rank``; raises ShapeError when out of range."""
        out = set()
        for a in self.axes:
            if not -rank <= a < rank:
                raise self.shape_error("axes", f"in [{-rank}, {rank})", self.axes)
            out.add(a % rank)
        return tuple(sorted(out))

    def calc_output_layout(self, inputs: list[Layout]) -> Layout:
        """The input's layout (normalized) or the reduced shape in bfyx (mean, inv_std_dev)."""
        x = one_input(self, inputs)
        axes = self.reduced_axes(x.rank)
        for name, lay in zip([d for d in (self.scale, self.bias) if d], inputs[1:]):
            off = mvn_scale_offset(self.scale_axis, x.rank, lay.rank)
            fits = off >= 0 and off + lay.rank <= x.rank and all(
                s in (1, x.shape[off + i]) for i, s in enumerate(lay.shape))
            if not fits:
                want = "broadcastable to the input's trailing axes" if self.scale_axis is None else \
                    f"broadcastable to input axes from {self.scale_axis}"
                raise self.shape_error(f"'{name}' shape {want}", x.shape, lay.shape)
        if self.result == MVNResult.normalized:
            return Layout(x.dtype, x.format, x.shape)
        shape = tuple(1 if i in axes else s for i, s in enumerate(x.shape))
        return Layout(x.dtype, Format.bfyx, shape)


