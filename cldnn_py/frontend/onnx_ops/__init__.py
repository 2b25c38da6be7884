"""The ONNX converter table: op type → Converter (a function and the op versions whose semantics it implements).

Each module in this package registers its converters with ``@converter("Op", versions=...)``; the modules are
imported by walking the package, so adding an operator is adding a function (or a file). A converter receives the
ImportContext and the NodeProto and adds primitives whose ids are the node's output names.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Converter:
    """``fn(ctx, node)`` converts one node; ``versions`` are the op's since-versions it implements."""

    fn: Callable[[Any, Any], None]
    versions: frozenset[int]


CONVERTERS: dict[str, Converter] = {}


def converter(*ops: str, versions: Iterable[int]) -> Callable[[Callable[[Any, Any], None]], Callable[[Any, Any], None]]:
    """Register ``fn`` for every op type in ``ops`` with the op versions it supports."""

    def deco(fn: Callable[[Any, Any], None]) -> Callable[[Any, Any], None]:
        for op in ops:
            if op in CONVERTERS:
                raise TypeError(f"ONNX converter for {op} registered twice")
            CONVERTERS[op] = Converter(fn, frozenset(versions))
        return fn

    return deco


for _mod in pkgutil.iter_modules(__path__, __name__ + "."):
    importlib.import_module(_mod.name)
