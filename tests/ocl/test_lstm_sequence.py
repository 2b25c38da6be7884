"""lstm_sequence vs a float64 loop written from the ONNX LSTM equations: forward and reverse, peepholes, clip,
batches, a hidden size above the work-group cap (several units per work-item), byxf inputs, layout and errors."""

from __future__ import annotations

import numpy as np
import pytest

import cldnn_py as cl
from tests.helpers import assert_close, run_single
from tests.references import lstm_ref


@pytest.mark.parametrize("case", [
    # seq, batch, hidden, reverse, peepholes, clip
    (5, 1, 7, False, False, 0.0),
    (4, 3, 8, True, True, 0.0),
    (3, 2, 6, False, True, 0.7),
    (3, 2, 300, True, False, 0.0),      # 300 > the 256 cap: two units per work-item
    (6, 2, 24, False, True, 0.9),       # packed R: gate rows 24..31 in lanes 8-15 of a 16-row slice
    (4, 1, 128, True, True, 0.0),       # packed R: 16 work-items of 8 units
], ids=str)
def test_lstm_sequence_matches_reference(engine, rng, case):
    seq, batch, n, reverse, peep, clip = case
    xw = (rng.standard_normal((seq * batch, 4 * n)) * 0.8).astype(np.float32)
    h0 = rng.standard_normal((batch, n)).astype(np.float32)
    c0 = rng.standard_normal((batch, n)).astype(np.float32)
    r = (rng.standard_normal((4 * n, n)) / np.sqrt(n)).astype(np.float32)
    p = rng.standard_normal(3 * n).astype(np.float32) if peep else None
    prim = cl.LstmSequence("l", "xw", "h0", "c0", "r", "p" if peep else "", reverse=reverse, clip=clip)
    data = {"r": r} | ({"p": p} if peep else {})
    out = run_single(engine, prim, {"xw": xw, "h0": h0, "c0": c0}, data=data)
    np.testing.assert_allclose(out, lstm_ref(xw, h0, c0, r, p, reverse, clip), rtol=2e-5, atol=2e-5)


def _arrays(rng, seq, batch, n):
    """xw (seq·batch, 4n), h0, c0 (batch, n), R (4n, n), peepholes (3n,): seeded N(0, 1), R scaled by 1/sqrt(n)."""
    xw = (rng.standard_normal((seq * batch, 4 * n)) * 0.8).astype(np.float32)
    h0, c0 = (rng.standard_normal((batch, n)).astype(np.float32) for _ in range(2))
    r = (rng.standard_normal((4 * n, n)) / np.sqrt(n)).astype(np.float32)
    return xw, h0, c0, r, rng.standard_normal(3 * n).astype(np.float32)


def _topology(xw, h0, c0, r, p, **attrs):
    """Inputs xw, h0, c0; Data r, p; LstmSequence "l" with ``attrs``."""
    topo = cl.Topology()
    for name, a in (("xw", xw), ("h0", h0), ("c0", c0)):
        topo.add(cl.InputLayout(name, cl.Layout(cl.DataType.f32, cl.Format.bfyx, a.shape)))
    topo.add(cl.Data("r", r), cl.Data("p", p), cl.LstmSequence("l", "xw", "h0", "c0", "r", "p", **attrs))
    return topo


@pytest.mark.parametrize("n,tier,kernel", [(16, "cpu", "lstm_sequence_packed"), (40, "cpu", "lstm_sequence_packed"),
                                           (12, "cpu", "lstm_sequence_ref"), (24, "gpu", "lstm_sequence_gpu_packed"),
                                           (40, "gpu", "lstm_sequence_gpu_packed")])
def test_lstm_sequence_packed_is_chosen_and_matches(ocl_engine, rng, n, tier, kernel):
    """hidden % 8 == 0: reorder_inputs packs R to os_iyx_osv16 and the packed kernel of the tier runs it, unforced
    (40: a last lone 8-unit block); other sizes keep the reference. Poisoned output, float64 reference, batch 3,
    peepholes and clip."""
    xw, h0, c0, r, p = _arrays(rng, 5, 3, n)
    net = cl.Network(cl.Program(ocl_engine, _topology(xw, h0, c0, r, p, clip=1.5), cl.BuildOptions(kernel_tier=tier)))
    assert net.program.node("l").impl.kernel_name == kernel
    packed = net.program.node("l").dependencies[3].layout().format
    assert (packed == cl.Format.os_iyx_osv16) == kernel.endswith("_packed")
    net.poison()
    out = net.run({"xw": xw, "h0": h0, "c0": c0})["l"]
    assert_close(out, lstm_ref(xw, h0, c0, r, p, False, 1.5), rtol=2e-5, atol=2e-5)


def test_lstm_sequence_blocked_inputs(engine, rng):
    seq, batch, n = 3, 2, 5
    arrs = {"xw": rng.standard_normal((seq * batch, 4 * n)), "h0": rng.standard_normal((batch, n)),
            "c0": rng.standard_normal((batch, n)), "r": rng.standard_normal((4 * n, n)) * 0.4}
    arrs = {k: v.astype(np.float32) for k, v in arrs.items()}
    out = run_single(engine, cl.LstmSequence("l", "xw", "h0", "c0", "r"), arrs, fmt=cl.Format.byxf)
    np.testing.assert_allclose(out, lstm_ref(arrs["xw"], arrs["h0"], arrs["c0"], arrs["r"], None, False, 0.0),
                               rtol=2e-5, atol=2e-5)


def test_lstm_sequence_layout_and_errors():
    f = cl.DataType.f32
    lays = [cl.Layout(f, cl.Format.bfyx, s) for s in [(6, 16), (2, 4), (2, 4), (16, 4)]]
    out = cl.LstmSequence("l", "xw", "h0", "c0", "r").calc_output_layout(lays)
    assert out.shape == (3, 2, 8) and out.dtype == f
    with pytest.raises(cl.ShapeError, match="r shape"):
        cl.LstmSequence("l", "xw", "h0", "c0", "r").calc_output_layout(lays[:3] + [cl.Layout(f, cl.Format.bfyx,
                                                                                               (16, 5))])
    with pytest.raises(cl.ShapeError, match="xw shape"):
        cl.LstmSequence("l", "xw", "h0", "c0", "r").calc_output_layout([cl.Layout(f, cl.Format.bfyx, (5, 16))]
                                                                      + lays[1:])


def test_cpu_engine_runs_the_numba_loop(rng):
    """The CPU engine picks lstm_sequence_cpu_loop over the numpy reference; poisoned output, float64 reference,
    batch 2 (the parallel loop), reverse, peepholes and clip."""
    xw, h0, c0, r, p = _arrays(rng, 7, 2, 20)
    net = cl.Network(cl.Program(cl.Engine("cpu"), _topology(xw, h0, c0, r, p, reverse=True, clip=1.2)))
    assert net.program.node("l").impl.kernel_name == "lstm_sequence_cpu_loop"
    net.poison()
    out = net.run({"xw": xw, "h0": h0, "c0": c0})["l"]
    assert_close(out, lstm_ref(xw, h0, c0, r, p, True, 1.2), rtol=2e-5, atol=2e-5)
