"""BasePass and PassManager: run the PIPELINE in order, time and log each pass, dump the graph as DOT.

With ``CLDNN_PY_DUMP_GRAPHS=DIR`` the graph is written to ``DIR/NN_<pass>.dot`` after every pass. A pass that
raises keeps its exception type; a note says which pass failed after which passes (as torch.fx's pass manager).
"""

from __future__ import annotations

import logging
import os
import time
from typing import TYPE_CHECKING

from . import env

if TYPE_CHECKING:
    from .program_graph import ProgramGraph

log = logging.getLogger("cldnn_py.pass_manager")


class BasePass:
    """A graph pass. Subclasses set ``name`` (clDNN's pass name) and implement ``run``; while walking nodes they
    keep ``self.node`` at the id of the node at hand, so an error names it."""

    name = "base_pass"
    node: str | None = None

    def run(self, program: ProgramGraph) -> None:
        """Transform the program graph in place."""
        raise NotImplementedError


def to_dot(program: ProgramGraph) -> str:
    """The graph in Graphviz DOT: one box per node with id, type, output layout and kernel."""
    lines = ["digraph program {", "  node [shape=box, fontsize=10];"]
    for n in program.order:
        kernel = n.impl.kernel_name if n.impl else ("optimized out" if n.optimized_out else "")
        label = f"{n.id}\\n{n.kind}\\n{n.output_layout}\\n{kernel}"
        style = ", style=bold" if n.is_output else (", style=dashed" if n.constant else "")
        lines.append(f'  "{n.id}" [label="{label}"{style}];')
        for d in n.dependencies:
            lines.append(f'  "{d.id}" -> "{n.id}";')
    lines.append("}")
    return "\n".join(lines) + "\n"


class PassManager:
    """Runs passes in order; ``timings_ms`` records each pass's wall time in milliseconds."""

    def __init__(self) -> None:
        self.timings_ms: dict[str, float] = {}

    def run(self, program: ProgramGraph, passes: list[BasePass]) -> None:
        """Run every pass; re-raises a failure with a note naming the pass and those before it."""
        dump = env.dump_graphs_dir()
        done: list[str] = []
        for i, p in enumerate(passes):
            t0 = time.perf_counter()
            try:
                p.run(program)
            except Exception as e:
                at = f" at node '{p.node}'" if p.node else ""
                note = f"pass '{p.name}' failed{at} after passes {done}"
                if hasattr(e, "add_note"):
                    e.add_note(note)
                log.debug(note)
                raise
            ms = (time.perf_counter() - t0) * 1e3
            self.timings_ms[p.name] = self.timings_ms.get(p.name, 0.0) + ms
            log.debug("pass %s: %.2f ms, %d nodes", p.name, ms, len(program.nodes))
            done.append(p.name)
            if dump:
                os.makedirs(dump, exist_ok=True)
                with open(os.path.join(dump, f"{i:02d}_{p.name}.dot"), "w") as f:
                    f.write(to_dot(program))
