"""gru_sequence vs a float64 loop written from the ONNX GRU equations: both linear_before_reset forms, forward and
reverse, clip, batches, hidden sizes the packed kernel takes (multiples of 8, a lone last block) and not, which
kernel each tier and engine picks, a byxf input, the layout and the errors."""

from __future__ import annotations

import numpy as np
import pytest

import cldnn_py as cl
from tests.helpers import assert_close, run_single
from tests.references import gru_ref


def _arrays(rng, seq, batch, n, lbr):
    xw = (rng.standard_normal((seq * batch, 3 * n)) * 0.8).astype(np.float32)
    h0 = rng.standard_normal((batch, n)).astype(np.float32)
    r = (rng.standard_normal((3 * n, n)) / np.sqrt(n)).astype(np.float32)
    rbh = (rng.standard_normal(n) * 0.3).astype(np.float32) if lbr else None
    return xw, h0, r, rbh


def _topology(xw, h0, r, rbh, **attrs):
    topo = cl.Topology()
    for name, a in (("xw", xw), ("h0", h0)):
        topo.add(cl.InputLayout(name, cl.Layout(cl.DataType.f32, cl.Format.bfyx, a.shape)))
    topo.add(cl.Data("r", r))
    if rbh is not None:
        topo.add(cl.Data("rbh", rbh))
    topo.add(cl.GruSequence("g", "xw", "h0", "r", "rbh" if rbh is not None else "",
                            linear_before_reset=rbh is not None, **attrs))
    return topo


@pytest.mark.parametrize("case", [
    # seq, batch, hidden, reverse, linear_before_reset, clip
    (5, 1, 7, False, False, 0.0),
    (4, 3, 8, True, True, 0.0),
    (3, 2, 6, False, True, 0.7),
    (6, 2, 24, True, False, 0.9),      # packed on OpenCL: a lone last 8-unit block
    (4, 1, 32, False, True, 0.0),
], ids=str)
def test_gru_sequence_matches_reference(engine, rng, case):
    seq, batch, n, reverse, lbr, clip = case
    xw, h0, r, rbh = _arrays(rng, seq, batch, n, lbr)
    net = cl.Network(cl.Program(engine, _topology(xw, h0, r, rbh, reverse=reverse, clip=clip)))
    net.poison()
    out = net.run({"xw": xw, "h0": h0})["g"]
    assert_close(out, gru_ref(xw, h0, r, rbh, reverse, clip), rtol=2e-5, atol=2e-5)


@pytest.mark.parametrize("n,tier,lbr,kernel", [(16, "cpu", True, "gru_sequence_packed"),
                                               (40, "cpu", False, "gru_sequence_packed"),
                                               (12, "cpu", True, "gru_sequence_ref"),
                                               (16, "gpu", True, "gru_sequence_ref")])
def test_gru_sequence_kernel_choice(ocl_engine, rng, n, tier, lbr, kernel):
    """hidden % 8 == 0 on the CPU tier: R packed os_iyx_osv16 and gru_sequence_packed, unforced; otherwise (and on
    the GPU tier) the reference. Poisoned output, float64 reference, batch 3, clip."""
    xw, h0, r, rbh = _arrays(rng, 5, 3, n, lbr)
    net = cl.Network(cl.Program(ocl_engine, _topology(xw, h0, r, rbh, clip=1.5), cl.BuildOptions(kernel_tier=tier)))
    assert net.program.node("g").impl.kernel_name == kernel
    assert (net.program.node("g").dependencies[2].layout().format == cl.Format.os_iyx_osv16) == \
        kernel.endswith("_packed")
    net.poison()
    out = net.run({"xw": xw, "h0": h0})["g"]
    assert_close(out, gru_ref(xw, h0, r, rbh, False, 1.5), rtol=2e-5, atol=2e-5)


def test_gru_sequence_blocked_inputs(engine, rng):
    seq, batch, n = 3, 2, 5
    xw, h0, r, rbh = _arrays(rng, seq, batch, n, True)
    out = run_single(engine, cl.GruSequence("g", "xw", "h0", "r", "rbh", linear_before_reset=True),
                     {"xw": xw, "h0": h0}, data={"r": r, "rbh": rbh}, fmt=cl.Format.byxf)
    assert_close(out, gru_ref(xw, h0, r, rbh, False, 0.0), rtol=2e-5, atol=2e-5)


def test_gru_sequence_layout_and_errors():
    f = cl.DataType.f32
    lays = [cl.Layout(f, cl.Format.bfyx, s) for s in [(6, 12), (2, 4), (12, 4)]]
    out = cl.GruSequence("g", "xw", "h0", "r").calc_output_layout(lays)
    assert out.shape == (3, 2, 4) and out.dtype == f
    with pytest.raises(cl.ShapeError, match="r shape"):
        cl.GruSequence("g", "xw", "h0", "r").calc_output_layout(lays[:2] + [cl.Layout(f, cl.Format.bfyx, (12, 5))])
    with pytest.raises(cl.ShapeError, match="xw shape"):
        cl.GruSequence("g", "xw", "h0", "r").calc_output_layout([cl.Layout(f, cl.Format.bfyx, (5, 12))] + lays[1:])
    with pytest.raises(cl.ShapeError, match="rbh element count"):
        cl.GruSequence("g", "xw", "h0", "r", "b", linear_before_reset=True).calc_output_layout(
            lays + [cl.Layout(f, cl.Format.bfyx, (5,))])
    with pytest.raises(cl.TopologyError, match="gru_sequence 'g': rbh must be given exactly when"):
        cl.GruSequence("g", "xw", "h0", "r", linear_before_reset=True)
    with pytest.raises(cl.TopologyError, match="rbh must be given exactly when"):
        cl.GruSequence("g", "xw", "h0", "r", "b")


@pytest.mark.parametrize("lbr", [False, True])
def test_cpu_engine_runs_the_numba_loop(rng, lbr):
    """The CPU engine picks gru_sequence_cpu_loop over the numpy reference; poisoned output, float64 reference,
    batch 2 (the parallel loop), reverse and clip."""
    xw, h0, r, rbh = _arrays(rng, 7, 2, 20, lbr)
    net = cl.Network(cl.Program(cl.Engine("cpu"), _topology(xw, h0, r, rbh, reverse=True, clip=1.2)))
    assert net.program.node("g").impl.kernel_name == "gru_sequence_cpu_loop"
    net.poison()
    out = net.run({"xw": xw, "h0": h0})["g"]
    assert_close(out, gru_ref(xw, h0, r, rbh, True, 1.2), rtol=2e-5, atol=2e-5)
