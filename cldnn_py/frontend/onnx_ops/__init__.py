"""The ONNX converter table: op type → Converter (a function and the op versions whose semantics it implements).

Each module in this package registers its converters with ``@converter("Op", versions=...)``; the modules are
imported by walking the package, so adding an operator is adding a function (or a file). A converter receives the
ImportContext and the NodeProto and adds primitives whose ids are the node's output names.

Operators of the ONNX domain are keyed by their op type; those of another domain (onnxruntime's ``com.microsoft``
contrib operators, which its quantization tools write) by ``"<domain>.<op type>"`` (:func:`key_of`), registered
with ``@converter("Op", versions=(1,), domain="com.microsoft")``: their versions are the domain's opset version.
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
DEFAULT_DOMAINS = ("", "ai.onnx")
"""The names of the ONNX operator domain in ``NodeProto.domain`` / ``opset_import``."""


def key_of(op_type: str, domain: str = "") -> str:
    """The CONVERTERS key of an operator: its op type in the ONNX domain, ``"<domain>.<op type>"`` elsewhere."""
    return op_type if (domain or "") in DEFAULT_DOMAINS else f"{domain}.{op_type}"


def converter(*ops: str, versions: Iterable[int],
              domain: str = "") -> Callable[[Callable[[Any, Any], None]], Callable[[Any, Any], None]]:
    """Register ``fn`` for every op type in ``ops`` of ``domain`` with the op versions it supports (for another
    domain than ONNX's: the versions of that domain's opset). Raises TypeError for a second registration."""

    def deco(fn: Callable[[Any, Any], None]) -> Callable[[Any, Any], None]:
        for op in ops:
            key = key_of(op, domain)
            if key in CONVERTERS:
                raise TypeError(f"ONNX converter for {key} registered twice")
            CONVERTERS[key] = Converter(fn, frozenset(versions))
        return fn

    return deco


for _mod in pkgutil.iter_modules(__path__, __name__ + "."):
    importlib.import_module(_mod.name)
