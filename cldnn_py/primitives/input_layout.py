"""InputLayout: a network input, fed with ``Network.set_input_data`` (clDNN ``input_layout``)."""

from __future__ import annotations

from dataclasses import dataclass

from ..errors import TopologyError
from ..layout import Layout
from .base import Primitive


@dataclass(frozen=True)
class InputLayout(Primitive, type_name="input_layout"):
    """A network input of a fixed ``layout`` (e.g. f32 bfyx (1, 3, 224, 224)). Has no dependencies."""

    layout: Layout = None  # type: ignore[assignment]

    def __post_init__(self) -> None:
        super().__post_init__()
        if not isinstance(self.layout, Layout):
            raise TopologyError(f"input_layout '{self.id}': layout must be a cldnn_py.Layout, got {self.layout!r}")

    def calc_output_layout(self, inputs: list[Layout]) -> Layout:
        """The declared layout."""
        return self.layout
