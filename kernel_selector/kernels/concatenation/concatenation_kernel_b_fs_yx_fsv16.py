"""concatenation_b_fs_yx_fsv16: feature-axis concatenation of blocked data in one enqueue, float8 copies.

GoogLeNet's inception outputs and SqueezeNet's fire outputs are feature concatenations of b_fs_yx_fsv16
convolution outputs, which prepare_buffer_fusing makes in place; the others run a kernel (a slice that starts
inside a block, as ShuffleNet's 24 + 112 channels; an input read twice, as DenseNet's; a producer that cannot write
slices): ``concatenation_ref`` copies element by element through GET_INDEX in one enqueue per input; this kernel
copies whole 16-channel slices as aligned float8 pairs (or, where a slice mixes inputs, lane by lane), all inputs in
one enqueue.
"""

from __future__ import annotations

from cldnn_py.layout import Format
from cldnn_py.ops import ConcatenationAttrs

from ...common.concat import concat_axis4
from ...common.runtime_shapes import move_shapes_to_args
from ...jitter import JitConstants
from ...kernel_base import FORCE_PRIORITY_3, Arg, ClKernelData, KernelBase, KernelData
from ...params import FLOATS, Params, SupportedKey
from ...selector import register
from .concatenation_kernel_ref import ConcatenationKernelRef

CAT_BLOCK = 8  # pixels of one row per work-item


def slice_aligned(params: Params) -> bool:
    """True when every input but the last has a multiple of 16 channels: each output slice is one input slice."""
    return all(x.dims4[1] % 16 == 0 for x in params.inputs[:-1])


