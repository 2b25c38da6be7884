"""On a described GPU (kernel_selector.device_caps.GPU_LIKE: no device needed), the kernel selector picks a GPU-tier
kernel for every node of the zoo networks that runs a kernel; on a CPU device the same graphs keep the CPU tier.

The graphs go through every pass before compile_graph (fusing, layout choice with reorders, constant folding on the
CPU engine, buffer fusing, padding) with an engine stand-in of kind "ocl" whose DeviceInfo carries the capabilities,
then each node's Params is asked of the selector, as compile_graph would."""

from __future__ import annotations

import dataclasses

import pytest

import cldnn_py as cl
from cldnn_py.cpu_engine import cpu_device_info
from cldnn_py.frontend import load_onnx
from cldnn_py.kernel_params import node_params
from cldnn_py.passes import pipeline
from cldnn_py.program import _evaluate_constants
from cldnn_py.program_graph import ProgramGraph
from cldnn_py.tools import zoo
from kernel_selector import selector
from kernel_selector.device_caps import GPU_LIKE, DeviceCaps

NO_KERNEL = {"data", "input_layout"}


class DescribedEngine:
    """kind "ocl" and a DeviceInfo with the given capabilities; nothing else (the passes before compile_graph)."""

    def __init__(self, caps: DeviceCaps) -> None:
        self.kind = "ocl"
        self.info = dataclasses.replace(cpu_device_info(), spec="described", name=caps.name, caps=caps,
                                        max_work_group_size=caps.max_work_group_size)


def chosen(name: str, caps: DeviceCaps) -> dict[str, tuple[str, str]]:
    """{node id: (primitive type, kernel name)} of the zoo model ``name`` at batch 1 on a device with ``caps``."""
    model = zoo.make_model(name, seed=0, batch=1, check=False)
    topo = load_onnx(model)
    cpu = cl.Engine("cpu")
    graph = ProgramGraph(DescribedEngine(caps), topo, cl.BuildOptions())  # type: ignore[arg-type]
    passes = [p for p in pipeline(True, evaluate=lambda t: _evaluate_constants(cpu, t))
              if p.name not in ("compile_graph", "prepare_memory_dependencies")]
    for p in passes:
        p.run(graph)
    out = {}
    for node in graph.order:
        if node.optimized_out or node.kind in NO_KERNEL or node.id not in graph.nodes:
            continue
        kernel, _ = selector.select(node_params(graph, node))
        out[node.id] = (node.kind, kernel.name)
    return out


# VGG-19 and ZFNet-512 are left out (11 s and 5 s, most of it folding their fully connected weights on the CPU
# engine): plain stacks of convolution, pooling and fully connected layers, the primitives AlexNet's case asks for.
SELECTED = sorted(set(zoo.MODELS) - {"vgg19", "zfnet512"})


@pytest.mark.network
@pytest.mark.parametrize("name", SELECTED)
def test_described_gpu_picks_the_gpu_tier_everywhere(name):
    picks = chosen(name, GPU_LIKE)
    tiers = {k.name: k.tier for prim in {kind for kind, _ in picks.values()} for k in selector_candidates(prim)}
    not_gpu = sorted({(kind, kern) for kind, kern in picks.values() if tiers.get(kern) != "gpu"})
    assert not not_gpu, f"{name}: primitives without a GPU-tier kernel on a GPU: {not_gpu}"


@pytest.mark.network
def test_cpu_device_keeps_the_cpu_tier():
    picks = chosen("squeezenet", DeviceCaps())
    tiers = {k.name: k.tier for prim in {kind for kind, _ in picks.values()} for k in selector_candidates(prim)}
    assert not any(tiers.get(kern) == "gpu" for _, kern in picks.values())
    assert any(tiers.get(kern) == "cpu" for _, kern in picks.values())  # the register-tiled fsv16 convolution


def selector_candidates(prim: str):
    from kernel_selector.selector import candidates

    return [k for k in candidates(prim) if k.engine == "ocl"]
