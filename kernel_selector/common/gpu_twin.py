"""WorkGroupTwin: the GPU-tier twin of a reference kernel whose gws is the output's (x, y, f * b).

The twin runs the reference's own template and jit, with explicit work-groups (:func:`.gpu_dispatch.wg_tensor_dispatch`:
64-256 work-items, x fastest, gws rounded up to lws) and the guard ``WG_OUT_OF_RANGE``, which the reference template
tests under ``#ifdef WG_OUT_OF_RANGE`` (a no-op for the reference itself, whose gws is exact). A twin is declared as
``class PadKernelGpuWg(WorkGroupTwin, PadKernelRef)`` with its own ``name`` and ``ref_template``.
"""

from __future__ import annotations

from typing import Any

from ..jitter import JitConstants
from ..kernel_base import FORCE_PRIORITY_3, load_template
from ..params import Params
from .gpu_dispatch import wg_tensor_dispatch, wg_tensor_guard, wg_tensor_validate


class WorkGroupTwin:
    """Mixin placed before the reference kernel class: tier ``gpu``, ``FORCE_PRIORITY_3``, the reference's checks
    plus rank <= 4 and a work-group that fits ``params.caps``, the reference's jit plus the guard, its template."""

    tier = "gpu"
    ref_template = ""  # cl_kernels/<ref_template>.cl: the reference's template
    max_rank = 4  # ranks above run the reference, unless the reference's template indexes them through dims4 too

    def validate(self, params: Params) -> str | None:
        """The reference's reason, else rank <= 4 (the reference keeps rank 5-6) and a fitting work-group."""
        why: str | None = super().validate(params)  # type: ignore[misc]
        return why or wg_tensor_validate(params.inputs[0], params.caps, self.max_rank) or \
            wg_tensor_validate(params.output, params.caps, self.max_rank)

    def priority(self, params: Params) -> int:
        """Ahead of the reference in the GPU tier."""
        return FORCE_PRIORITY_3

    def jit_constants(self, params: Params) -> JitConstants:
        """The reference's constants and ``WG_OUT_OF_RANGE`` over the OUTPUT."""
        j: JitConstants = super().jit_constants(params)  # type: ignore[misc]
        return j.update(wg_tensor_guard("OUTPUT"))

    def make_source(self, jit: JitConstants, template: str | None = None) -> tuple[str, str]:
        """The reference's template (``ref_template``)."""
        out: tuple[str, str] = super().make_source(  # type: ignore[misc]
            jit, template if template is not None else load_template(self.ref_template))
        return out

    def dispatch(self, params: Params) -> Any:
        """gws (X, Y, F * B) of the output rounded up to lws (wg_tensor_dispatch)."""
        return wg_tensor_dispatch(params.output, params.caps)
