"""JitConstants: the ``#define`` header that specializes a kernel template to one primitive.

Shapes are compile-time constants: a compiled graph is static, one kernel specialization per shape. For every
tensor NAME (INPUT0, INPUT1, OUTPUT ...) the jitter emits, in clDNN's vocabulary:

- ``NAME_TYPE``, ``NAME_RANK``, ``NAME_BATCH_NUM``, ``NAME_FEATURE_NUM``, ``NAME_SIZE_Y``, ``NAME_SIZE_X``,
  ``NAME_LENGTH`` (logical elements);
- ``NAME_PAD_BEFORE_{BATCH_NUM,FEATURE_NUM,SIZE_Y,SIZE_X}`` and ``..._PAD_AFTER_...``;
- ``NAME_{BATCH,FEATURE,Y,X}_PITCH`` (elements; for the blocked dimension, between slices), ``NAME_OFFSET`` (the
  element at logical (0, 0, 0, 0): every dimension's lower padding, a blocked one's in whole slices);
- ``NAME_GET_INDEX(b, f, y, x)``: the element's offset in the buffer for any format (plain or blocked), so a
  ``_ref`` kernel handles ``bfyx``, ``byxf``, ``yxfb``, ``b_fs_yx_fsv16`` ... through one macro;
- ``NAME_FORMAT_<format>`` set to 1;
- access macros that hide the storage type, so one template serves float and half storage (issue 18):
  ``NAME_VAL_TYPE`` (the type a loaded value has: ``float`` for ``half`` storage, else ``NAME_TYPE``),
  ``NAME_LOAD(p, i)`` / ``NAME_STORE(p, i, v)`` (element ``i`` of buffer ``p``), ``NAME_LOAD8(p, i)`` /
  ``NAME_STORE8(p, i, v)`` (the float8 at elements ``i .. i+7``; for float storage ``i`` must be a multiple of 8).
  Half is storage only (no ``cl_khr_fp16``): ``cldnn_load_half`` / ``cldnn_store_half`` / ``..._half8``
  (cl_kernels/include/common.cl: the F16C conversion instructions inlined where PoCL targets x86, whose
  ``vload_half`` builtins are calls that spill every register; ``vload_half`` / ``vstore_half_rte`` elsewhere);
  arithmetic stays float, stores round to nearest even. For float storage they are plain indexing and aligned float8
  pointers, the forms the pip PoCL compiles best (see DESIGN.md section 5).
``ACTIVATION(x)``-style macros come from the element-wise table (:mod:`cldnn_py.ops.elementwise`).
"""

from __future__ import annotations

import hashlib

from cldnn_py.layout import DIMS, DataType, Layout
from cldnn_py.ops.elementwise import cl_activation, cl_eltwise

_SIZE = {"b": "BATCH_NUM", "f": "FEATURE_NUM", "y": "SIZE_Y", "x": "SIZE_X"}
_PITCH = {"b": "BATCH_PITCH", "f": "FEATURE_PITCH", "y": "Y_PITCH", "x": "X_PITCH"}


class JitConstants:
    """An ordered set of ``#define``s. Keys may be plain names or function-like macros (``NAME(a, b)``)."""

    def __init__(self, items: dict[str, object] | None = None) -> None:
        self._items: dict[str, str] = {}
        if items:
            self.update(items)

    def add(self, name: str, value: object) -> JitConstants:
        """Define ``name`` (or macro signature) as ``value``; bools become 0/1. Returns self."""
        if isinstance(value, bool):
            value = int(value)
        self._items[name] = str(value)
        return self

    def update(self, items: dict[str, object] | JitConstants) -> JitConstants:
        """Add every item of a dict or of another JitConstants. Returns self."""
        src = items._items if isinstance(items, JitConstants) else items
        for k, v in src.items():
            self.add(k, v)
        return self

    def __getitem__(self, name: str) -> str:
        return self._items[name]

    def __contains__(self, name: object) -> bool:
        return name in self._items

    def drop(self, prefixes: list[str]) -> JitConstants:
        """Remove every define whose name starts with one of ``prefixes``. Returns self."""
        for k in [k for k in self._items if k.startswith(tuple(prefixes))]:
            del self._items[k]
        return self

    def header(self) -> str:
        """The ``#define`` lines."""
        return "".join(f"#define {k} {v}\n" for k, v in self._items.items())

    def undefs(self) -> str:
        """``#undef`` of every name, so the next kernel in a batched program starts clean."""
        return "".join(f"#undef {k.split('(')[0]}\n" for k in self._items)


