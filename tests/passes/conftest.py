"""Fixtures of the pass tests.

``graph_engine``: for tests that run passes on a ProgramBuilder and stop before compile_graph. Those passes read
only the engine's ``kind`` (the kernel_selector matches kernels on it, e.g. reorder_inputs asks which convolution
kernels validate) and ``info``; they build, allocate and run nothing, so no OpenCL device is needed. The "cpu"
case is the real CPU engine; the "ocl" case is ``GraphOnlyEngine``, which has ``kind == "ocl"`` and a DeviceInfo
and fails the test on any other attribute (a pass that starts needing the device shows up as a failure, not as a
silent fallback). Tests that compile, run a network, or run propagate_constants (it runs one) use ``engine``.
"""

from __future__ import annotations

import dataclasses
import os

import pytest

# Same kinds, same test ids ([ocl], [cpu]) as the root conftest's ``engine`` fixture.
ENGINES = [e for e in os.environ.get("CLDNN_PY_TEST_ENGINES", "ocl,cpu").split(",") if e]


class GraphOnlyEngine:
    """An engine with a kind and a DeviceInfo and nothing else: enough for the passes before compile_graph."""

    def __init__(self, kind: str) -> None:
        from cldnn_py.cpu_engine import cpu_device_info

        self.kind = kind
        self.info = dataclasses.replace(cpu_device_info(), spec=f"{kind} (graph only)",
                                        name="no device: passes before compile_graph")

    def __getattr__(self, name: str):
        raise AssertionError(f"GraphOnlyEngine has no {name!r}: this pass needs a real engine (use the engine "
                             "fixture)")

    def __repr__(self) -> str:
        return f"GraphOnlyEngine({self.kind!r})"


@pytest.fixture(scope="session", params=ENGINES)
def graph_engine(request):
    """The CPU engine ("cpu") or a device-less stand-in of kind "ocl" (see the module docstring)."""
    import cldnn_py as cl

    return cl.Engine("cpu") if request.param == "cpu" else GraphOnlyEngine(request.param)
