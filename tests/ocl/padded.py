"""Run one kernel directly on padded buffers (no Program): the layouts' padding is chosen by the test.

No graph pass produces padded buffers yet, so kernel tests call :func:`run_kernel_padded` to check that a kernel
reads its inputs and writes its output only through the ``GET_INDEX`` macros: every input's padding and block tail
is filled with NaN (read by mistake, it shows in the output) and the output's with a sentinel that must survive.
"""

from __future__ import annotations

import numpy as np

from kernel_selector import Params, selector
from tests.helpers import typed_attrs

SENTINEL = 1234.5


def padding_mask(layout) -> np.ndarray:
    """Boolean mask over the flat physical buffer: True where no logical element lives (padding, block tails)."""
    return layout.to_physical(np.ones(layout.shape, dtype=layout.dtype.numpy)) == 0


def run_kernel_padded(engine, kind: str, inputs: list, output, attrs: dict, arrays: list[np.ndarray],
                      kernel: str | None = None, variant: dict | None = None,
                      kernel_tier: str = "cpu", caps=None, pad_fill: float = np.nan) -> np.ndarray:
    """Select (or force) the kernel of primitive type ``kind`` for these layouts, run it on ``arrays`` (logical,
    one per input layout) and return the logical output. Asserts the output's padding was not written.
    ``variant``: one of the forced kernel's ``tune_variants`` (auto-tuning's choices) instead of its default;
    ``kernel_tier``: the tier of the Params; ``caps``: DeviceCaps to select for (default the engine's, e.g. a
    wider native vector to force a kernel's VEC16 form); ``pad_fill``: what float inputs' padding holds (NaN: read
    it and the result shows; 0: a zero halo a kernel may read unchecked)."""
    params = Params(kind=kind, engine=engine.kind, inputs=list(inputs), output=output, attrs=typed_attrs(kind, attrs),
                    layer_id=kind, device=engine.info, caps=caps or engine.info.caps, kernel_tier=kernel_tier)
    k_obj, kd = selector.select(params, kernel)
    if variant is not None:
        kd = k_obj.kernel_data(params, variant)  # type: ignore[call-arg]
    mems = []
    for lay, arr in zip(inputs, arrays):
        mem = engine.allocate(lay)
        phys = lay.to_physical(arr)
        phys[padding_mask(lay)] = pad_fill if phys.dtype.kind == "f" else np.iinfo(phys.dtype).max  # ints: no NaN
        engine.write_buffer(mem.buffer, phys)
        mems.append(mem)
    out = engine.allocate(output)
    phys = np.full(output.buffer_size, np.nan, dtype=output.dtype.numpy)
    out_mask = padding_mask(output)
    phys[out_mask] = SENTINEL
    engine.write_buffer(out.buffer, phys)
    for k in kd.kernels:  # through the engine's stream API: the same code runs OpenCL and CPU kernels
        bound = engine.bind(k, lambda kind, i: mems[i].buffer if kind == "input" else out.buffer)
        engine.enqueue_kernel(bound, k.gws, k.lws).wait()
    raw = np.empty(output.buffer_size, dtype=output.dtype.numpy)
    engine.read_buffer(out.buffer, raw)
    assert (raw[out_mask] == phys[out_mask]).all(), "the kernel wrote into the output's padding"
    return output.from_physical(raw)


def run_one_input_padded(engine, prim, x: np.ndarray, fmt, pad, out_pad) -> np.ndarray:
    """:func:`run_kernel_padded` for a one-input primitive: input ``x`` f32 in ``fmt`` with padding ``pad``, the
    primitive's output layout with padding ``out_pad``."""
    import cldnn_py as cl

    lin = cl.Layout(cl.DataType.f32, fmt, x.shape, pad)
    lout = prim.calc_output_layout([lin]).with_(padding=out_pad)
    return run_kernel_padded(engine, prim.type_name, [lin], lout, prim.attrs(), [x])


def run_bound_kernel(engine, kc, layouts: list, arrays: list[np.ndarray], output) -> np.ndarray:
    """Run the ClKernelData ``kc`` once on ``arrays`` (logical, one per input layout, written unpoisoned) into an
    output buffer of layout ``output`` filled with NaN first; returns the raw physical output (padding included)."""
    mems = []
    for lay, arr in zip(layouts, arrays):
        mems.append(engine.allocate(lay))
        engine.write_buffer(mems[-1].buffer, lay.to_physical(arr))
    out = engine.allocate(output)
    engine.write_buffer(out.buffer, np.full(output.buffer_size, np.nan, dtype=np.float32))
    knl = engine.bind(kc, lambda kind, i: mems[i].buffer if kind == "input" else out.buffer)
    engine.enqueue_kernel(knl, kc.gws, kc.lws).wait()
    raw = np.empty(output.buffer_size, dtype=np.float32)
    engine.read_buffer(out.buffer, raw)
    return raw
