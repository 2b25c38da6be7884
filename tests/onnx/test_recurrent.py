"""LSTM, GRU and RNN (ONNX recurrent operators, unrolled at import) against onnxruntime: the three directions,
layout 1, initial states (constant and computed), biases, GRU linear_before_reset, LSTM peepholes and
input_forget, clip, activations with alpha/beta, sequence_lens, every output; and what is refused."""

from __future__ import annotations

import numpy as np
import onnx
import pytest
from onnx import helper, numpy_helper

import cldnn_py as cl
from cldnn_py.frontend.onnx import import_static
from cldnn_py.frontend.onnx_context import NotConstantError
from cldnn_py.frontend.onnx_dynamic import signatures
from tests.onnx.ort_compare import build, compare, declare

GATES = {"LSTM": 4, "GRU": 3, "RNN": 1}
SEQ, BATCH, INP, HID = 4, 2, 5, 6


def _model(rng, op, direction="forward", layout=0, bias=True, init=None, peep=False, lens=None,
           outputs=None, seq=SEQ, batch=BATCH, inp=INP, hid=HID, scale=0.5, opset=14, **attrs):
    """One recurrent node with seeded random weights as initializers. ``init``: None (no initial state),
    "const" (initializers), "feed" (graph inputs) or "feed_h" (initial_h only); ``lens``: sequence_lens as an int32
    initializer.
    Returns (model, feeds)."""
    nd = 2 if direction == "bidirectional" else 1
    g = GATES[op]
    x_shape = (batch, seq, inp) if layout else (seq, batch, inp)
    s_shape = (batch, nd, hid) if layout else (nd, batch, hid)
    feeds = {"X": rng.standard_normal(x_shape).astype(np.float32)}
    inits = {"W": (rng.standard_normal((nd, g * hid, inp)) * scale).astype(np.float32),
             "R": (rng.standard_normal((nd, g * hid, hid)) * scale).astype(np.float32)}
    names = ["X", "W", "R", "", "", "", "", ""]
    if bias:
        inits["B"] = (rng.standard_normal((nd, 2 * g * hid)) * scale).astype(np.float32)
        names[3] = "B"
    if lens is not None:
        inits["L"] = np.asarray(lens, np.int32)
        names[4] = "L"
    for k, st in ((5, "H0"), (6, "C0")):
        if init and (st == "H0" or (op == "LSTM" and init != "feed_h")):
            (inits if init == "const" else feeds)[st] = rng.standard_normal(s_shape).astype(np.float32)
            names[k] = st
    if peep:
        inits["P"] = (rng.standard_normal((nd, 3 * hid)) * scale).astype(np.float32)
        names[7] = "P"
    while names and not names[-1]:
        names.pop()
    outputs = outputs or (["Y", "Y_h", "Y_c"] if op == "LSTM" else ["Y", "Y_h"])
    outs = [o if o in outputs else "" for o in (["Y", "Y_h", "Y_c"] if op == "LSTM" else ["Y", "Y_h"])]
    while not outs[-1]:
        outs.pop()
    if opset >= 14:
        attrs["layout"] = layout
    node = helper.make_node(op, names, outs, hidden_size=hid, direction=direction, **attrs)
    return build([node], feeds, inits, [o for o in outs if o], opset), feeds


