"""Run one CPU kernel directly on physical buffers built from Layouts (no Program), with fused ops.

Every input's padding and block tail holds NaN (read as data, it shows in the output); the output's interior is
NaN (an element left unwritten shows) and its padding / block tail a sentinel that must survive. The selector's
own choice for the params is returned with the output so tests can assert the fast kernel wins unforced.
"""

from __future__ import annotations

import numpy as np

from cldnn_py.layout import Layout
from kernel_selector.params import FusedOp, Params
from kernel_selector.selector import selector
from tests.helpers import typed_attrs

SENTINEL = 1234.5


def padding_mask(layout: Layout) -> np.ndarray:
    """True where the flat physical buffer holds no logical element (padding, block tail)."""
    return layout.to_physical(np.ones(layout.shape, dtype=layout.dtype.numpy)) == 0


def run_kernel(engine, kind: str, inputs: list[Layout], output: Layout, attrs: dict, arrays: list[np.ndarray],
               kernel: str, fused: list[FusedOp] | None = None,
               operands: list[tuple[Layout, np.ndarray]] | None = None) -> tuple[np.ndarray, str]:
    """Run ``kernel`` (forced) for ``kind`` on ``arrays`` (logical, one per input layout) plus the fused ops'
    operands (layout, logical array), in order of the ops' eltwise entries. Returns (logical output, the name the
    selector picks unforced). Asserts the output's padding / block tail kept its sentinel."""
    ops = []
    extra = list(operands or [])
    j = 0
    for op in fused or []:
        if op.kind == "eltwise":
            lay = extra[j][0]
            op = FusedOp(op.kind, op.attrs, extra_inputs=[lay], dep_indices=[len(inputs) + j])
            j += 1
        ops.append(op)
    params = Params(kind, engine.kind, list(inputs), output, typed_attrs(kind, attrs), ops, kind, engine.info)
    chosen = selector.select(params)[0].name
    _, kd = selector.select(params, kernel)
    mems = []
    for lay, arr in [*zip(inputs, arrays), *extra]:
        mem = engine.allocate(lay)
        phys = lay.to_physical(arr)
        phys[padding_mask(lay)] = np.nan
        engine.write_buffer(mem.buffer, phys)
        mems.append(mem)
    out = engine.allocate(output)
    phys = np.full(output.buffer_size, np.nan, dtype=output.dtype.numpy)
    mask = padding_mask(output)
    phys[mask] = SENTINEL
    engine.write_buffer(out.buffer, phys)
    for k in kd.kernels:
        bound = engine.bind(k, lambda kind, i: mems[i].buffer if kind == "input" else out.buffer)
        engine.enqueue_kernel(bound, k.gws, k.lws).wait()
    raw = np.empty(output.buffer_size, dtype=output.dtype.numpy)
    engine.read_buffer(out.buffer, raw)
    assert (raw[mask] == SENTINEL).all(), "the kernel wrote into the output's padding or block tail"
    return output.from_physical(raw), chosen
