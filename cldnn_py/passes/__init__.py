"""PIPELINE: the ordered list of graph passes a Program runs; the one place to read the flow.

clDNN's ``build_program`` order, adapted. With ``BuildOptions(optimize_data=False)`` only the passes correctness
needs run (layouts, trimming, flags, kernel selection and build), for debugging and for tests comparing the two.
Deviations from clDNN's order, on purpose: weights are reordered into the kernel's packed format by
reorder_inputs (the layout optimizer already knows which kernel will run) and folded by propagate_constants, so
there is no separate post_optimize_weights pass and no second remove_redundant_reorders after compile_graph (no
reorder is added after it). propagate_constants runs before prepare_buffer_fusing (a constant concat becomes Data,
not an in-place buffer) and prepare_padding runs last (the inputs of an in-place concat keep their slice layout).
"""

from __future__ import annotations

import numpy as np

from ..pass_manager import BasePass
from ..topology import Topology
from .add_required_reorders import AddRequiredReorders
from .compile_graph import CompileGraph
from .convert_precision import ConvertPrecision
from .densify_grouped_convolutions import DensifyGroupedConvolutions
from .fold_channel_shuffle import FoldChannelShuffle
from .fold_gelu import FoldGelu
from .fold_layer_norm import FoldLayerNorm
from .fuse_pool_into_conv import FusePoolIntoConv
from .fuse_shuffle_into_stores import FuseShuffleIntoStores
from .graph_initializations import GraphInitializations
from .mark_nodes import MarkNodes
from .plain_inputs import PlainInputs
from .prepare_buffer_fusing import PrepareBufferFusing
from .prepare_memory_dependencies import PrepareMemoryDependencies
from .prepare_padding import PreparePadding
from .prepare_primitive_fusing import PreparePrimitiveFusing
from .propagate_constants import Evaluate, PropagateConstants
from .remove_redundant_reorders import RemoveRedundantReorders
from .reorder_inputs import ReorderInputs
from .trim_to_outputs import TrimToOutputs
from .winograd_convolutions import WinogradConvolutions


def _no_evaluate(topology: Topology) -> dict[str, np.ndarray]:
    raise RuntimeError("propagate_constants needs an evaluate callback: pipeline(optimize_data, evaluate=...)")


def pipeline(optimize_data: bool = True, evaluate: Evaluate | None = None) -> list[BasePass]:
    """Fresh pass instances in order. ``optimize_data=False`` keeps only what correctness needs. ``evaluate`` runs a
    constant subgraph for propagate_constants (Program passes its own; without it, a graph with constant subgraphs
    to fold raises RuntimeError, and listing the passes works as before)."""
    passes: list[BasePass] = [GraphInitializations(), TrimToOutputs(), MarkNodes(), PlainInputs()]
    if optimize_data:
        passes += [FoldChannelShuffle(), FoldLayerNorm(), FoldGelu(), PreparePrimitiveFusing(),
                   DensifyGroupedConvolutions(), ReorderInputs(), WinogradConvolutions()]
    passes += [ConvertPrecision(), AddRequiredReorders()]
    if optimize_data:
        passes += [RemoveRedundantReorders(), FuseShuffleIntoStores(), FusePoolIntoConv(),
                   PropagateConstants(evaluate or _no_evaluate),
                   PrepareBufferFusing(), PreparePadding()]
    passes += [CompileGraph()]
    if optimize_data:
        passes += [PrepareMemoryDependencies()]
    return passes


PIPELINE: list[str] = [p.name for p in pipeline()]
