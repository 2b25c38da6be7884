"""A b_fs_yx_fsv16 (or plain narrow-head) pixel store for either output storage (f32 or f16), as one jit macro.

``cl_kernels/include/common.cl``'s ``FSV16_STORE_PIXEL(p, lo, hi, tail)`` stores 16 float channels through float8
pointers: float storage only. :func:`fsv16_store_jit` names a kernel's own store macro: for an f32 output that macro
is ``FSV16_STORE_PIXEL`` itself (the compiler sees exactly the code it saw before f16 existed), for an f16 output
the same two-part store written with the jitter's ``OUTPUT_STORE8`` / ``OUTPUT_STORE`` (``vstore_half8_rte`` /
``vstore_half_rte``: float values rounded to nearest even). Used by resize_b_fs_yx_fsv16, channel_gather_fsv16 and
the blocked (de)convolutions, which also write plain narrow-head outputs through :func:`plain_store_jit`.
"""

from __future__ import annotations

from cldnn_py.layout import DataType

from ..jitter import JitConstants

_HALF_BODY = (
    "do { if ((OUTPUT_FEATURE_NUM % 16 != 0) && (tail)) { union { float8 v[2]; float s[16]; } st_; "
    "st_.v[0] = (lo); st_.v[1] = (hi); "
    "__attribute__((opencl_unroll_hint)) for (int i_ = 0; i_ < OUTPUT_FEATURE_NUM % 16; ++i_) "
    "OUTPUT_STORE((p), i_, st_.s[i_]); } "
    "else { OUTPUT_STORE8((p), 0, (lo)); OUTPUT_STORE8((p), 8, (hi)); } } while (0)")


_PLAIN_HALF_BODY = (
    "do { union { float8 v[2]; float s[16]; } st_; st_.v[0] = (lo); st_.v[1] = (hi); "
    "__attribute__((opencl_unroll_hint)) for (int i_ = 0; i_ < 16; ++i_) "
    "if (i_ < (n)) OUTPUT_STORE((p), i_ * (lp), st_.s[i_]); } while (0)")


def fsv16_store_jit(macro: str, output_dtype: DataType) -> JitConstants:
    """``macro(p, lo, hi, tail)``: one pixel's 16 channels (float8 ``lo``: 0-7, ``hi``: 8-15) into the b_fs_yx_fsv16
    OUTPUT at pointer ``p``; when ``tail`` holds in the last slice of a channel count that is not a multiple of 16,
    only the real channels. ``FSV16_STORE_PIXEL`` for float storage, its half form for f16."""
    body = _HALF_BODY if output_dtype == DataType.f16 else "FSV16_STORE_PIXEL(p, lo, hi, tail)"
    return JitConstants({f"{macro}(p, lo, hi, tail)": body})


def plain_store_jit(macro: str, output_dtype: DataType) -> JitConstants:
    """``macro(p, lo, hi, n, lp)``: one pixel's 16 channels (float8 ``lo``, ``hi``) into a plain (bfyx) OUTPUT whose
    channel 0 of the slice is at ``p`` and whose channels are ``lp`` apart, only the first ``n``. common.cl's
    ``PLAIN_STORE_PIXEL`` for float storage, its ``OUTPUT_STORE`` form for f16."""
    body = _PLAIN_HALF_BODY if output_dtype == DataType.f16 else "PLAIN_STORE_PIXEL(p, lo, hi, n, lp)"
    return JitConstants({f"{macro}(p, lo, hi, n, lp)": body})
