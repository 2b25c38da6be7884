"""compile_graph: every node that runs gets a selected kernel; identical kernel sources are built once."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np
import pytest

import cldnn_py as cl
from cldnn_py.passes import pipeline
from cldnn_py.primitives.base import Primitive
from kernel_selector import ClKernelData, CpuKernelData, KernelBase, KernelData, register
from tests.passes.graphs import builder

L = cl.Layout(cl.DataType.f32, cl.Format.bfyx, (1, 4, 5, 5))


def test_impls_selected_and_duplicates_built_once(engine):
    if engine.kind != "ocl":
        pytest.skip("OpenCL sources and batched builds; the CPU engine's case is the next test")
    topo = cl.Topology(cl.InputLayout("a", L), cl.InputLayout("b", L),
                       cl.Activation("relu_a", "a"), cl.Activation("relu_b", "b"),  # same kernel source
                       cl.Activation("tanh_a", "a", "tanh"),  # beside relu_a: an activation after it would fuse
                       cl.Eltwise("sum", ["tanh_a", "relu_b", "relu_a"]))
    b = builder(engine, topo)
    assert all(n.impl is None for n in b.nodes.values())
    pm = cl.program.PassManager()
    pm.run(b, pipeline())
    kernels = {n.id: (n.impl.kernel_name if n.impl else None) for n in b.order}
    assert kernels["a"] is None and kernels["b"] is None  # inputs run no kernel
    assert kernels["relu_a"] == kernels["relu_b"] == kernels["tanh_a"]
    assert kernels["relu_a"].startswith("activation_")  # activation_vec8 on a CPU device, the ref or GPU tier else
    assert kernels["sum"] is not None
    entries = {n.id: n.impl.kernels[0].entry for n in b.order if n.impl}
    assert entries["relu_a"] == entries["relu_b"] != entries["tanh_a"]
    assert b.kernels_built == len(set(entries.values()))
    assert set(b.entry_program) == set(entries.values())


def test_cpu_engine_selects_callables_and_builds_no_opencl(engine):
    if engine.kind != "cpu":
        pytest.skip("the CPU engine's case")
    topo = cl.Topology(cl.InputLayout("a", L), cl.Activation("relu_a", "a"), cl.Activation("tanh_a", "relu_a", "tanh"))
    prog = cl.Program(engine, topo)
    impls = [prog.node(i).impl for i in ("tanh_a",)]
    assert all(i is not None and all(isinstance(k, CpuKernelData) for k in i.kernels) for i in impls)
    assert prog.cl_programs == [] and prog.kernels_built == 0


def test_pipeline_order_is_declared_in_one_place():
    from cldnn_py.passes import PIPELINE, pipeline

    assert PIPELINE[0] == "graph_initializations" and PIPELINE[-1] == "prepare_memory_dependencies"
    assert {"trim_to_outputs", "mark_nodes", "compile_graph"} <= set(PIPELINE)
    assert [p.name for p in pipeline(optimize_data=False)] == [
        "graph_initializations", "trim_to_outputs", "mark_nodes", "plain_inputs", "convert_precision",
        "add_required_reorders", "compile_graph"]


@dataclass(frozen=True)
class _Clash(Primitive):
    """A test primitive whose kernel template defines an unguarded helper function."""

    input: str = ""
    type_name: ClassVar[str] = "test_clash"

    def dependencies(self):
        return [self.input]

    def calc_output_layout(self, inputs):
        return inputs[0]


@register
class _ClashKernel(KernelBase):
    name = "test_clash_ref"
    primitive = "test_clash"

    def kernel_data(self, params):
        tpl = ("inline float clash_helper(float v) { return v * 2.0f; }\n"
               "KERNEL(clash)(const __global float* input, __global float* output) {"
               " const uint i = get_global_id(0); output[i] = clash_helper(input[i]) + OUTPUT_LENGTH; }\n")
        entry, src = self.make_source(self.jit_constants(params), tpl)
        return KernelData(self.name, [ClKernelData(entry, src, (params.output.count(),), None, self.args(params))])


def test_clashing_templates_fall_back_to_one_program_each(engine, rng):
    if engine.kind != "ocl":
        pytest.skip("OpenCL program batching")
    topo = cl.Topology(cl.InputLayout("a", cl.Layout(cl.DataType.f32, cl.Format.bfyx, (3,))),
                       cl.InputLayout("b", cl.Layout(cl.DataType.f32, cl.Format.bfyx, (5,))),
                       _Clash("ca", "a"), _Clash("cb", "b"))
    prog = cl.Program(engine, topo, cl.BuildOptions(optimize_data=False))
    assert len(prog.cl_programs) == 2  # the batched build clashed (clash_helper defined twice)
    a, b = rng.standard_normal(3).astype(np.float32), rng.standard_normal(5).astype(np.float32)
    out = cl.Network(prog).run({"a": a, "b": b})
    np.testing.assert_allclose(out["ca"], 2 * a + 3, rtol=1e-6)
    np.testing.assert_allclose(out["cb"], 2 * b + 5, rtol=1e-6)


@pytest.mark.parametrize("per_program", [2, 256])
def test_kernels_are_built_in_batches_of_the_engines_size(ocl_engine, rng, monkeypatch, per_program):
    """Five distinct activation kernels: ceil(5 / per_program) programs, every entry in one of them, and the
    network's results right whichever program holds a kernel."""
    monkeypatch.setattr(type(ocl_engine), "kernels_per_program", property(lambda self: per_program))
    funcs = ["relu", "tanh", "logistic", "abs", "exp"]
    topo = cl.Topology(cl.InputLayout("a", cl.Layout(cl.DataType.f32, cl.Format.bfyx, (7,))))
    prev = "a"
    for f in funcs:
        topo.add(cl.Activation(f, prev, f))
        prev = f
    prog = cl.Program(ocl_engine, topo, cl.BuildOptions(optimize_data=False))
    assert prog.kernels_built == 5 and len(prog.cl_programs) == -(-5 // per_program)
    assert sorted(set(prog.entry_program.values())) == list(range(len(prog.cl_programs)))
    x = rng.standard_normal(7).astype(np.float32)
    net = cl.Network(prog)
    net.poison()
    ref = np.exp(np.abs(1 / (1 + np.exp(-np.tanh(np.maximum(x.astype(np.float64), 0))))))
    np.testing.assert_allclose(net.run({"a": x})["exp"], ref, rtol=1e-5)