def _compare_layout1(engine, model, feeds, atol=1e-5):
    """onnxruntime has no layout 1 (batch-major) recurrent ops: the reference is its layout-0 twin of the model
    on transposed X / initial states, its outputs transposed back."""
    import onnxruntime as ort

    m0 = onnx.ModelProto()
    m0.CopyFrom(model)
    for a in m0.graph.node[-1].attribute:
        if a.name == "layout":
            a.i = 0
    for init in m0.graph.initializer:
        if init.name in ("H0", "C0"):
            init.CopyFrom(numpy_helper.from_array(numpy_helper.to_array(init).transpose(1, 0, 2), init.name))
    for inp in m0.graph.input:
        dims = inp.type.tensor_type.shape.dim
        d0, d1 = dims[0].dim_value, dims[1].dim_value
        dims[0].dim_value, dims[1].dim_value = d1, d0
    sess = ort.InferenceSession(m0.SerializeToString(), providers=["CPUExecutionProvider"])
    refs = sess.run(None, {k: v.transpose(1, 0, 2) for k, v in feeds.items()})
    refs = [r.transpose(2, 0, 1, 3) if r.ndim == 4 else r.transpose(1, 0, 2) for r in refs]
    net = cl.Network(engine, cl.load_onnx(declare(model, refs)))
    net.poison()
    got = net.run(feeds)
    for out, ref in zip(model.graph.output, refs):
        assert got[out.name].shape == ref.shape
        np.testing.assert_allclose(got[out.name], ref, rtol=1e-5, atol=atol)


@pytest.mark.ocl_every(2)
@pytest.mark.parametrize("direction", ["forward", "reverse", "bidirectional"])
@pytest.mark.parametrize("op", ["LSTM", "GRU", "RNN"])
def test_directions_with_bias_and_computed_initial_state(engine, rng, op, direction):
    compare(engine, *_model(rng, op, direction, init="feed"), atol=1e-5)


@pytest.mark.parametrize("op", ["LSTM", "GRU", "RNN"])
def test_no_bias_no_initial_state_opset7(engine, rng, op):
    compare(engine, *_model(rng, op, "bidirectional", bias=False, opset=7), atol=1e-5)


@pytest.mark.parametrize("op", ["LSTM", "GRU", "RNN"])
def test_layout1_constant_initial_state(engine, rng, op):
    """(batch, seq, input) in, (batch, seq, num_directions, hidden) out; initial states (batch, nd, hidden)."""
    _compare_layout1(engine, *_model(rng, op, "bidirectional", layout=1, init="const", batch=3))


@pytest.mark.parametrize("direction", ["forward", "bidirectional"])
def test_layout1_computed_initial_state(engine, rng, direction):
    _compare_layout1(engine, *_model(rng, "LSTM", direction, layout=1, init="feed"))


@pytest.mark.parametrize("lbr", [0, 1])
@pytest.mark.parametrize("direction", ["forward", "bidirectional"])
def test_gru_linear_before_reset(engine, rng, lbr, direction):
    compare(engine, *_model(rng, "GRU", direction, init="feed", linear_before_reset=lbr), atol=1e-5)


@pytest.mark.parametrize("direction", ["forward", "bidirectional"])
def test_lstm_peepholes(engine, rng, direction):
    compare(engine, *_model(rng, "LSTM", direction, init="feed", peep=True), atol=1e-5)


def test_lstm_input_forget(engine, rng):
    compare(engine, *_model(rng, "LSTM", "bidirectional", init="feed", peep=True, input_forget=1), atol=1e-5)


@pytest.mark.parametrize("op", ["LSTM", "GRU", "RNN"])
def test_clip(engine, rng, op):
    """Large weights so that the gate pre-activations exceed the clip: it bounds the activations' inputs."""
    peep = op == "LSTM"
    compare(engine, *_model(rng, op, "bidirectional", init="feed", peep=peep, scale=1.5, clip=0.7,
                            **({"linear_before_reset": 1} if op == "GRU" else {})), atol=1e-5)


@pytest.mark.ocl_every(2)
@pytest.mark.parametrize("direction", ["forward", "reverse", "bidirectional"])
@pytest.mark.parametrize("op", ["LSTM", "GRU", "RNN"])
def test_sequence_lens(engine, rng, op, direction):
    """Sequences shorter than seq: Y is 0 past each one's length, Y_h / Y_c the state at its end, and the reverse
    direction reverses each sequence within its own length."""
    compare(engine, *_model(rng, op, direction, init="feed", lens=[2, SEQ, 1], batch=3), atol=1e-5)


