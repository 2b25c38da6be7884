"""The two transforms of a Winograd F(4×4, 3×3) convolution (Lavin & Gray 2016; ``cldnn_py/ops/winograd.py``):
``winograd_convolutions`` (a pass) rewrites a 3×3 stride-1 convolution as WinogradInput → Gemm (the 36 products
with the transformed filters) → WinogradOutput. Usable on their own from a Topology too."""

from __future__ import annotations

from dataclasses import dataclass

from ..errors import DTypeError, TopologyError
from ..layout import DataType, Format, Layout
from ..ops.winograd import ALPHA, TILE, WinogradInputAttrs, WinogradOutputAttrs
from .base import Primitive


def _positive(prim: Primitive, names: tuple[str, ...], minimum: int) -> None:
    for name in names:
        v = getattr(prim, name)
        if not isinstance(v, int) or isinstance(v, bool) or v < minimum:
            raise TopologyError(f"{prim.type_name} '{prim.id}': {name} must be an int >= {minimum}, got {v!r}")


def _flag(prim: Primitive) -> None:
    if not isinstance(prim.channel_major, bool):  # type: ignore[attr-defined]
        raise TopologyError(f"{prim.type_name} '{prim.id}': channel_major must be a bool, got "
                            f"{prim.channel_major!r}")  # type: ignore[attr-defined]


@dataclass(frozen=True)
class WinogradInput(Primitive, type_name="winograd_input", attrs=WinogradInputAttrs):
    """V[ξν, t, c] = (Bᵀ d B)[ξ, ν] for every 6×6 input tile d of channel c: tile t = (b·tiles_y + ty)·tiles_x + tx
    covers input rows 4·ty − pad_y ... +5 and columns 4·tx − pad_x ... +5 of image b (zeros outside the image).

    Input (N, C, H, W) f32, any format; output (36, N·tiles_y·tiles_x, C) f32 bfyx: the left operand of the batched
    GEMM with the transformed filters (``ops.winograd.winograd_weights``); with ``channel_major``
    (1, 36·C, N·tiles_y·tiles_x, 1), V[ξν, t, c] at channel ξν·C + c, row t: the input of a 1×1 convolution with
    36 groups (``ops.winograd.winograd_weights_grouped``). Raises TopologyError for a bad attribute,
    ShapeError for an input that is not rank 4, DTypeError for one that is not f32 (each naming the primitive)."""

    input: str = ""
    pad_y: int = 0
    pad_x: int = 0
    tiles_y: int = 1
    tiles_x: int = 1
    channel_major: bool = False

    def __post_init__(self) -> None:
        super().__post_init__()
        if not isinstance(self.input, str) or not self.input:
            raise TopologyError(f"winograd_input '{self.id}': input must be a primitive id, got {self.input!r}")
        _positive(self, ("pad_y", "pad_x"), 0)
        _positive(self, ("tiles_y", "tiles_x"), 1)
        _flag(self)

    def dependencies(self) -> list[str]:
        """[input]."""
        return [self.input]

    def calc_output_layout(self, inputs: list[Layout]) -> Layout:
        """(36, N·tiles_y·tiles_x, C) f32 bfyx; see the class docstring for errors."""
        if not inputs:
            raise self.shape_error("number of inputs", 1, 0)
        x = inputs[0]
        if x.rank != 4:
            raise self.shape_error("input rank (N, C, H, W)", 4, f"{x.rank} (shape {x.shape})")
        if x.dtype != DataType.f32:
            raise DTypeError(f"winograd_input '{self.id}': input data type: expected f32, got {x.dtype.value}")
        n_t = x.shape[0] * self.tiles_y * self.tiles_x
        if self.channel_major:
            return Layout(DataType.f32, Format.bfyx, (1, ALPHA * ALPHA * x.shape[1], n_t, 1))
        return Layout(DataType.f32, Format.bfyx, (ALPHA * ALPHA, n_t, x.shape[1]))