def tensor_jit(name: str, layout: Layout) -> JitConstants:
    """Size, padding, pitch and ``GET_INDEX`` constants of one tensor (see the module docstring)."""
    j = JitConstants()
    j.add(f"{name}_TYPE", layout.dtype.cl_type)
    j.add(f"{name}_RANK", layout.rank)
    for d, size in zip(DIMS, layout.dims4):
        j.add(f"{name}_{_SIZE[d]}", size)
    j.add(f"{name}_LENGTH", layout.count())
    for d, lo, hi in zip(DIMS, layout.padding.lower, layout.padding.upper):
        j.add(f"{name}_PAD_BEFORE_{_SIZE[d]}", lo)
        j.add(f"{name}_PAD_AFTER_{_SIZE[d]}", hi)
    pitches = layout.pitches
    for d in DIMS:
        j.add(f"{name}_{_PITCH[d]}", pitches[d])
    blk = layout.format.block
    terms = []
    offset = 0
    for d, lo in zip(DIMS, layout.padding.lower):
        arg = f"(({d.upper()}) + {lo})" if lo else f"({d.upper()})"
        if blk and blk[0] == d:
            terms.append(f"({arg} / {blk[1]}) * {pitches[d]} + ({arg} % {blk[1]})")
            offset += lo // blk[1] * pitches[d]  # whole slices (Layout checks it)
        else:
            terms.append(f"{arg} * {pitches[d]}")
            offset += lo * pitches[d]
    j.add(f"{name}_OFFSET", offset)
    j.add(f"{name}_GET_INDEX(B, F, Y, X)", "(" + " + ".join(terms) + ")")
    j.add(f"{name}_FORMAT_{layout.format.value.upper()}", 1)
    return j.update(access_jit(name, layout.dtype))


def access_jit(name: str, dtype: DataType) -> JitConstants:
    """``NAME_VAL_TYPE``, ``NAME_LOAD``, ``NAME_STORE``, ``NAME_LOAD8``, ``NAME_STORE8`` of one tensor (module
    docstring): half storage through common.cl's ``cldnn_load_half`` family (float values), every other type by
    plain indexing (``LOAD8``/``STORE8`` through aligned ``float8`` pointers)."""
    j = JitConstants()
    if dtype == DataType.f16:
        j.add(f"{name}_VAL_TYPE", "float")
        j.add(f"{name}_LOAD(p, i)", "cldnn_load_half((p), (i))")
        j.add(f"{name}_STORE(p, i, v)", "cldnn_store_half((p), (i), (v))")
        j.add(f"{name}_LOAD8(p, i)", "cldnn_load_half8((p) + (i))")
        j.add(f"{name}_STORE8(p, i, v)", "cldnn_store_half8((p) + (i), (v))")
    else:
        j.add(f"{name}_VAL_TYPE", dtype.cl_type)
        j.add(f"{name}_LOAD(p, i)", "((p)[i])")
        j.add(f"{name}_STORE(p, i, v)", "((p)[i] = (v))")
        j.add(f"{name}_LOAD8(p, i)", "(*(const __global float8*)((p) + (i)))")
        j.add(f"{name}_STORE8(p, i, v)", "(*(__global float8*)((p) + (i)) = (v))")
    return j


def activation_jit(macro: str, func: str | None, a: float = 0.0, b: float = 0.0) -> JitConstants:
    """``macro(x)`` applying activation ``func`` (identity when func is None)."""
    body = "(x)" if func is None else cl_activation(func, a, b)
    return JitConstants({f"{macro}(x)": body})


def source_hash(text: str) -> str:
    """Short stable hash of a kernel's full source, used to name and deduplicate entry points."""
    return hashlib.sha1(text.encode()).hexdigest()[:12]


def operand_coords(operand: Layout, names: tuple[str, str, str, str] = ("b", "f", "y", "x")) -> str:
    """The (b, f, y, x) arguments of a fused eltwise operand's ``GET_INDEX``: ``0`` along each dimension of size 1
    (numpy broadcasting of an operand of the output's rank, or of one element), the output's coordinate elsewhere."""
    return ", ".join("0" if size == 1 else c for size, c in zip(operand.dims4, names))


def fused_ops_jit(fused_ops: list) -> JitConstants:
    """``FUSED_OPS_ARGS`` (extra kernel parameters, appended after the output) and ``FUSED_OPS(val, b, f, y, x)``
    (statements applying every fused op to ``val`` in order), plus ``FUSEDi_*`` tensor constants of the extra
    inputs (an operand broadcast along its size-1 dimensions: :func:`operand_coords`). Both macros are empty
    without fused ops, so a kernel template can use them unconditionally."""
    j = JitConstants()
    args, stmts = [], []
    n_in = 0
    for k, op in enumerate(fused_ops):
        if op.kind == "activation":
            j.update(activation_jit(f"FUSED_ACT{k}", op.act().func, op.act().a, op.act().b))
            stmts.append(f"val = FUSED_ACT{k}(val);")
        elif op.kind == "eltwise":
            name = f"FUSED{n_in}"
            j.update(tensor_jit(name, op.extra_inputs[0]))
            args.append(f"const __global {op.extra_inputs[0].dtype.cl_type}* fused_input{n_in}")
            v = f"(float){name}_LOAD(fused_input{n_in}, {name}_GET_INDEX({operand_coords(op.extra_inputs[0])}))"
            stmts.append("val = " + cl_eltwise(op.elt().mode, "(val)", f"({v})") + ";")
            n_in += 1
        else:
            raise ValueError(f"unknown fused op kind {op.kind!r}")
    j.add("FUSED_OPS_ARGS", "".join(", " + a for a in args))
    j.add("FUSED_OPS(val, b, f, y, x)", "do { " + " ".join(stmts) + " } while (0)")
    return j
