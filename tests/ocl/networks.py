"""Small networks and runners shared by several OpenCL test modules (so that no test module imports another)."""

from __future__ import annotations

import numpy as np

import cldnn_py as cl


def fc_network(engine, x, w, b, relu=False, fmt=cl.Format.bfyx, optimize=True, kernel_tier="cpu"):
    """Network input -> [reorder to fmt] -> fc [-> relu]; returns (network, output id). ``kernel_tier``: the
    CPU tier by default, whatever the device (its users test fully_connected_gemm/gemv, CPU-tier kernels)."""
    topo = cl.Topology()
    topo.add(cl.InputLayout("x", cl.Layout(cl.DataType.f32, cl.Format.bfyx, x.shape)))
    src = "x"
    if fmt != cl.Format.bfyx:
        topo.add(cl.Reorder("xr", "x", fmt))
        src = "xr"
    topo.add(cl.Data("w", w))
    if b is not None:
        topo.add(cl.Data("b", b))
    topo.add(cl.FullyConnected("fc", src, weights="w", bias="b" if b is not None else None))
    out = "fc"
    if relu:
        topo.add(cl.Activation("act", "fc", "relu"))
        out = "act"
    return cl.Network(cl.Program(engine, topo, cl.BuildOptions(optimize_data=optimize, kernel_tier=kernel_tier))), out


def run_poisoned(net, out, x):
    """Poison, run with ``x`` as input "x", return output ``out``."""
    net.poison()
    return net.run({"x": x})[out]


def conv_relu_topology(x_shape, w, b) -> cl.Topology:
    """Input "x" (bfyx f32) → Convolution "conv" (weights "w", bias "b", pad 1) → relu "relu"."""
    t = cl.Topology()
    t.add(cl.InputLayout("x", cl.Layout(cl.DataType.f32, cl.Format.bfyx, x_shape)))
    t.add(cl.Data("w", w))
    t.add(cl.Data("b", b))
    t.add(cl.Convolution("conv", "x", weights="w", bias="b", pad=(1, 1)))
    t.add(cl.Activation("relu", "conv", func="relu"))
    return t


def run_reorder_raw(engine, x: np.ndarray, src: cl.Format, dst: cl.Format, dtype: cl.DataType | None = None,
                    options: cl.BuildOptions | None = None):
    """x (bfyx host) → reorder to ``src`` → reorder under test to ``dst`` (and ``dtype``), built with ``options``;
    returns (logical output, raw flat device buffer of the output)."""
    topo = cl.Topology()
    topo.add(cl.InputLayout("x", cl.Layout(cl.DataType.from_numpy(x.dtype), cl.Format.bfyx, x.shape)))
    inp = "x"
    if src != cl.Format.bfyx:
        topo.add(cl.Reorder("x_src", "x", src))
        inp = "x_src"
    topo.add(cl.Reorder("r", inp, dst, dtype))
    net = cl.Network(cl.Program(engine, topo, options))
    net.poison()
    net.set_input_data("x", x)
    res = net.execute()["r"]
    raw = np.empty(res.layout.buffer_size, res.layout.dtype.numpy)
    engine.read_buffer(res.memory.buffer, raw, wait_for=[res.event])
    return res.layout.from_physical(raw), raw
