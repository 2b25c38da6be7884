"""Run one CPU kernel directly on physical buffers built from Layouts (no Program), with fused ops.

Every input's padding and block tail holds NaN (read as data, it shows in the output); the output's interior is
NaN (an element left unwritten shows) and its padding / block tail a sentinel that must survive. The selector's
own choice for the params is returned with the output so tests can assert the fast kernel wins unforced.
"""

from __future__ import annotations

import numpy as np

from cldnn_py.layout import DataType, Layout
from kernel_selector.params import FusedOp, Params
from kernel_selector.selector import selector
from tests.helpers import typed_attrs

SENTINEL = 1234.5


def padding_mask(layout: Layout) -> np.ndarray:
    """True where the flat physical buffer holds no logical element (padding, block tail)."""
    return layout.to_physical(np.ones(layout.shape, dtype=layout.dtype.numpy)) == 0


def typed_poison(dtype: DataType) -> tuple[float, float]:
    """(poison of input padding and the output's interior, sentinel of the output's padding): NaN and SENTINEL for
    a float type, the type's maximum and one less for an integer type (data must avoid both)."""
    if dtype.numpy.kind == "f":
        return np.nan, SENTINEL
    top = int(np.iinfo(dtype.numpy).max)
    return top, top - 1


def run_kernel(engine, kind: str, inputs: list[Layout], output: Layout, attrs: dict, arrays: list[np.ndarray],
               kernel: str, fused: list[FusedOp] | None = None,
               operands: list[tuple[Layout, np.ndarray]] | None = None,
               tier: str = "cpu") -> tuple[np.ndarray, str]:
    """Run ``kernel`` (forced) for ``kind`` on ``arrays`` (logical, one per input layout) plus the fused ops'
    operands (layout, logical array), in order of the ops' eltwise entries; ``tier``: the Params' kernel tier (an
    OpenCL engine's GPU-tier kernels need "gpu"). Returns (logical output, the name the
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
    params = Params(kind, engine.kind, list(inputs), output, typed_attrs(kind, attrs), ops, kind, engine.info,
                    kernel_tier=tier)
    chosen = selector.select(params)[0].name
    _, kd = selector.select(params, kernel)
    mems = []
    for lay, arr in [*zip(inputs, arrays), *extra]:
        mem = engine.allocate(lay)
        phys = lay.to_physical(arr)
        phys[padding_mask(lay)] = typed_poison(lay.dtype)[0]
        engine.write_buffer(mem.buffer, phys)
        mems.append(mem)
    poison, sentinel = typed_poison(output.dtype)
    out = engine.allocate(output)
    phys = np.full(output.buffer_size, poison, dtype=output.dtype.numpy)
    mask = padding_mask(output)
    phys[mask] = sentinel
    engine.write_buffer(out.buffer, phys)
    for k in kd.kernels:
        bound = engine.bind(k, lambda kind, i: mems[i].buffer if kind == "input" else out.buffer)
        engine.enqueue_kernel(bound, k.gws, k.lws).wait()
    raw = np.empty(output.buffer_size, dtype=output.dtype.numpy)
    engine.read_buffer(out.buffer, raw)
    assert (raw[mask] == sentinel).all(), "the kernel wrote into the output's padding or block tail"
    return output.from_physical(raw), chosen
