"""A typed JSON codec for the engine's own value types: what a saved Program (``program_io.py``) is made of.

``encode(value, arrays)`` turns primitives, layouts, op attributes, fused ops, enums, tuples, numpy dtypes and
arrays into plain JSON values; arrays go to the ``arrays`` list and are referenced by index (the caller stores their
bytes next to the JSON). ``decode(obj, arrays)`` turns them back. A class is named in the JSON as
``module.QualName``, but decoding never imports anything by that name: it looks the name up in a registry of the
engine's own classes (every :class:`~cldnn_py.primitives.base.Primitive` and
:class:`~cldnn_py.ops.base.OpAttrs` subclass, ``Layout``, ``Padding``, ``TensorSignature``, kernel_selector's
``FusedOp``, and the mode enums), and builds the object through its constructor, so each primitive's own checks
(``__post_init__``) run again. An unknown tag, class, field or enum member, an array of an object dtype, or a
value the constructor refuses raises :class:`ProgramCodecError` (a ValueError) naming the path inside the value.
No pickle, no ``eval``: the JSON can describe data only (OpenVINO's IR and ONNX make the same choice).

Tags (a JSON object with one of these keys): ``$t`` tuple, ``$s`` set, ``$fs`` frozenset, ``$d`` dict (as pairs, so
keys keep their type), ``$e`` enum member, ``$c`` dataclass, ``$a`` array, ``$dt`` numpy dtype, ``$n`` numpy scalar.
Plain lists, str, int, float (NaN and infinities as JSON's ``NaN``/``Infinity``), bool and None stay as they are.
"""

from __future__ import annotations

import dataclasses
import enum
from functools import cache, lru_cache
from typing import Any

import numpy as np

from kernel_selector.params import FusedOp

from .io_signature import TensorSignature
from .layout import DataType, Format, Layout, Padding
from .ops.base import OpAttrs
from .primitives.base import Primitive

ARRAY_KINDS = "biuf"
"""numpy dtype kinds an array may have: bool, signed and unsigned integers, floats (never objects)."""


class ProgramCodecError(ValueError):
    """A JSON value that does not describe an engine value: names the path inside it and what was wrong."""


def _subclasses(cls: type) -> list[type]:
    out: list[type] = []
    todo: list[type] = [cls]
    while todo:
        c = todo.pop()
        subs: list[type] = c.__subclasses__()
        out += subs
        todo += subs
    return out


def _name(cls: type) -> str:
    return f"{cls.__module__}.{cls.__qualname__}"


@lru_cache(maxsize=1)
def _registry() -> tuple[dict[str, type], dict[str, type[enum.Enum]]]:
    """({name: dataclass}, {name: enum}) of the classes a saved program may hold (built once, after the primitive
    and op modules are imported)."""
    from . import ops, primitives  # noqa: F401 - imported for their subclasses

    classes: list[type] = [Layout, Padding, TensorSignature, FusedOp, Primitive, OpAttrs]
    classes += _subclasses(Primitive) + _subclasses(OpAttrs)
    enums: list[type[enum.Enum]] = [DataType, Format]
    for mod in (ops, primitives):
        enums += [v for v in vars(mod).values() if isinstance(v, type) and issubclass(v, enum.Enum)]
    return ({_name(c): c for c in classes if dataclasses.is_dataclass(c)}, {_name(e): e for e in enums})


def encode(value: Any, arrays: list[np.ndarray]) -> Any:
    """``value`` as plain JSON data; numpy arrays are appended to ``arrays`` and referenced by index. Raises
    ProgramCodecError for a type the codec does not know (a callable, an object array ...)."""
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, enum.Enum):
        if _name(type(value)) not in _registry()[1]:
            raise ProgramCodecError(f"enum {_name(type(value))} is not one the codec knows")
        return {"$e": _name(type(value)), "v": value.name}
    if isinstance(value, np.generic):
        return {"$n": value.dtype.str, "v": value.item()}
    if isinstance(value, (int, float)):
        return value
    if isinstance(value, np.dtype):
        return {"$dt": value.str}
    if isinstance(value, np.ndarray):
        if value.dtype.kind not in ARRAY_KINDS:
            raise ProgramCodecError(f"array of dtype {value.dtype} cannot be stored")
        arrays.append(np.ascontiguousarray(value))
        return {"$a": len(arrays) - 1, "dtype": value.dtype.str, "shape": list(value.shape)}
    if isinstance(value, tuple):
        return {"$t": [encode(v, arrays) for v in value]}
    if isinstance(value, list):
        return [encode(v, arrays) for v in value]
    if isinstance(value, (set, frozenset)):
        tag = "$fs" if isinstance(value, frozenset) else "$s"
        return {tag: [encode(v, arrays) for v in sorted(value, key=repr)]}
    if isinstance(value, dict):
        return {"$d": [[encode(k, arrays), encode(v, arrays)] for k, v in value.items()]}
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        name = _name(type(value))
        if name not in _registry()[0]:
            raise ProgramCodecError(f"class {name} is not one the codec knows")
        return {"$c": name, "f": {f.name: encode(getattr(value, f.name), arrays)
                                  for f in dataclasses.fields(value) if f.init}}
    raise ProgramCodecError(f"a value of type {type(value).__name__} cannot be stored")


