"""Kernel parameters: what a kernel is told about one primitive, nothing about the graph.

``Params`` carries the primitive type, the engine kind, input/output tensor descriptors (``Layout``: logical
shape, format, padding, pitches), the primitive's attributes and its fused ops. ``SupportedKey`` is what a kernel
declares it can take (engine kinds, data types, formats); ``SupportedKey.mismatch`` says why it cannot.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, TypeVar

from cldnn_py.errors import UnsupportedError
from cldnn_py.layout import DataType, Format, Layout
from cldnn_py.ops import FusedActivationAttrs, FusedEltwiseAttrs, NoAttrs, OpAttrs

from .device_caps import DeviceCaps

A = TypeVar("A", bound=OpAttrs)


@dataclass
class FusedOp:
    """An operation folded into a kernel's epilogue by prepare_primitive_fusing.

    kind: ``activation`` (attrs: :class:`cldnn_py.ops.FusedActivationAttrs` func, a, b) or ``eltwise`` (attrs:
    :class:`cldnn_py.ops.FusedEltwiseAttrs` mode sum/prod/sub/div/max/min, the kernel's value is the left
    operand). ``dep_indices``: positions of the extra inputs among the node's dependencies (after its own
    inputs); ``extra_inputs``: their layouts, filled in when Params are made. ``fused_id``: the id of the
    primitive that was fused (for profiling).
    """

    kind: str
    attrs: OpAttrs = field(default_factory=NoAttrs)
    extra_inputs: list[Layout] = field(default_factory=list)
    dep_indices: list[int] = field(default_factory=list)
    fused_id: str = ""

    def act(self) -> FusedActivationAttrs:
        """The attributes of a fused activation; raises UnsupportedError for another kind."""
        if not isinstance(self.attrs, FusedActivationAttrs):
            raise UnsupportedError(f"fused op '{self.fused_id}': expected an activation, got {self.kind}")
        return self.attrs

    def elt(self) -> FusedEltwiseAttrs:
        """The attributes of a fused eltwise; raises UnsupportedError for another kind."""
        if not isinstance(self.attrs, FusedEltwiseAttrs):
            raise UnsupportedError(f"fused op '{self.fused_id}': expected an eltwise, got {self.kind}")
        return self.attrs


@dataclass
class Params:
    """Everything a kernel needs: ``kind`` (primitive type name), ``engine`` ('ocl' or 'cpu'), ``inputs``
    (layouts of the dependencies in primitive order: data, weights, bias ...), ``output`` layout, ``attrs``
    (the primitive's typed attributes, a :class:`cldnn_py.ops.OpAttrs`; read them with :meth:`attrs_as`),
    ``fused_ops``, ``layer_id`` (for messages), the device description, and
    ``device_caps``: what the device's compiler does well, measured by cldnn_py.device_probe (``load_form``:
    ``"pointer"`` or ``"vload"``; clDNN's EngineInfo plays this part); ``caps``: the device's capabilities
    (:class:`DeviceCaps`); ``kernel_tier``: ``"cpu"`` or ``"gpu"``, the tier of shaped kernels the build wants (a
    kernel whose ``tier`` differs steps aside; reference kernels have none and fit both)."""

    kind: str
    engine: str
    inputs: list[Layout]
    output: Layout
    attrs: OpAttrs = field(default_factory=NoAttrs)
    fused_ops: list[FusedOp] = field(default_factory=list)
    layer_id: str = ""
    device: Any = None
    device_caps: dict[str, str] = field(default_factory=dict)
    caps: DeviceCaps = field(default_factory=DeviceCaps)
    kernel_tier: str = "cpu"

    def attrs_as(self, cls: type[A]) -> A:
        """``attrs`` as the typed attributes ``cls`` (e.g. ``ConvolutionAttrs``); raises UnsupportedError naming the
        layer when the params hold another primitive's attributes (a kernel registered for the wrong primitive)."""
        if not isinstance(self.attrs, cls):
            raise UnsupportedError(f"{self.kind} '{self.layer_id}': attributes: expected {cls.__name__}, "
                                   f"got {type(self.attrs).__name__}")
        return self.attrs


ANY = None

FLOATS = frozenset({DataType.f32, DataType.f16})
"""The float data types: f32, and f16 as storage (kernels that load and store through the jitter's ``NAME_LOAD`` /
``NAME_STORE`` macros compute in float either way). A kernel whose templates use only those macros declares these."""


@dataclass(frozen=True)
class SupportedKey:
    """Engine kinds, data types and formats a kernel accepts; ``None`` for a field means any."""

    engines: frozenset[str] = frozenset({"ocl"})
    input_dtypes: frozenset[DataType] | None = frozenset({DataType.f32})
    output_dtypes: frozenset[DataType] | None = frozenset({DataType.f32})
    input_formats: frozenset[Format] | None = ANY
    output_formats: frozenset[Format] | None = ANY
    padded_inputs: bool = True
    padded_output: bool = True

    def mismatch(self, p: Params, n_data_inputs: int | None = None) -> str | None:
        """Why ``p`` does not fit this key, or None when it does. Only the first ``n_data_inputs`` inputs are
        checked for data type and format (weights and bias are the kernel's own business)."""
        if p.engine not in self.engines:
            return f"engine kind '{p.engine}' not in {sorted(self.engines)}"
        ins = p.inputs if n_data_inputs is None else p.inputs[:n_data_inputs]
        for i, x in enumerate(ins):
            if self.input_dtypes is not None and x.dtype not in self.input_dtypes:
                return f"input {i} data type {x.dtype.value} not in {sorted(d.value for d in self.input_dtypes)}"
            if self.input_formats is not None and x.format not in self.input_formats:
                return f"input {i} format {x.format.value} not in {sorted(f.value for f in self.input_formats)}"
            if not self.padded_inputs and not x.padding.is_zero:
                return f"input {i} is padded"
        o = p.output
        if self.output_dtypes is not None and o.dtype not in self.output_dtypes:
            return f"output data type {o.dtype.value} not in {sorted(d.value for d in self.output_dtypes)}"
        if self.output_formats is not None and o.format not in self.output_formats:
            return f"output format {o.format.value} not in {sorted(f.value for f in self.output_formats)}"
        if not self.padded_output and not o.padding.is_zero:
            return "output is padded"
        return None
