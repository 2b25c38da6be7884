"""graph_initializations: compute every node's output layout in dependency order.

Each primitive's ``calc_output_layout`` checks its inputs (weights vs convolution, broadcasting ...) and raises
ShapeError naming the primitive; nothing downstream runs on a wrong shape. A layout whose buffer is larger than the
device's max allocation (``info.max_alloc_bytes``) is refused here, before anything is allocated, with a DeviceError
naming the primitive and the size in bytes (sizes are Python integers: ``Layout.bytes`` cannot wrap around).
"""

from __future__ import annotations

from ..errors import DeviceError
from ..pass_manager import BasePass
from ..program_graph import ProgramGraph


class GraphInitializations(BasePass):
    """Sets ``node.output_layout`` for all nodes."""

    name = "graph_initializations"

    def run(self, program: ProgramGraph) -> None:
        """Walk ``program.order`` and compute layouts from the dependencies' layouts."""
        for node in program.order:
            self.node = node.id
            lay = node.primitive.calc_output_layout([d.layout() for d in node.dependencies])
            limit = program.engine.info.max_alloc_bytes
            if lay.bytes > limit:
                raise DeviceError(f"{node.kind} '{node.id}': output {lay} needs {lay.bytes} bytes, more than the "
                                  f"device's max allocation of {limit} bytes")
            node.output_layout = lay
