"""prepare_memory_dependencies + memory pool: tensors with disjoint lifetimes share buffers; results unchanged."""

from __future__ import annotations

import numpy as np
import pytest

import cldnn_py as cl

L = cl.Layout(cl.DataType.f32, cl.Format.bfyx, (1, 4, 8, 8))


def _chain(n=6):
    """Activations and softmaxes in turn: one kernel each (an activation after an activation would fuse into it)."""
    t = cl.Topology(cl.InputLayout("x", L))
    prev = "x"
    funcs = ["tanh", "abs", "logistic", "square", "sqrt", "exp"]
    for i in range(n):
        t.add(cl.Activation(f"a{i}", prev, funcs[i % len(funcs)]) if i % 2 == 0 else cl.Softmax(f"a{i}", prev, axis=1))
        prev = f"a{i}"
    return t, prev


def _diamond():
    # x -> a; a -> b, a -> c; d = b + c; e = softmax(d); f = e * a  (a lives long)
    return cl.Topology(cl.InputLayout("x", L), cl.Activation("a", "x", "tanh"), cl.Activation("b", "a", "abs"),
                       cl.Activation("c", "a", "square"), cl.Eltwise("d", ["b", "c"], mode="sum"),
                       cl.Softmax("e", "d", axis=1), cl.Eltwise("f", ["e", "a"], mode="prod"))


def test_chain_ping_pongs_between_two_buffers(engine, rng):
    topo, last = _chain()
    prog = cl.Program(engine, topo)
    slots = prog.memory_slots
    assert set(slots) == {"a0", "a1", "a2", "a3", "a4"}  # a5 is the output: its own buffer
    assert len(set(slots.values())) == 2
    for i in range(1, 5):
        assert slots[f"a{i}"] != slots[f"a{i - 1}"]  # never the buffer of its own input
    assert prog.memory_deps["a2"] == ["a0", "a1"]  # waits for the previous owner and its reader
    net = cl.Network(prog)
    info = net.memory_info()
    assert info["pool"] == 2 * L.bytes and info["activations"] == info["pool"] + 2 * L.bytes


def test_pooled_results_match_unpooled(engine, rng):
    for topo, out in (_chain(), (_diamond(), "f")):
        x = rng.uniform(0.1, 1.0, (1, 4, 8, 8)).astype(np.float32)
        pooled = cl.Network(cl.Program(engine, topo))
        plain = cl.Network(cl.Program(engine, topo, cl.BuildOptions(optimize_data=False)))
        assert plain.program.memory_slots == {}
        for _ in range(3):  # repeated executions must not race on reused buffers
            np.testing.assert_allclose(pooled.run({"x": x})[out], plain.run({"x": x})[out], rtol=1e-6)


def test_long_lived_tensor_is_not_overwritten(engine):
    prog = cl.Program(engine, _diamond())
    s = prog.memory_slots
    # 'a' is read by b, c and f: nothing created before f may take its buffer
    for pid in ("b", "c", "d", "e"):
        assert s[pid] != s["a"]


def _padded_chain(rng):
    chs, ks = (32, 16, 16, 32, 16, 16, 16), (5, 1, 3, 1, 5, 3)
    t = cl.Topology(cl.InputLayout("x", cl.Layout(cl.DataType.f32, cl.Format.bfyx, (1, chs[0], 10, 10))))
    prev = "x"
    for i, (ci, co, k) in enumerate(zip(chs, chs[1:], ks)):
        t.add(cl.Data(f"w{i}", (rng.standard_normal((co, ci, k, k)) / (4 * k)).astype(np.float32)),
              cl.Convolution(f"conv{i}", prev, weights=f"w{i}", pad=(k // 2, k // 2)))
        prev = f"conv{i}"
    return t, prev, chs


def test_padded_tensors_reuse_buffers_with_zeroed_halo(engine, rng, monkeypatch):
    """The mixed plan (forced: the strict one never fits the budget): blocked convolutions with changing widths and
    halos; padded tensors reuse buffers that held another layout; those are zero-filled first (also at the wrap into
    the next execution), so results equal the plain build."""
    from cldnn_py.passes import prepare_memory_dependencies as pmd

    monkeypatch.setattr(pmd, "STRICT_EXTRA_BYTES", -1)
    monkeypatch.setattr(pmd, "STRICT_EXTRA_FACTOR", -1.0)
    t, prev, chs = _padded_chain(rng)
    prog = cl.Program(engine, t)
    if prog.node("conv0").layout().format != cl.Format.b_fs_yx_fsv16:
        pytest.skip("no blocked convolution kernel validates on this device: nothing is padded")
    assert prog.memory_zero  # reuse across different padded layouts happened
    slots: dict[int, list[str]] = {}
    for pid in (n.id for n in prog.order if n.id in prog.memory_slots):
        slots.setdefault(prog.memory_slots[pid], []).append(pid)
    for owners in slots.values():
        for prev_id, pid in zip(owners[-1:] + owners, owners):  # wraps: the first follows the last
            lay = prog.node(pid).layout()
            if prev_id != pid and not lay.padding.is_zero and prog.node(prev_id).layout() != lay:
                assert pid in prog.memory_zero, (prev_id, pid)
    x = rng.standard_normal((1, chs[0], 10, 10)).astype(np.float32)
    ref = cl.Network(cl.Program(engine, t, cl.BuildOptions(optimize_data=False))).run({"x": x})[prev]
    net = cl.Network(prog)
    for _ in range(3):
        np.testing.assert_allclose(net.run({"x": x})[prev], ref, rtol=1e-4, atol=1e-5 * np.abs(ref).max())


def test_strict_plan_needs_no_zero_fill(engine, rng):
    """The default (strict) plan on the same chain: no buffer holds two different strict layouts, nothing is
    zero-filled per run, and results equal the plain build over repeated runs."""
    from cldnn_py.passes.prepare_memory_dependencies import _strict_key

    t, prev, chs = _padded_chain(rng)
    prog = cl.Program(engine, t)
    if prog.node("conv0").layout().format != cl.Format.b_fs_yx_fsv16:
        pytest.skip("no blocked convolution kernel validates on this device: nothing is padded")
    assert not prog.memory_zero
    keys: dict[int, set] = {}
    for pid, slot in prog.memory_slots.items():
        keys.setdefault(slot, set()).add(_strict_key(prog.node(pid)))
    assert all(len(k) == 1 for k in keys.values()), keys
    x = rng.standard_normal((1, chs[0], 10, 10)).astype(np.float32)
    ref = cl.Network(cl.Program(engine, t, cl.BuildOptions(optimize_data=False))).run({"x": x})[prev]
    net = cl.Network(prog)
    net.poison()
    for _ in range(3):
        np.testing.assert_allclose(net.run({"x": x})[prev], ref, rtol=1e-4, atol=1e-5 * np.abs(ref).max())
