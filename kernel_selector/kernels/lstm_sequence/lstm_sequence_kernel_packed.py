"""lstm_sequence_packed (CPU tier) and lstm_sequence_gpu_packed (GPU tier): the LSTM time loop with R packed in
os_iyx_osv16 and 8 hidden units per float8.

``lstm_sequence_ref`` gives each work-item one hidden unit j and reads row j of R (4·hidden, hidden) along k: the
work-items of a group read R with a stride of ``hidden`` floats, which PoCL's work-item loop vectorizer turns into
gathers (and a GPU into uncoalesced loads): 40 µs per step at hidden 128 on this machine. Packed [4·hidden/16]
[hidden][16] (the fully connected layers' ``os_iyx_osv16``, which reorder_inputs writes and propagate_constants
folds at build), the 8 rows of one gate that a unit block needs are 32 contiguous bytes at every k, so a step is
hidden × 4 float8 loads and ``a*b+c`` per block, h[k] broadcast (the recipe of the fsv16 convolution,
docs/performance.md). On the CPU one work-item runs a whole sequence, two blocks at a time (8 accumulators), with
no barriers: 5.5 µs per step at hidden 128 (``lstm_sequence_gpu_packed``, a work-group of hidden/8 work-items with
two barriers per step, took 7.5-15 µs on PoCL).
"""

from __future__ import annotations

from cldnn_py.layout import DataType, Format

from ...kernel_base import FORCE_PRIORITY_3
from ...params import Params, SupportedKey
from ...selector import register
from .lstm_sequence_kernel_ref import LstmSequenceKernelRef

UNITS = 8  # hidden units per work-item: one float8 per gate
PACKED = Format.os_iyx_osv16


@register
class LstmSequenceKernelGpuPacked(LstmSequenceKernelRef):
    """LSTM sequence (the semantics of :class:`LstmSequenceKernelRef`) for hidden % 8 == 0 with INPUT3 R
    (4·hidden, hidden) in ``os_iyx_osv16`` unpadded, GPU tier: gws = (hidden/8, batch), lws = (hidden/8, 1);
    work-item l of group b keeps c of units 8l .. 8l+7 in a float8 and h in ``__local float[hidden]``; per step
    and k, four aligned float8 loads of R (neighbouring work-items read neighbouring 32 bytes) times h[k]. INPUT0
    xw (seq·batch, 4·hidden), INPUT1 h0 / INPUT2 c0 (batch, hidden), INPUT4 P (3·hidden) in any format and
    padding (rank <= 4, read through the N-D index macros); OUTPUT (seq, batch, 2·hidden); all f32. Hidden above
    8 × the work-group limit (2048 at 256) is left to the reference."""

    name = "lstm_sequence_gpu_packed"
    primitive = "lstm_sequence"
    tier = "gpu"

    def supported_key(self) -> SupportedKey:
        """OpenCL, f32 everywhere."""
        return SupportedKey(input_dtypes=frozenset({DataType.f32}), output_dtypes=frozenset({DataType.f32}))

    def validate(self, params: Params) -> str | None:
        """hidden % 8 == 0, hidden / 8 work-items fit a group, 4·hidden bytes of local memory, R packed
        unpadded."""
        n = params.inputs[1].shape[1]
        if n % UNITS:
            return f"hidden {n} is not a multiple of {UNITS}"
        caps = params.caps
        if n // UNITS > min(caps.max_work_group_size, caps.max_work_item_sizes[0]):
            return f"hidden {n} needs {n // UNITS} work-items per group, the device allows {caps.max_work_group_size}"
        r = params.inputs[3]
        if r.format != PACKED or not r.padding.is_zero:
            return f"R must be {PACKED.value} without padding, got {r.format.value} {r.padding}"
        return super().validate(params)

    def priority(self, params: Params) -> int:
        """Ahead of the reference."""
        return FORCE_PRIORITY_3

    @staticmethod
    def lws(params: Params) -> int:
        """hidden / 8 work-items per sequence."""
        return max(1, params.inputs[1].shape[1] // UNITS)


@register
class LstmSequenceKernelPacked(LstmSequenceKernelGpuPacked):
    """The CPU-tier form of :class:`LstmSequenceKernelGpuPacked` (same inputs and output): gws = (batch,),
    lws = (1,); one work-item runs sequence b alone, two 8-unit blocks at a time, with h double-buffered and c in
    ``__local`` memory of its group of one (12·hidden bytes)."""

    name = "lstm_sequence_packed"
    tier = "cpu"

    def validate(self, params: Params) -> str | None:
        """hidden % 8 == 0, R packed unpadded, 12·hidden bytes of local memory."""
        n = params.inputs[1].shape[1]
        if 12 * n > params.caps.local_mem_bytes:
            return f"hidden {n} needs {12 * n} bytes of local memory, the device has {params.caps.local_mem_bytes}"
        return super().validate(params) if n % UNITS == 0 else f"hidden {n} is not a multiple of {UNITS}"

    def dispatch(self, params: Params) -> tuple[tuple[int, ...], tuple[int, ...] | None]:
        """One work-item per sequence."""
        return (params.inputs[1].shape[0],), (1,)