@register
class ConcatenationKernelBFsYxFsv16(KernelBase):
    """Concatenation along features (axis 1) of rank-4 ``b_fs_yx_fsv16`` inputs into a ``b_fs_yx_fsv16``
    output, all f32 or all f16 (storage). When every input except the last has a multiple of 16 channels, every
    output slice is one input slice, copied as float8 pairs; otherwise (``CAT_LANES``) each lane of an output slice
    finds its input channel once and the pixels are copied lane by lane.

    Inputs and output may be padded along batch, y and x (not features). The output's block tail is not written.
    Jit: ``CAT_INPUTS_DECL`` (one pointer per input), ``CAT_SOURCE`` (picks the input slice of output slice ``fs``
    by the inputs' first slices ``CAT_FIRSTi``), ``CAT_LANE_SOURCE`` (a lane's source by the inputs' first channels
    ``CAT_CHi``), ``CAT_LANES``, ``CAT_BLOCK``; sizes, pitches, offsets, ``CAT_FIRSTi`` and ``CAT_CHi`` are int
    arguments (``RUNTIME_SHAPE_ARGS``), so the binary depends only on the number of inputs, the data type and
    ``CAT_LANES``.
    gws (ceil(X / CAT_BLOCK), Y, ceil(C / 16) * N), lws (1, 1, 1); one enqueue.
    """

    name = "concatenation_b_fs_yx_fsv16"
    primitive = "concatenation"
    tier = "cpu"  # work-groups of one work-item, registers as the tile: shaped for CPU devices
    n_data_inputs = None

    def supported_key(self) -> SupportedKey:
        """OpenCL, f32 or f16 (storage), b_fs_yx_fsv16 everywhere, padding allowed."""
        fsv16 = frozenset({Format.b_fs_yx_fsv16})
        return SupportedKey(input_formats=fsv16, output_formats=fsv16, input_dtypes=FLOATS, output_dtypes=FLOATS)

    def validate(self, params: Params) -> str | None:
        """The reference's shape rules, one data type everywhere (no f32 / f16 mix: one ``src`` pointer type),
        rank 4, axis 1, no feature padding."""
        reason = ConcatenationKernelRef().validate(params)
        if reason is not None:
            return reason
        for i, x in enumerate(params.inputs):
            if x.dtype != params.output.dtype:
                return f"input {i} data type {x.dtype.value} differs from output {params.output.dtype.value}"
        if params.output.rank != 4 or concat_axis4(params) != 1:
            axis = params.attrs_as(ConcatenationAttrs).axis
            return f"only the feature axis of rank-4 data (axis {axis}, rank {params.output.rank})"
        for i, lay in enumerate([*params.inputs, params.output]):
            if lay.padding.lower[1] or lay.padding.upper[1]:
                return f"{'output' if i == len(params.inputs) else f'input {i}'} padded along features"
        return None

    def priority(self, params: Params) -> int:
        """Well below the reference: it wins whenever it validates."""
        return FORCE_PRIORITY_3

    def jit_constants(self, params: Params) -> JitConstants:
        """Tensors (INPUT0..INPUTn-1, OUTPUT), CAT_INPUTS_DECL, CAT_SOURCE and CAT_BLOCK."""
        j = super().jit_constants(params)
        n = len(params.inputs)
        j.add("CAT_INPUTS_DECL", ", ".join(f"const __global INPUT{i}_TYPE* input{i}" for i in range(n)))
        branches = []
        for i in range(n):
            row = (f"src = input{i} + INPUT{i}_OFFSET + b * INPUT{i}_BATCH_PITCH + (fs - CAT_FIRST{i}) * "
                   f"INPUT{i}_FEATURE_PITCH + y * INPUT{i}_Y_PITCH;")
            branches.append(row if i == n - 1 else f"if (fs < CAT_FIRST{i + 1}) {{ {row} }} else")
        j.add("CAT_SOURCE", " ".join(branches[:-1]) + (" { " + branches[-1] + " }" if n > 1 else branches[-1]))
        lanes = []
        for i in range(n):
            row = (f"{{ const int c = f - CAT_CH{i}; sp[l] = input{i} + INPUT{i}_OFFSET + b * INPUT{i}_BATCH_PITCH + "
                   f"(c / 16) * INPUT{i}_FEATURE_PITCH + y * INPUT{i}_Y_PITCH + c % 16 + x0 * 16; }}")
            lanes.append(row if i == n - 1 else f"if (f < CAT_CH{i + 1}) {row} else")
        j.add("CAT_LANE_SOURCE", " ".join(lanes))
        j.add("CAT_LANES", int(not slice_aligned(params)))
        j.add("CAT_BLOCK", CAT_BLOCK)
        return j

    def dispatch(self, params: Params) -> tuple[tuple[int, ...], tuple[int, ...]]:
        """gws (ceil(X / CAT_BLOCK), Y, ceil(C / 16) * N), lws (1, 1, 1)."""
        b, f, y, x = params.output.dims4
        return (-(-x // CAT_BLOCK), y, -(-f // 16) * b), (1, 1, 1)

    def kernel_data(self, params: Params) -> KernelData:
        """One enqueue: every input, the output, then the shapes and the inputs' first output slices
        (``CAT_FIRSTi``) as int arguments (``common/runtime_shapes.py``): one binary for every concatenation of as
        many inputs (DenseNet-121 has 58 of two inputs, each of its own size)."""
        jit = self.jit_constants(params)
        firsts, first, ch = {}, 0, 0
        for i, x in enumerate(params.inputs):
            firsts[f"CAT_FIRST{i}"] = first
            firsts[f"CAT_CH{i}"] = ch
            first += -(-x.dims4[1] // 16)
            ch += x.dims4[1]
        shape_args = move_shapes_to_args(jit, [f"INPUT{i}" for i in range(len(params.inputs))] + ["OUTPUT"], firsts)
        entry, src = self.make_source(jit)
        gws, lws = self.dispatch(params)
        args = [Arg("input", i) for i in range(len(params.inputs))] + [Arg("output", 0)] + shape_args
        return KernelData(self.name, [ClKernelData(entry, src, gws, lws, args)])