@pytest.mark.parametrize("direction", ["reverse", "bidirectional"])
def test_lstm_everything_at_once(engine, rng, direction):
    """Peepholes, clip, sequence_lens, initial_h without initial_c, all three outputs."""
    compare(engine, *_model(rng, "LSTM", direction, init="feed_h", peep=True, lens=[3, 1, SEQ], batch=3,
                            scale=1.2, clip=0.9), atol=1e-5)


def test_sequence_lens_layout1(engine, rng):
    _compare_layout1(engine, *_model(rng, "GRU", "bidirectional", layout=1, init="const", lens=[3, 1]))


@pytest.mark.parametrize("op,acts,alpha,beta", [
    ("RNN", ["Relu"], [], []),
    ("RNN", ["LeakyRelu", "Affine"], [0.2, 0.5], [0.3]),
    ("RNN", ["Softsign", "Softplus"], [], []),
    ("GRU", ["HardSigmoid", "ScaledTanh"], [0.3, 0.8], [0.4, 1.2]),
    ("LSTM", ["Sigmoid", "Elu", "Tanh"], [0.7], []),
    ("LSTM", ["HardSigmoid", "Tanh", "Softsign", "Sigmoid", "LeakyRelu", "Tanh"], [0.25, 0.1], [0.45]),
])
def test_activations_with_alpha_beta(engine, rng, op, acts, alpha, beta):
    """alpha/beta are handed in order to the functions that take them (as onnxruntime does)."""
    nd = 2 if len(acts) > {"LSTM": 3, "GRU": 2, "RNN": 1}[op] else 1
    extra = {"activation_alpha": alpha} if alpha else {}
    if beta:
        extra["activation_beta"] = beta
    compare(engine, *_model(rng, op, "bidirectional" if nd == 2 else "forward", init="feed", activations=acts,
                            **extra), atol=1e-5)


@pytest.mark.parametrize("op,outputs", [("LSTM", ["Y_c"]), ("LSTM", ["Y_h", "Y_c"]), ("GRU", ["Y"]),
                                        ("RNN", ["Y_h"])])
def test_some_outputs_omitted(engine, rng, op, outputs):
    compare(engine, *_model(rng, op, "bidirectional", outputs=outputs), atol=1e-5)


def test_single_step_and_computed_x(engine, rng):
    """seq = 1 (no step crop, no concatenation) and X computed by another node."""
    m, feeds = _model(rng, "LSTM", "bidirectional", seq=1, init="feed")
    m.graph.node.insert(0, helper.make_node("Relu", ["X"], ["Xr"]))
    m.graph.node[1].input[0] = "Xr"
    compare(engine, m, feeds, atol=1e-5)


def test_refusals_name_the_node(rng):
    m, _ = _model(rng, "RNN", activations=["ThresholdedRelu"])
    m = declare(m, [np.zeros((SEQ, 1, BATCH, HID)), np.zeros((1, BATCH, HID))])
    m.graph.node[0].name = "rnn0"
    with pytest.raises(cl.UnsupportedError, match=r"RNN 'rnn0'.*ThresholdedRelu"):
        cl.load_onnx(m)
    m, _ = _model(rng, "GRU")  # W computed from X: load_onnx would bind X per value; the static import refuses
    m.graph.node.insert(0, helper.make_node("ReduceMean", ["X"], ["Xm"], keepdims=0))
    m.graph.node.insert(1, helper.make_node("Mul", ["W", "Xm"], ["Wx"]))
    m.graph.node[2].input[1] = "Wx"
    m.graph.node[2].name = "gru0"
    ins, outs = signatures(m, {})
    with pytest.raises(NotConstantError, match=r"GRU 'gru0': W 'Wx' must be a constant"):
        import_static(m, "m", {n: s.dims for n, s in ins.items()}, ins, outs)
