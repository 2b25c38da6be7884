"""Threads: two Networks built from one Program run from two threads at once; one Network used from two threads is
serialized by its lock. Both engines; every result is checked against the float64 reference of that input."""

from __future__ import annotations

import threading

import numpy as np

import cldnn_py as cl
from tests.helpers import assert_close, f32
from tests.references import conv_ref


def _topology(w, b):
    t = cl.Topology()
    t.add(cl.InputLayout("x", cl.Layout(cl.DataType.f32, cl.Format.bfyx, (1, 8, 9, 9))))
    t.add(cl.Data("w", w))
    t.add(cl.Data("b", b))
    t.add(cl.Convolution("conv", "x", weights="w", bias="b", pad=(1, 1)))
    t.add(cl.Activation("relu", "conv", func="relu"))
    return t


def _hammer(nets, inputs, expect, errors):
    def work(net, idx):
        try:
            for i in idx:
                assert_close(net.run({"x": inputs[i]})["relu"], expect[i], rtol=1e-4, atol=1e-4)
        except Exception as e:  # noqa: BLE001 - reported by the main thread
            errors.append(e)

    threads = [threading.Thread(target=work, args=(n, range(k, len(inputs), len(nets)))) for k, n in enumerate(nets)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()


def _case(rng, n=12):
    w, b = f32(rng.standard_normal((16, 8, 3, 3)) * 0.2), f32(rng.standard_normal(16))
    inputs = [f32(rng.standard_normal((1, 8, 9, 9))) for _ in range(n)]
    expect = [np.maximum(conv_ref(x, w, b, (1, 1), (1, 1), (1, 1), (1, 1), 1), 0) for x in inputs]
    return w, b, inputs, expect


def test_two_networks_of_one_program_in_two_threads(engine, rng):
    w, b, inputs, expect = _case(rng)
    prog = cl.Program(engine, _topology(w, b))
    errors: list[Exception] = []
    _hammer([cl.Network(prog), cl.Network(prog)], inputs, expect, errors)
    assert not errors, errors[0]


def test_one_network_from_two_threads_is_serialized(engine, rng):
    w, b, inputs, expect = _case(rng)
    net = cl.Network(cl.Program(engine, _topology(w, b)))
    errors: list[Exception] = []
    _hammer([net, net], inputs, expect, errors)
    assert not errors, errors[0]
