"""OpAttrs: the base of every primitive's typed attributes (clDNN keeps typed ``<prim>_params`` for the same job).

A primitive (cldnn_py.primitives) is the user's descriptor: ids of its inputs plus attributes. The attributes alone,
as a frozen dataclass of this package, are what passes, kernels and the ONNX converters share: a kernel reads
``params.attrs_as(ConvolutionAttrs).stride`` instead of a string lookup, so a typo is an AttributeError that mypy
sees. This package is a leaf: it imports only ``cldnn_py.layout`` and ``cldnn_py.errors``.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any


@dataclass(frozen=True)
class OpAttrs:
    """Base of the typed attributes; subclasses are frozen dataclasses whose field names are the attribute names."""

    def as_dict(self) -> dict[str, Any]:
        """{field name: value}, shallow (the tuning cache key and messages use it)."""
        return {f.name: getattr(self, f.name) for f in fields(self)}


@dataclass(frozen=True)
class NoAttrs(OpAttrs):
    """Attributes of a primitive that has none a kernel needs (data, input_layout, fully_connected)."""