def decode(obj: Any, arrays: list[np.ndarray], path: str = "$") -> Any:
    """The value ``encode`` made ``obj`` from; ``arrays`` are the stored arrays by index (their dtype and shape are
    checked against the reference). Raises ProgramCodecError naming ``path`` for anything that is not a value the
    codec writes."""
    if obj is None or isinstance(obj, (bool, str, int, float)):
        return obj
    if isinstance(obj, list):
        if _plain(obj):
            return list(obj)
        return [decode(v, arrays, f"{path}[{i}]") for i, v in enumerate(obj)]
    if not isinstance(obj, dict) or len(obj) == 0:
        raise ProgramCodecError(f"{path}: unexpected {type(obj).__name__}")
    tag = next(iter(obj))
    try:
        if tag == "$t":
            items = obj["$t"]
            if isinstance(items, list) and _plain(items):  # a shape, a stride: no path strings to build
                return tuple(items)
            return tuple(decode(v, arrays, f"{path}[{i}]") for i, v in enumerate(items))
        if tag in ("$s", "$fs"):
            items = [decode(v, arrays, f"{path}[{i}]") for i, v in enumerate(obj[tag])]
            return frozenset(items) if tag == "$fs" else set(items)
        if tag == "$d":
            return {decode(k, arrays, f"{path}.key"): decode(v, arrays, f"{path}[{k!r}]") for k, v in obj["$d"]}
        if tag == "$e":
            enums = _registry()[1]
            if obj["$e"] not in enums:
                raise ProgramCodecError(f"{path}: unknown enum {obj['$e']!r}")
            return enums[obj["$e"]][obj["v"]]
        if tag == "$dt":
            return _dtype(obj["$dt"], path)
        if tag == "$n":
            return _dtype(obj["$n"], path).type(obj["v"])
        if tag == "$a":
            return _array(obj, arrays, path)
        if tag == "$c":
            return _dataclass(obj, arrays, path)
    except ProgramCodecError:
        raise
    except (KeyError, TypeError, ValueError, IndexError, OverflowError) as e:
        raise ProgramCodecError(f"{path}: malformed {tag} value: {e}") from None
    raise ProgramCodecError(f"{path}: unknown tag {tag!r}")


_SCALARS = frozenset((bool, str, int, float, type(None)))


def _plain(items: list[Any]) -> bool:
    """True when every item is a JSON scalar (decoded as itself): the common tuples and lists (shapes, strides,
    padding) skip the per-item recursion."""
    return all(type(v) in _SCALARS for v in items)


@cache
def _init_fields(cls: type) -> frozenset[str]:
    return frozenset(f.name for f in dataclasses.fields(cls) if f.init)


def _dtype(s: Any, path: str) -> np.dtype:
    if not isinstance(s, str) or len(s) > 8:
        raise ProgramCodecError(f"{path}: bad dtype {s!r}")
    dt = np.dtype(s)
    if dt.kind not in ARRAY_KINDS:
        raise ProgramCodecError(f"{path}: dtype {dt} is not a numeric dtype")
    return dt


def _array(obj: dict[str, Any], arrays: list[np.ndarray], path: str) -> np.ndarray:
    i = obj["$a"]
    if not isinstance(i, int) or not 0 <= i < len(arrays):
        raise ProgramCodecError(f"{path}: array index {i!r} out of range (0..{len(arrays) - 1})")
    a = arrays[i]
    if a.dtype != _dtype(obj["dtype"], path) or list(a.shape) != obj["shape"]:
        raise ProgramCodecError(f"{path}: array {i}: expected {obj['dtype']} {obj['shape']}, got {a.dtype.str} "
                                f"{list(a.shape)}")
    return a


def _dataclass(obj: dict[str, Any], arrays: list[np.ndarray], path: str) -> Any:
    classes = _registry()[0]
    cls = classes.get(obj["$c"])
    if cls is None:
        raise ProgramCodecError(f"{path}: unknown class {obj['$c']!r}")
    fields = _init_fields(cls)
    given = obj["f"]
    if not isinstance(given, dict) or not set(given) <= fields:
        extra = sorted(set(given) - fields) if isinstance(given, dict) else given
        raise ProgramCodecError(f"{path}: {cls.__name__} has no field(s) {extra}")
    values = {k: decode(v, arrays, f"{path}.{k}") for k, v in given.items()}
    try:
        return cls(**values)
    except Exception as e:  # noqa: BLE001 - any refusal of the constructor is a bad file, reported with its path
        raise ProgramCodecError(f"{path}: {cls.__name__} refused the stored fields: {e}") from None
