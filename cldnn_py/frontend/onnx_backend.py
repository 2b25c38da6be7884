"""cldnn_py as an ``onnx.backend.base.Backend``: run ONNX models (and ONNX's node conformance cases) on the engine.

``CldnnBackend.prepare(model)`` imports with ``load_onnx`` and builds a Network on the default OpenCL device (or
``engine=``); ``rep.run(inputs)`` feeds the graph inputs in order (int64 → i32, bool → u8, as the engine stores
them) and returns the outputs in graph order, cast back to the dtypes and shapes the model declares.

Integer graph inputs that a converter needs as constants (Reduce* ``axes``, Reshape ``shape`` ... given as graph
inputs, as many conformance cases do): when the plain import fails, the model is imported again at ``run`` with
its int32/int64 graph inputs bound to the fed values (as initializers), one Network per distinct value set; a
graph input of another type that an error names as needing to be a constant (Resize ``scales``, Pad
``constant_value`` ...) is bound as well. Fed inputs that no output depends on (trimmed) are ignored.
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np
from onnx import ModelProto, TensorProto, numpy_helper
from onnx.backend.base import Backend, BackendRep

from ..engine import Engine
from ..errors import ShapeError, UnsupportedError
from ..network import Network
from .onnx import load_onnx
from .onnx_context import onnx_dtype_to_numpy, to_device_array

_ENGINE: Engine | None = None


def _default_engine() -> Engine:
    global _ENGINE
    if _ENGINE is None:
        _ENGINE = Engine()
    return _ENGINE


def _needed_constant(error: Exception, input_names: list[str]) -> str | None:
    """The graph input an import error says must be a constant (``tensor 'x' must be a constant``), or None."""
    m = re.search(r"tensor '([^']+)' must be a constant", str(error))
    return m.group(1) if m and m.group(1) in input_names else None


class CldnnBackendRep(BackendRep):
    """A prepared model: its Network and the graph's input/output names, dtypes and shapes."""

    def __init__(self, model: Any, engine: Engine) -> None:
        init = {i.name for i in model.graph.initializer}
        self.input_names = [i.name for i in model.graph.input if i.name not in init]
        self.outputs = []
        for o in model.graph.output:
            t = o.type.tensor_type
            shape = tuple(d.dim_value for d in t.shape.dim) if t.HasField("shape") else None
            if shape is not None and any(s <= 0 for s in shape):
                shape = None
            self.outputs.append((o.name, onnx_dtype_to_numpy(t.elem_type), shape))
        self.model, self.engine = model, engine
        self.bound_inputs: list[str] = []  # integer inputs bound as constants at run time (see module docstring)
        self._specialized: dict[tuple, Network] = {}
        try:
            self.network: Network | None = Network(engine, load_onnx(model))
        except (UnsupportedError, ShapeError) as e:
            self.bound_inputs = [i.name for i in model.graph.input if i.name not in init
                                 and i.type.tensor_type.elem_type in (TensorProto.INT64, TensorProto.INT32)]
            named = _needed_constant(e, self.input_names)
            if named is not None and named not in self.bound_inputs:
                self.bound_inputs.append(named)  # e.g. Resize scales, Pad constant_value given as float inputs
            if not self.bound_inputs:  # with integer inputs bound, the import may succeed (or fail) at run
                raise
            self.network = None

    def _network_for(self, feeds: dict[str, np.ndarray]) -> Network:
        """The Network, or the one specialized to the fed values of the bound integer inputs."""
        if self.network is not None:
            return self.network
        while True:  # a graph input named by a "must be a constant" error is bound too, one at a time
            key = tuple((n, feeds[n].dtype.str, feeds[n].shape, feeds[n].tobytes()) for n in self.bound_inputs)
            if key in self._specialized:
                return self._specialized[key]
            m = ModelProto()
            m.CopyFrom(self.model)
            for n in self.bound_inputs:
                m.graph.initializer.append(numpy_helper.from_array(feeds[n], n))
            try:
                self._specialized[key] = Network(self.engine, load_onnx(m))
            except UnsupportedError as e:
                named = _needed_constant(e, self.input_names)
                if named is None or named in self.bound_inputs:
                    raise
                self.bound_inputs.append(named)

    def run(self, inputs: Any, **kwargs: Any) -> tuple[np.ndarray, ...]:
        """Run with inputs given as a list (graph order) or a dict; returns the outputs in graph order."""
        if isinstance(inputs, dict):
            feeds = dict(inputs)
        else:
            if isinstance(inputs, np.ndarray):
                inputs = [inputs]
            feeds = dict(zip(self.input_names, inputs))
        feeds = {k: np.asarray(v) for k, v in feeds.items()}
        network = self._network_for(feeds)
        used = set(network.input_ids)  # graph inputs no output depends on are trimmed from the network
        feeds = {k: to_device_array(v) for k, v in feeds.items() if k not in self.bound_inputs and k in used}
        feeds = {k: (v.reshape(1) if v.ndim == 0 else v) for k, v in feeds.items()}
        outs = network.run(feeds)
        result = []
        for name, dtype, shape in self.outputs:
            a = outs[name]
            if shape is not None and a.size == int(np.prod(shape)):
                a = a.reshape(shape)  # rank-0 outputs are stored as (1,)
            result.append(a.astype(dtype))
        return tuple(result)


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
