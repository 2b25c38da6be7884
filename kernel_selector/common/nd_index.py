"""N-D indexing helpers for the shape kernels (strided_slice, pad, tile, broadcast, gather, resize).

These kernels map every output coordinate to an input coordinate per logical dimension, for tensors of logical
rank 1 to 6. A Layout of rank <= 4 may be in any format and padded; ranks 5-6 are plain, unpadded ``bfyx`` whose
``dims4`` fold dimensions 3.. into x (``Layout.dims4``). So an N-D coordinate ``(i0, ..., i5)`` (the logical shape
padded with trailing ones to six dimensions) reaches any buffer through the tensor's ``GET_INDEX`` macro as
``GET_INDEX(i0, i1, i2, (i3 * D4 + i4) * D5 + i5)``: for rank <= 4, D4 = D5 = 1 and i4 = i5 = 0, so this is the
plain 4-D macro; for rank 5-6 it is the row-major fold of the trailing dimensions, exact because such tensors are
unpadded bfyx.

The default dispatch (gws = (x, y, f * b) of the output's ``dims4``) covers the output; a kernel recovers the six
coordinates with the ``ND_OUTPUT_COORDS`` statement macro defined here.
"""

from __future__ import annotations

from cldnn_py.layout import Layout

from ..jitter import JitConstants

MAX_RANK = 6


def dims6(layout: Layout) -> tuple[int, ...]:
    """The logical shape padded with trailing ones to six dimensions."""
    return tuple(layout.shape) + (1,) * (MAX_RANK - layout.rank)


def nd_jit(name: str, layout: Layout) -> JitConstants:
    """``NAME_DIM0`` .. ``NAME_DIM5`` (logical sizes, trailing ones) and ``NAME_IDX6(i0, .., i5)`` (buffer offset
    of an N-D coordinate through ``NAME_GET_INDEX``). Requires the tensor's ``tensor_jit`` constants too."""
    d = dims6(layout)
    j = JitConstants()
    for i, s in enumerate(d):
        j.add(f"{name}_DIM{i}", s)
    j.add(f"{name}_IDX6(i0, i1, i2, i3, i4, i5)",
          f"{name}_GET_INDEX((i0), (i1), (i2), ((i3) * {d[4]} + (i4)) * {d[5]} + (i5))")
    return j


def nd_output_coords() -> JitConstants:
    """``ND_OUTPUT_COORDS``: declares ``const int o0 .. o5`` from the global ids of the default dispatch
    (gws = (OUTPUT_DIM3 * OUTPUT_DIM4 * OUTPUT_DIM5, OUTPUT_DIM2, OUTPUT_DIM1 * OUTPUT_DIM0))."""
    body = ("const int o5 = (int)(get_global_id(0) % OUTPUT_DIM5); "
            "const int o4 = (int)((get_global_id(0) / OUTPUT_DIM5) % OUTPUT_DIM4); "
            "const int o3 = (int)(get_global_id(0) / (OUTPUT_DIM5 * OUTPUT_DIM4)); "
            "const int o2 = (int)get_global_id(1); "
            "const int o1 = (int)(get_global_id(2) % OUTPUT_DIM1); "
            "const int o0 = (int)(get_global_id(2) / OUTPUT_DIM1);")
    return JitConstants({"ND_OUTPUT_COORDS": body})


def nd_check(params_inputs: list[Layout], output: Layout) -> str | None:
    """Why the N-D helpers cannot address these tensors (rank > 6, or rank 5-6 not plain unpadded bfyx), or None."""
    for what, lay in [*((f"input {i}", x) for i, x in enumerate(params_inputs)), ("output", output)]:
        if lay.rank > MAX_RANK:
            return f"{what} rank {lay.rank} > {MAX_RANK}"
        if lay.rank > 4 and (lay.format.value != "bfyx" or not lay.padding.is_zero):
            return f"{what} of rank {lay.rank} must be unpadded bfyx, got {lay}"
    return None
