"""convert_precision: run the network in f16 storage where a kernel allows it (``BuildOptions(inference_precision=
"f16")``, OpenVINO's ``INFERENCE_PRECISION_HINT`` and its ``ConvertPrecision`` transformation).

Why: half storage halves the bytes every activation and weight moves, and most layers of a network are bound by
those bytes on a GPU (and on a CPU for the fully connected layers at batch 1). Arithmetic stays float: kernels load
and store through the jitter's ``NAME_LOAD`` / ``NAME_STORE`` macros, so accumulators are float32 either way.

What: after reorder_inputs has chosen formats, each node that runs a kernel and outputs f32 goes to f16 when the
kernel the selector would pick for it in f32 also takes it in f16 (so no node trades a fast kernel for a reference
one), except (as OpenVINO keeps them in f32 by default):

- primitive types whose results are sensitive to rounding: softmax, mvn, reduce (normalization statistics), and
  those whose outputs are not plain activations (arg_max, top_k, lstm_sequence, gru_sequence);
- network outputs (the last classifier and whatever the user reads stays f32, so outputs keep their dtype);
- the ids the user names in ``BuildOptions(keep_f32=...)``;
- reorders that are explicit casts (a Reorder with a ``dtype``: the model asked for that type).

Then every edge whose producer's float type differs from what its consumer runs in is converted: a constant Data
is stored converted (when all its readers agree), a reorder without a dtype of its own converts as it reorders (when
all its readers agree), and any other edge gets a converting Reorder (constant ones are folded by
propagate_constants). Integer tensors (indices, shapes) are never touched. On the CPU engine the numba kernels
are float32 only, except fully_connected_cpu_blas's small-batch path (N <= 16: half weights converted as they
stream, the memory-bound case) and the f32 <-> f16 reorder: there the fully connected layers that are not outputs
qualify, and the nodes a numba kernel runs stay f32 (the convolutions are compute-bound: half storage would only
add conversions). A node whose f32 choice is a CPU reference kernel follows the same rule as on OpenCL.
"""

from __future__ import annotations

import dataclasses

from kernel_selector import Params, selector

from ..errors import TopologyError
from ..kernel_params import node_params
from ..layout import DataType, Layout
from ..pass_manager import BasePass
from ..primitives import Data, Reorder
from ..program_graph import ProgramGraph
from ..program_node import ProgramNode, recompute_layouts, topological_order

KEEP_F32_KINDS = frozenset({"softmax", "mvn", "reduce", "arg_max", "top_k", "lstm_sequence", "gru_sequence"})
"""Primitive types that stay f32 under ``inference_precision="f16"``."""

_FLOAT = (DataType.f32, DataType.f16)


def _as(lay: Layout, dtype: DataType) -> Layout:
    return lay.with_(dtype=dtype) if lay.dtype in _FLOAT else lay


def _best(p: Params) -> str | None:
    v = selector.explain(p)
    return v[0].kernel if v and v[0].reason is None else None


class ConvertPrecision(BasePass):
    """Marks the nodes that run in f16 and converts the edges between f16 and f32 (module docstring)."""

    name = "convert_precision"

    def run(self, program: ProgramGraph) -> None:
        """No-op unless the build's precision (``program.precision``: the option, else the topology's
        preferred precision) is ``"f16"``."""
        if program.precision != "f16":
            return
        keep = set(program.options.keep_f32)
        unknown = sorted(k for k in keep if k not in program.nodes and k not in program.removed)
        if unknown:
            raise TopologyError(f"BuildOptions.keep_f32: no primitive with id {', '.join(map(repr, unknown))}")
        half = {n.id for n in program.order if self._wants_f16(program, n, keep)}
        if not half:
            return
        for node in program.order:
            if node.id in half:
                node.forced_dtype = DataType.f16
        for node in list(program.order):
            want = DataType.f16 if node.id in half else DataType.f32
            if isinstance(node.primitive, Reorder) and not node.constant:
                if node.id not in half and node.primitive.dtype is None and node.layout().dtype == DataType.f32:
                    node.primitive = dataclasses.replace(node.primitive, dtype=DataType.f32)  # keeps f32 out
                continue  # a reorder converts whatever it reads
            if node.constant or node.optimized_out:
                continue
            for dep in list(dict.fromkeys(node.dependencies)):
                has = DataType.f16 if dep.id in half else dep.layout().dtype
                if has in _FLOAT and has != want:
                    self._convert_edge(program, dep, want, half)
        program.order = topological_order(program.nodes)
        recompute_layouts(program.order)

    def _wants_f16(self, program: ProgramGraph, node: ProgramNode, keep: set[str]) -> bool:
        if (node.constant or node.optimized_out or node.is_output or node.id in keep or node.kind in KEEP_F32_KINDS
                or _is_cast(node) or node.layout().dtype != DataType.f32):
            return False
        self.node = node.id
        p32 = node_params(program, node)
        best32 = _best(p32)
        if best32 is None:
            return False
        p16 = dataclasses.replace(
            p32, inputs=[_as(x, DataType.f16) for x in p32.inputs], output=p32.output.with_(dtype=DataType.f16),
            fused_ops=[dataclasses.replace(op, extra_inputs=[_as(x, DataType.f16) for x in op.extra_inputs])
                       for op in p32.fused_ops])
        forced = program.forced_impls.get(node.id)
        if forced is not None:
            return any(v.kernel == forced and v.reason is None for v in selector.explain(p16))
        return _best(p16) == best32

    def _convert_edge(self, program: ProgramGraph, dep: ProgramNode, want: DataType, half: set[str]) -> None:
        """Make ``dep``'s value reach its readers that run in ``want`` as ``want``."""
        readers = [u for u in dict.fromkeys(dep.users)
                   if not u.constant and not u.optimized_out and not isinstance(u.primitive, Reorder)
                   and (DataType.f16 if u.id in half else DataType.f32) == want]
        if not readers:
            return
        agree = len(readers) == len(set(dep.users)) and not dep.is_output
        if agree and dep.kind == "data" and isinstance(dep.primitive, Data):
            prim = dep.primitive
            dep.primitive = Data(prim.id, prim.array.astype(want.numpy), format=prim.format)
            dep.output_layout = dep.primitive.calc_output_layout([]).with_(padding=dep.layout().padding)
            return
        if agree and isinstance(dep.primitive, Reorder) and dep.primitive.dtype is None:
            dep.primitive = dataclasses.replace(dep.primitive, dtype=want)
            dep.forced_dtype = None
            return
        rid = f"{dep.id}__to_{want.value}"
        conv = ProgramNode(Reorder(rid, dep.id, format=dep.layout().format, dtype=want), dependencies=[dep],
                           constant=dep.constant)
        conv.output_layout = conv.primitive.calc_output_layout([dep.layout()])
        program.nodes[rid] = conv
        for u in readers:
            u.dependencies = [conv if d is dep else d for d in u.dependencies]
            conv.users.append(u)
        dep.users = [u for u in dep.users if u not in readers] + [conv]


def _is_cast(node: ProgramNode) -> bool:
    return isinstance(node.primitive, Reorder) and node.primitive.dtype is not None
