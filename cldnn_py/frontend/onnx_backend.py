"""cldnn_py as an ``onnx.backend.base.Backend``: run ONNX models (and ONNX's node conformance cases) on the engine.

``CldnnBackend.prepare(model)`` is ``Network(engine, load_onnx(model))`` on the default OpenCL device (or
``engine=``); ``rep.run(inputs)`` feeds the graph inputs in order and returns the outputs in graph order. Nothing
here is special: the Network takes the model's own dtypes and ranks, specializes dynamic dimensions and
shape-determining inputs per signature (``cldnn_py/dynamic_network.py``), and returns the declared dtypes.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from onnx.backend.base import Backend, BackendRep

from ..engine import Engine
from ..network import Network
from .onnx import load_onnx

_ENGINE: Engine | None = None


def _default_engine() -> Engine:
    global _ENGINE
    if _ENGINE is None:
        _ENGINE = Engine()
    return _ENGINE


class CldnnBackendRep(BackendRep):
    """A prepared model: its Network and the graph's input and output names."""

    def __init__(self, model: Any, engine: Engine) -> None:
        init = {i.name for i in model.graph.initializer}
        self.input_names = [i.name for i in model.graph.input if i.name not in init]
        self.output_names = [o.name for o in model.graph.output]
        self.network = Network(engine, load_onnx(model))

    def run(self, inputs: Any, **kwargs: Any) -> tuple[np.ndarray, ...]:
        """Run with inputs given as a list (graph order) or a dict; returns the outputs in graph order."""
        if isinstance(inputs, dict):
            feeds = dict(inputs)
        else:
            if isinstance(inputs, np.ndarray):
                inputs = [inputs]
            feeds = dict(zip(self.input_names, inputs))
        outs = self.network.run({k: np.asarray(v) for k, v in feeds.items()})
        return tuple(outs[n] for n in self.output_names)


class CldnnBackend(Backend):
    """The ONNX backend interface over cldnn_py. ``device`` is "CPU" (PoCL runs on the CPU) or "OCL"."""

    @classmethod
    def prepare(cls, model: Any, device: str = "CPU", **kwargs: Any) -> CldnnBackendRep:
        """Import and build; ``engine=`` chooses the Engine (default: one shared default Engine)."""
        engine = kwargs.get("engine") or _default_engine()
        return CldnnBackendRep(model, engine)

    @classmethod
    def supports_device(cls, device: str) -> bool:
        """CPU and OCL (both mean the default OpenCL device)."""
        return device in ("CPU", "OCL")
