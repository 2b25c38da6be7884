"""remove_redundant_reorders and add_required_reorders, graph before → graph expected."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np
import pytest

import cldnn_py as cl
from cldnn_py.passes.add_required_reorders import AddRequiredReorders
from cldnn_py.passes.graph_initializations import GraphInitializations
from cldnn_py.passes.mark_nodes import MarkNodes
from cldnn_py.passes.remove_redundant_reorders import RemoveRedundantReorders
from cldnn_py.primitives.base import Primitive
from kernel_selector import ClKernelData, KernelBase, KernelData, SupportedKey, register
from kernel_selector.cpu_kernel_base import CPU, CpuKernelBase, typed
from tests.passes.graphs import builder, graph

L = cl.Layout(cl.DataType.f32, cl.Format.bfyx, (1, 3, 4, 4))
F = cl.Format


def _run(engine, topo, *passes):
    b = builder(engine, topo)
    for p in (GraphInitializations(), MarkNodes(), *passes):
        p.run(b)
    return b


def test_noop_reorder_and_format_chain_are_removed(graph_engine):
    topo = cl.Topology(cl.InputLayout("x", L), cl.Activation("a", "x", "tanh"),
                       cl.Reorder("same", "a", F.bfyx),                       # a no-op
                       cl.Reorder("r1", "same", F.byxf), cl.Reorder("r2", "r1", F.b_fs_yx_fsv16),  # chain
                       cl.Activation("out", "r2", "abs"))
    b = _run(graph_engine, topo, RemoveRedundantReorders())
    assert graph(b) == (["x", "a", "r2", "out"], {("x", "a"), ("a", "r2"), ("r2", "out")})
    assert b.resolve("same") == "a"


def test_dtype_changing_reorders_stay(graph_engine):
    topo = cl.Topology(cl.InputLayout("x", L), cl.Reorder("to_i8", "x", F.bfyx, cl.DataType.i8),
                       cl.Reorder("back", "to_i8", F.bfyx, cl.DataType.f32))
    b = _run(graph_engine, topo, RemoveRedundantReorders())
    assert graph(b)[0] == ["x", "to_i8", "back"]


def test_output_reorder_is_kept_and_results_agree(engine, rng):
    topo = cl.Topology(cl.InputLayout("x", L), cl.Reorder("r1", "x", F.byxf), cl.Reorder("r2", "r1", F.yxfb),
                       cl.Reorder("out", "r2", F.bfyx))
    x = rng.standard_normal(L.shape).astype(np.float32)
    net = cl.Network(cl.Program(engine, topo))
    np.testing.assert_array_equal(net.run({"x": x})["out"], x)
    assert [p.id for p in net.get_profiling_info() if p.status == "EXECUTED"] == ["out"]


@dataclass(frozen=True)
class _BfyxOnly(Primitive):
    """A test primitive (copy) whose only kernel accepts bfyx input."""

    input: str = ""
    type_name: ClassVar[str] = "test_bfyx_only"

    def dependencies(self):
        return [self.input]

    def calc_output_layout(self, inputs):
        return inputs[0].with_(format=F.bfyx, padding=cl.Padding())


@register
class _BfyxOnlyKernel(KernelBase):
    name = "test_bfyx_only_ref"
    primitive = "test_bfyx_only"

    def supported_key(self):
        return SupportedKey(input_formats=frozenset({F.bfyx}))

    def kernel_data(self, params):
        tpl = ("KERNEL(copy)(const __global float* input, __global float* output) {"
               " const uint i = get_global_id(0); output[i] = input[i]; }\n")
        entry, src = self.make_source(self.jit_constants(params), tpl)
        return KernelData(self.name, [ClKernelData(entry, src, (params.output.count(),), None, self.args(params))])


@register
class _BfyxOnlyCpuKernel(CpuKernelBase):
    name = "test_bfyx_only_cpu_ref"
    primitive = "test_bfyx_only"

    def supported_key(self):
        return SupportedKey(engines=CPU, input_formats=frozenset({F.bfyx}))

    def make_fn(self, params):
        x, out = params.inputs[0], params.output

        def fn(src, dst):
            typed(dst, out)[:out.count()] = typed(src, x)[:x.count()]

        return fn


def test_required_reorder_inserted_when_no_kernel_takes_the_format(engine, rng):
    topo = cl.Topology(cl.InputLayout("x", L), cl.Reorder("blk", "x", F.b_fs_yx_fsv16),
                       cl.Activation("act", "blk", "tanh"), _BfyxOnly("copy", "act"))
    b = _run(engine, topo, AddRequiredReorders())
    assert graph(b) == (["x", "blk", "act", "copy__act__bfyx", "copy"],
                        {("x", "blk"), ("blk", "act"), ("act", "copy__act__bfyx"), ("copy__act__bfyx", "copy")})
    assert b.nodes["copy__act__bfyx"].layout().format == F.bfyx
    x = rng.standard_normal(L.shape).astype(np.float32)
    for opt in (True, False):  # correctness needs it: it runs without optimizations too
        net = cl.Network(cl.Program(engine, topo, cl.BuildOptions(optimize_data=opt)))
        np.testing.assert_allclose(net.run({"x": x})["copy"], np.tanh(x), rtol=1e-6)
    from cldnn_py.passes.compile_graph import node_params
    from kernel_selector import selector

    b = _run(engine, topo)  # without the pass the selector has nothing for the blocked input
    with pytest.raises(cl.UnsupportedError, match="test_bfyx_only_(cpu_)?ref: rejected: input 0 format b_fs_yx_fsv16"):
        selector.select(node_params(b, b.nodes["copy"]))
