"""``InferenceSession``: onnxruntime's call shapes over the engine, for the common subset.

::

    sess = cldnn_py.InferenceSession("model.onnx")            # or bytes; device=, fallback="onnxruntime"
    [i.name for i in sess.get_inputs()]                        # NodeArg: name, shape, type
    probs, = sess.run(None, {"data": x})                       # outputs as a list, in the asked order

What differs from onnxruntime: ``sess_options`` and ``providers`` are accepted and ignored (the device is
``device=``, ``"cpu"`` for the numba engine; unsupported nodes run in onnxruntime only with
``fallback="onnxruntime"``); errors are cldnn_py's (:class:`~cldnn_py.errors.CldnnError` and its subclasses, which
name the input or output), not onnxruntime's; there is no ``run_async``, IOBinding or ``end_profiling``
(``network.get_profiling_info()`` has the per-primitive times).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from .build_options import BuildOptions
from .engine import Engine
from .errors import TopologyError
from .io_signature import TensorSignature
from .warm_start import compiled_network

_ORT_TYPE = {"float32": "float", "float64": "double", "bool": "bool"}


@dataclass(frozen=True)
class NodeArg:
    """An input or output as onnxruntime describes it: ``name``, ``shape`` (an int per static dimension, the symbol
    as a str for a named dynamic one, None for an unnamed one) and ``type`` (``"tensor(float)"``,
    ``"tensor(int64)"`` ...)."""

    name: str
    shape: list[int | str | None]
    type: str


def node_arg(sig: TensorSignature) -> NodeArg:
    """The NodeArg of a declared tensor signature."""
    dt = np.dtype(sig.dtype).name
    dims = list(sig.dims) if sig.dims is not None else []
    return NodeArg(sig.name, dims, f"tensor({_ORT_TYPE.get(dt, dt)})")


class InferenceSession:
    """An ONNX model compiled for one device, called as an onnxruntime ``InferenceSession`` is.

    Args:
        path_or_bytes: the model file's path, its bytes, or an ``onnx.ModelProto``.
        sess_options, providers, provider_options: accepted for onnxruntime compatibility and ignored.
        device: the engine's device spec (``"cl:P:D"``, ``"cpu"``; default: ``Engine()``'s choice) or an Engine.
        fallback: ``"none"`` (unsupported nodes are an error) or ``"onnxruntime"`` (they run there: partitioning).
        input_shapes: {input name: shape} to fix dynamic dimensions at build (optional; otherwise each new input
            shape builds its specialization on first use).
        options: BuildOptions for the engine (precision and other build options).
    A static model's compiled Program comes from the warm-start cache when it is there (``cldnn_py/warm_start.py``:
    a second start runs no import, pass or kernel choice), and is stored there otherwise; so do a dynamic model's
    specializations, one per input signature.
    Raises:
        OnnxImportError, UnsupportedError, ShapeError: as ``load_onnx``; the build's errors (KernelBuildError,
        DeviceError).
    """

    def __init__(self, path_or_bytes: Any, sess_options: Any = None, providers: Any = None,
                 provider_options: Any = None, *, device: str | Engine | None = None, fallback: str = "none",
                 input_shapes: dict[str, tuple[int, ...]] | None = None, options: BuildOptions | None = None) -> None:
        self.engine = device if isinstance(device, Engine) else Engine(device)
        # a static model's Program from the warm-start cache (or built and stored there); a dynamic model's
        # specializations go through the same cache
        self.network, got = compiled_network(path_or_bytes, self.engine, input_shapes, options, fallback)
        self._inputs = dict(got.input_signature)
        self._output_sigs = dict(got.output_signature)
        self._fallback = fallback
        self._outputs = list(self._output_sigs)  # every graph output, in declared order

    def get_inputs(self) -> list[NodeArg]:
        """The model's inputs (initializers excluded), in declared order."""
        return [node_arg(s) for s in self._inputs.values()]

    def get_outputs(self) -> list[NodeArg]:
        """The model's outputs, in declared order."""
        return [node_arg(self._output_sigs[n]) for n in self._outputs]

    def get_providers(self) -> list[str]:
        """``["CldnnPyExecutionProvider"]``, plus ``"CPUExecutionProvider"`` (onnxruntime) with fallback."""
        return ["CldnnPyExecutionProvider"] + (["CPUExecutionProvider"] if self._fallback == "onnxruntime" else [])

    def run(self, output_names: list[str] | None, input_feed: dict[str, Any], run_options: Any = None
            ) -> list[np.ndarray]:
        """Run once; the outputs named in ``output_names`` (all outputs, in declared order, when None or empty) as
        a list of arrays in that order, in their declared dtypes.

        Raises TopologyError naming an output that the model does not have (and the outputs it has), and
        ``Network.run``'s errors for the feeds (an unknown or missing input, a wrong dtype or shape)."""
        names = list(output_names) if output_names else self._outputs
        unknown = [n for n in names if n not in self._outputs]
        if unknown:
            raise TopologyError(f"run: output(s) {unknown} are not outputs of the model (outputs: {self._outputs})")
        got = self.network.run(dict(input_feed))
        return [got[n] for n in names]
