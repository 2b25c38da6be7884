"""``NAME_ILOAD(p, i)``, ``NAME_ALOAD8(p, i)`` and ``NAME_ASTORE8(p, i, v)``: the jitter's ``NAME_LOAD``,
``NAME_LOAD8`` and ``NAME_STORE8`` for the inner loops and register-tile epilogues of the CPU-tier kernels, without
a call for half storage.

On the pip PoCL ``vload_half``, ``vload_half8`` and ``vstore_half8_rte`` (the jitter's half forms) are library calls
that are not inlined, so every vector register spills around each of them: a GEMV with half weights ran no faster
than in f32 (FC6 at batch 1: 9 calls per float8 chunk of 8 rows). These macros go through ``cldnn_load_half``,
``cldnn_load_half8_aligned`` and ``cldnn_store_half8_aligned`` (cl_kernels/include/common.cl: the F16C instructions
inlined where the compiler targets them, the ``vload_half`` / ``vstore_half`` builtins elsewhere). For float storage
they are the jitter's macros themselves. ``NAME_ALOAD8`` / ``NAME_ASTORE8`` need ``p + i`` 16-byte aligned (half)
or 32-byte aligned (float: the aligned float8 pointer of ``NAME_LOAD8`` / ``NAME_STORE8``). ``NAME_IS_HALF``
(:func:`half_flags_jit`) lets a template pick another form for half where the float one must stay as it is.
"""

from __future__ import annotations

from cldnn_py.layout import DataType, Layout

from ..jitter import JitConstants
from ..params import Params


def inline_half_jit(tensors: dict[str, Layout]) -> JitConstants:
    """``NAME_ILOAD(p, i)`` (element ``i`` of ``p`` as float), ``NAME_ALOAD8(p, i)`` (the float8 at elements
    ``i .. i+7``) and ``NAME_ASTORE8(p, i, v)`` (``v`` into them, rounded to nearest even for half) for each
    ``{NAME: layout}``; the half8 forms need ``p + i`` aligned (the caller's guarantee, module docstring)."""
    j = JitConstants()
    for name, lay in tensors.items():
        if lay.dtype == DataType.f16:
            j.add(f"{name}_ILOAD(p, i)", "cldnn_load_half((p), (i))")
            j.add(f"{name}_ALOAD8(p, i)", "cldnn_load_half8_aligned((p) + (i))")
            j.add(f"{name}_ASTORE8(p, i, v)", "cldnn_store_half8_aligned((p) + (i), (v))")
        else:
            j.add(f"{name}_ILOAD(p, i)", f"{name}_LOAD(p, i)")
            j.add(f"{name}_ALOAD8(p, i)", f"{name}_LOAD8(p, i)")
            j.add(f"{name}_ASTORE8(p, i, v)", f"{name}_STORE8(p, i, v)")
    return j


def half_flags_jit(params: Params) -> JitConstants:
    """``INPUT<i>_IS_HALF`` for every input and ``OUTPUT_IS_HALF``: 1 where the tensor is f16 storage, else 0 (the
    preprocessor cannot compare ``NAME_TYPE``). For a template that keeps a device-specific float form (e.g. the
    ``vload8`` load form the device probe picks) for f32 and takes these macros' forms for half."""
    j = JitConstants()
    for i, x in enumerate(params.inputs):
        j.add(f"INPUT{i}_IS_HALF", int(x.dtype == DataType.f16))
    return j.add("OUTPUT_IS_HALF", int(params.output.dtype == DataType.f16))