@dataclass(frozen=True)
class WinogradOutput(Primitive, type_name="winograd_output", attrs=WinogradOutputAttrs):
    """y[b, o, 4·ty + i, 4·tx + j] = (Aᵀ M[:, t, o] A)[i, j] + bias[o] for tile t = (b·tiles_y + ty)·tiles_x + tx;
    the outputs of the last tiles that lie past ``out_y`` × ``out_x`` are not written.

    Inputs: M (36, N·tiles_y·tiles_x, OC) f32 (the batched GEMM's product; with ``channel_major`` (1, 36·OC,
    N·tiles_y·tiles_x, 1), the grouped convolution's) and an optional ``bias`` (OC values, any shape). Output (N, OC,
    out_y, out_x) f32 in ``format`` (the OpenCL kernel writes b_fs_yx_fsv16; the CPU engine any); fused activations and
    eltwise operands apply to it as to a convolution's. Raises TopologyError for a bad attribute; ShapeError for an M
    that is not (36, N·tiles, OC) with N·tiles a multiple of tiles_y·tiles_x, for tiles that do not cover the output, or
    a bias of another size; DTypeError for a non-f32 input (each naming the primitive)."""

    input: str = ""
    bias: str | None = None
    out_y: int = 1
    out_x: int = 1
    tiles_y: int = 1
    tiles_x: int = 1
    format: Format = Format.bfyx
    channel_major: bool = False

    def __post_init__(self) -> None:
        super().__post_init__()
        if not isinstance(self.input, str) or not self.input:
            raise TopologyError(f"winograd_output '{self.id}': input must be a primitive id, got {self.input!r}")
        if not isinstance(self.format, Format):
            raise TopologyError(f"winograd_output '{self.id}': format must be a Format, got {self.format!r}")
        _positive(self, ("out_y", "out_x", "tiles_y", "tiles_x"), 1)
        _flag(self)

    def dependencies(self) -> list[str]:
        """[input] + [bias] when given."""
        return [self.input] + ([self.bias] if self.bias else [])

    def _id_fields(self) -> tuple[str, ...]:
        return ("bias",)

    def calc_output_layout(self, inputs: list[Layout]) -> Layout:
        """(N, OC, out_y, out_x) f32 in ``format``; see the class docstring for errors."""
        if len(inputs) < len(self.dependencies()):  # fused ops' operands may follow
            raise self.shape_error("number of inputs", len(self.dependencies()), len(inputs))
        m = inputs[0]
        per_image = self.tiles_y * self.tiles_x
        if self.channel_major:  # (1, 36·OC, N·tiles, 1): the same checks on its (36, N·tiles, OC) reading
            if m.rank != 4 or m.shape[0] != 1 or m.shape[3] != 1 or m.shape[1] % (ALPHA * ALPHA) \
                    or m.shape[2] % per_image:
                raise self.shape_error("input shape", f"(1, 36·OC, N·{per_image}, 1)", m.shape)
            n_t, oc = m.shape[2], m.shape[1] // (ALPHA * ALPHA)
        else:
            if m.rank != 3 or m.shape[0] != ALPHA * ALPHA or m.shape[1] % per_image:
                raise self.shape_error("input shape", f"(36, N·{per_image}, OC)", m.shape)
            n_t, oc = m.shape[1], m.shape[2]
        if m.dtype != DataType.f32:
            raise DTypeError(f"winograd_output '{self.id}': input data type: expected f32, got {m.dtype.value}")
        if self.tiles_y * TILE < self.out_y or self.tiles_x * TILE < self.out_x:
            raise self.shape_error("tiles (4 pixels each) covering the output", f">= {self.out_y}x{self.out_x}",
                                   f"{self.tiles_y}x{self.tiles_x}")
        if self.bias and inputs[1].count() != oc:
            raise self.shape_error(f"bias '{self.bias}' size", oc, f"{inputs[1].count()} (shape {inputs[1].shape})")
        return Layout(DataType.f32, self.format, (n_t // per_image, oc, self.out_y, self.out_x))
