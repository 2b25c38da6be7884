"""Typed attributes of reorder (clDNN ``reorder_params``): the target format and data type."""

from __future__ import annotations

from dataclasses import dataclass

from ..layout import DataType, Format
from .base import OpAttrs


@dataclass(frozen=True)
class ReorderAttrs(OpAttrs):
    """Copy into ``format``, converting to ``dtype`` (None: keep) with ``convert_mode`` ``round`` (to nearest even)
    or ``truncate`` for float → int."""

    format: Format = Format.bfyx
    dtype: DataType | None = None
    convert_mode: str = "round"
