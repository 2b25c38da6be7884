"""PIPELINE: the ordered list of graph passes a Program runs; the one place to read the flow.

clDNN's ``build_program`` order, adapted; later issues add reorder_inputs, prepare_primitive_fusing,
prepare_padding, prepare_buffer_fusing, propagate_constants and prepare_memory_dependencies between these.
"""

from __future__ import annotations

from ..pass_manager import BasePass
from .compile_graph import CompileGraph
from .graph_initializations import GraphInitializations
from .mark_nodes import MarkNodes
from .prepare_buffer_fusing import PrepareBufferFusing
from .prepare_memory_dependencies import PrepareMemoryDependencies
from .prepare_primitive_fusing import PreparePrimitiveFusing
from .propagate_constants import PropagateConstants
from .reorder_inputs import ReorderInputs
from .trim_to_outputs import TrimToOutputs


def pipeline(optimize_data: bool = True) -> list[BasePass]:
    """Fresh pass instances in order. ``optimize_data=False`` keeps only what correctness needs."""
    passes: list[BasePass] = [GraphInitializations(), TrimToOutputs(), MarkNodes()]
    if optimize_data:
        passes += [PreparePrimitiveFusing(), ReorderInputs(), PropagateConstants(), PrepareBufferFusing()]
    passes += [CompileGraph()]
    if optimize_data:
        passes += [PrepareMemoryDependencies()]
    return passes


PIPELINE: list[str] = [p.name for p in pipeline()]
