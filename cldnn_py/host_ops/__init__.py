"""Operators that run on the host inside a Network: those whose output size depends on the data.

A kernel here knows its output's size only after it has run (NonMaxSuppression keeps a data-dependent number of
boxes, NonZero a data-dependent number of indices), while the engine's programs fix every size at build time. As
OpenVINO's GPU plugin runs such operators on the CPU between device stages, ``load_onnx`` cuts the graph around
them (``frontend/onnx_partition.py``): they, and the light index plumbing that reads their results (``FOLLOWERS``:
Gather, Slice, Squeeze, Concat, Cast ... of those results), form *host stages* of a partitioned network
(``partitioned_network.py``), and every other node stays in engine stages. A host stage runs its ONNX subgraph
with the ``onnx`` package's reference evaluator (numpy; no code from the model runs), with the operators of
``KERNELS`` replaced by the vectorized kernels of this package. ``get_profiling_info`` lists each host stage as
one entry of type ``host``.

An engine stage that reads a host stage's result sees a data-dependent size: it is a dynamic topology, specialized
per size (``dynamic_network.py``); see docs/onnx.md for what a new size costs.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..errors import CldnnError, ShapeError
from .non_max_suppression import non_max_suppression

HOST_OPS: dict[str, frozenset[int]] = {
    "NonMaxSuppression": frozenset({10, 11}),
    "NonZero": frozenset({9, 13}),
    "Unique": frozenset({11, 28}),
    "Compress": frozenset({9, 11, 28}),
}
"""Operator → the ONNX operator versions (since_version) run on the host."""

FOLLOWERS: frozenset[str] = frozenset({
    "Gather", "GatherElements", "GatherND", "Slice", "Squeeze", "Unsqueeze", "Reshape", "Flatten", "Concat", "Split",
    "Cast", "Shape", "Size", "Identity", "Transpose", "Expand", "Tile", "ConstantOfShape", "Range", "Where", "Not",
    "Equal", "Greater", "GreaterOrEqual", "Less", "LessOrEqual", "And", "Or", "Add", "Sub", "Mul", "Div", "Mod",
    "Min", "Max", "Clip", "Floor", "Ceil", "Round", "Abs", "Neg", "ReduceMax", "ReduceMin", "ReduceSum", "ArgMax",
    "ArgMin", "TopK", "ScatterND", "ScatterElements",
})
"""Light operators that join a host stage when they read a host operator's result (directly or through other
followers): index plumbing after NonMaxSuppression, which would otherwise make an engine stage specialize per
data-dependent size for a few microseconds of work."""


def _nms_op() -> Any:
    from onnx.reference.op_run import OpRun

    class NonMaxSuppression(OpRun):  # the reference evaluator's interface: _run(inputs..., attributes...)
        op_domain = ""

        def _run(self, boxes, scores, max_output_boxes_per_class=None, iou_threshold=None,
                 score_threshold=None, center_point_box=None):
            return (non_max_suppression(boxes, scores, max_output_boxes_per_class, iou_threshold, score_threshold,
                                        int(center_point_box or 0), what=f"NonMaxSuppression '{self.onnx_node.name}'"),)

    return NonMaxSuppression


class HostRunner:
    """Runs one host stage: ``model`` (a serialized ONNX ModelProto of the stage's subgraph) with the onnx reference
    evaluator, NonMaxSuppression replaced by :func:`non_max_suppression`. ``run(outputs, feeds)`` as an onnxruntime
    session's: the arrays of ``outputs`` (tensor names) for ``feeds`` ({input name: array}).

    Raises CldnnError naming the stage when the evaluator refuses the subgraph (at construction) or a node fails at
    run time (ShapeError from the kernels here passes through unchanged)."""

    def __init__(self, model: bytes, name: str) -> None:
        import onnx
        from onnx.reference import ReferenceEvaluator

        self.name = name
        try:
            self._eval = ReferenceEvaluator(onnx.load_from_string(model), new_ops=[_nms_op()])
        except Exception as e:  # noqa: BLE001 - the evaluator raises its own exception types
            raise CldnnError(f"{name}: the host stage cannot be prepared: {type(e).__name__}: {e}") from None

    def run(self, outputs: list[str], feeds: dict[str, np.ndarray]) -> list[np.ndarray]:
        """The arrays of ``outputs`` computed from ``feeds``; see the class docstring for errors."""
        try:
            got = self._eval.run(outputs, feeds)
        except ShapeError:
            raise
        except Exception as e:  # noqa: BLE001 - numpy / evaluator errors on bad values
            raise CldnnError(f"{self.name}: a host operator failed: {type(e).__name__}: {e}") from None
        return [np.asarray(a) for a in got]


__all__ = ["FOLLOWERS", "HOST_OPS", "HostRunner", "non_max_suppression"]
