"""Zero-copy I/O on both engines (docs/zero_copy.md): ``Network.set_input_memory`` / ``set_output_memory`` against
``set_input_data`` and ``run``; the bound array updated in place between runs; the errors (naming the id, expected
vs actual, leaving the network as it was); blocked, padded and byxf InputLayouts converted on the device. The
OpenCL engine runs every test twice: as it is, and as a discrete GPU (no host-unified memory), whose bindings are
"staged" and "read" instead of "shared" (the H100 runs of 2026-11-26 found these tests assumed PoCL's kind).

Every network here is small (2x5x9x9 input, one 3x3 convolution); outputs are poisoned with NaN before each run
that is checked, so a kernel that wrote nowhere, or into a buffer nobody reads, fails."""

from __future__ import annotations

import dataclasses
import logging

import numpy as np
import pytest

import cldnn_py as cl
from tests.references import activation_ref, conv_ref

SHAPE = (2, 5, 9, 9)


@pytest.fixture(params=["as-is", "discrete"])
def engine(engine, request, monkeypatch):
    """Each engine as it is, and the OpenCL one also as a discrete GPU would be (``host_unified_memory=False``:
    bound arrays staged through pinned memory, outputs read, ``zero_copy=True`` refused), so that the
    expectations of both kinds of device are checked here, where CI has only PoCL."""
    if request.param == "discrete":
        if engine.kind != "ocl" or not engine.info.host_unified_memory:
            pytest.skip("the engine as it is already covers this")
        monkeypatch.setattr(engine, "info", dataclasses.replace(engine.info, host_unified_memory=False))
    return engine


def shared(engine) -> str:
    """The binding mode of an aligned array on ``engine``: "shared" where the device works on host memory,
    else "staged" (inputs)."""
    return "shared" if engine.info.host_unified_memory else "staged"


def topology(rng, fmt: cl.Format = cl.Format.bfyx, padding: cl.Padding | None = None) -> cl.Topology:
    """x -> 3x3 convolution (16 channels) + relu "r" (blocked on PoCL), and x -> tanh "t" (plain)."""
    t = cl.Topology()
    t.add(cl.InputLayout("x", cl.Layout(cl.DataType.f32, fmt, SHAPE, padding or cl.Padding())))
    t.add(cl.Data("w", rng.standard_normal((16, 5, 3, 3)).astype(np.float32)),
          cl.Data("b", rng.standard_normal(16).astype(np.float32)))
    t.add(cl.Convolution("c", "x", weights="w", bias="b", pad=(1, 1)), cl.Activation("r", "c", "relu"))
    t.add(cl.Activation("t", "x", "tanh"))
    return t


def expected(topo: cl.Topology, x: np.ndarray) -> dict[str, np.ndarray]:
    """float64 references of "r" and "t"."""
    w, b = topo["w"].array, topo["b"].array
    r = activation_ref(conv_ref(x, w, b, (1, 1), (1, 1), (1, 1), (1, 1), 1), "relu")
    return {"r": r, "t": np.tanh(x.astype(np.float64))}


def check(out: dict[str, np.ndarray], ref: dict[str, np.ndarray]) -> None:
    for k, v in ref.items():
        assert not np.isnan(out[k]).any(), f"{k}: unwritten (poisoned) elements"
        np.testing.assert_allclose(out[k], v, rtol=1e-4, atol=1e-4, err_msg=k)


def fresh(rng) -> np.ndarray:
    return rng.standard_normal(SHAPE).astype(np.float32)


def test_bound_input_gives_the_outputs_of_set_input_data(engine, rng):
    topo = topology(rng)
    x = fresh(rng)
    net = cl.Network(engine, topo)
    net.poison()
    by_copy = net.run({"x": x})
    bound = cl.Network(engine, topo)
    a = bound.new_input_array("x")
    assert a.shape == SHAPE and a.dtype == np.float32 and a.ctypes.data % engine.host_alignment == 0
    a[...] = x
    bound.set_input_memory("x", a)
    assert bound.io_bindings()["inputs"] == {"x": shared(engine)}  # PoCL's CPU device and the CPU engine: shared
    bound.poison()
    out = bound.run({})
    for k in ("r", "t"):
        np.testing.assert_array_equal(out[k], by_copy[k], err_msg=k)
    check(out, expected(topo, x))


@pytest.mark.parametrize("zero_copy", [None, False])
def test_updating_the_bound_array_in_place_changes_the_result(engine, rng, zero_copy):
    topo = topology(rng)
    net = cl.Network(engine, topo)
    a = net.new_input_array("x")
    a[...] = fresh(rng)
    net.set_input_memory("x", a, zero_copy=zero_copy)
    assert net.io_bindings()["inputs"]["x"] == (shared(engine) if zero_copy is None else "staged")
    net.run({})
    for _ in range(2):
        x = fresh(rng)
        a[...] = x  # in place, between runs
        net.poison()
        outs = net.execute()
        check({k: o.numpy() for k, o in outs.items()}, expected(topo, x))


def test_staged_copy_through_pinned_memory_as_on_a_gpu(ocl_engine, rng, monkeypatch):
    """A device without host-unified memory: the bound array is copied through a page-locked staging buffer
    (CL_MEM_ALLOC_HOST_PTR, mapped); an array from new_input_array is that memory, copied from as it is."""
    topo = topology(rng)
    net = cl.Network(ocl_engine, topo)
    monkeypatch.setattr(ocl_engine, "info", dataclasses.replace(ocl_engine.info, host_unified_memory=False))
    user = np.empty(SHAPE, np.float32)
    net.set_input_memory("x", user)
    b = net._in_bind["x"]
    assert b.mode == "staged" and b.staging is not None and b.staging.nbytes == user.nbytes
    for _ in range(2):
        x = fresh(rng)
        user[...] = x
        net.poison()
        check(net.run({}), expected(topo, x))
    pinned = net.new_input_array("x")
    net.set_input_memory("x", pinned)
    b = net._in_bind["x"]
    assert b.mode == "staged" and b.staging is None and b.keep is not None  # no staging copy: it is pinned already
    x = fresh(rng)
    pinned[...] = x
    net.poison()
    check(net.run({}), expected(topo, x))
    with pytest.raises(cl.BindingError, match="'x'.*host_unified_memory=False"):
        net.set_input_memory("x", pinned, zero_copy=True)


def test_a_misaligned_array_is_copied_with_a_warning_or_refused(engine, rng, caplog):
    topo = topology(rng)
    net = cl.Network(engine, topo)
    raw = np.empty(int(np.prod(SHAPE)) * 4 + 2 * engine.host_alignment, np.uint8)
    start = (-raw.ctypes.data) % engine.host_alignment + 4  # 4 bytes past an aligned address
    a = raw[start:start + int(np.prod(SHAPE)) * 4].view(np.float32).reshape(SHAPE)
    x = fresh(rng)
    a[...] = x
    with pytest.raises(cl.BindingError, match=r"input_layout 'x'.*starts 4 bytes past a multiple of "
                                              rf"{engine.host_alignment}"):
        net.set_input_memory("x", a, zero_copy=True)
    assert net.io_bindings()["inputs"] == {}
    with pytest.raises(cl.CldnnError, match="never set"):
        net.execute()
    with caplog.at_level(logging.WARNING, logger="cldnn_py.network"):
        net.set_input_memory("x", a)
    if engine.info.host_unified_memory:  # warned: an aligned array would have been shared
        assert "'x'" in caplog.text and "copied at every run" in caplog.text
    else:  # staged as every array is there: nothing to warn about
        assert "copied at every run" not in caplog.text
    assert net.io_bindings()["inputs"] == {"x": "staged"}
    net.poison()
    check(net.run({}), expected(topo, x))


def test_bad_arrays_are_refused_naming_the_input_and_nothing_changes(engine, rng):
    topo = topology(rng)
    net = cl.Network(engine, topo)
    a = net.new_input_array("x")
    x = fresh(rng)
    a[...] = x
    net.set_input_memory("x", a)
    cases = [
        (net.new_input_array("x").astype(np.float64), cl.DTypeError, r"'x'.*expected float32, got float64"),
        (np.empty((2, 5, 9, 8), np.float32), cl.ShapeError, r"'x'.*expected \(2, 5, 9, 9\), got \(2, 5, 9, 8\)"),
        (np.empty((2, 5, 9, 18), np.float32)[..., ::2], cl.BindingError, "'x'.*not C-contiguous"),
        ([[1.5, 2.5]], cl.BindingError, "'x'.*expected a numpy.ndarray or a cldnn_py.Memory, got list"),
    ]
    ro = net.new_input_array("x")
    ro.flags.writeable = False
    cases.append((ro, cl.BindingError, "'x'.*read-only"))
    for bad, err, msg in cases:
        with pytest.raises(err, match=msg):
            net.set_input_memory("x", bad)
    with pytest.raises(cl.TopologyError, match="'xx' is not an input.*did you mean 'x'"):
        net.set_input_memory("xx", a)
    assert net.io_bindings()["inputs"] == {"x": shared(engine)}  # the earlier binding stands
    net.poison()
    check(net.run({}), expected(topo, x))


def test_set_input_data_and_none_let_the_array_go(engine, rng):
    topo = topology(rng)
    net = cl.Network(engine, topo)
    a = net.new_input_array("x")
    a[...] = fresh(rng)
    net.set_input_memory("x", a)
    x = fresh(rng)
    net.poison()
    out = net.run({"x": x})  # set_input_data: back to the network's own buffer
    assert net.io_bindings()["inputs"] == {}
    a[...] = fresh(rng)  # no longer read
    net.poison()
    check(net.run({}), expected(topo, x))
    check(out, expected(topo, x))
    net.set_input_memory("x", a)
    net.set_input_memory("x", None)
    with pytest.raises(cl.CldnnError, match=r"inputs \['x'\] were never set"):
        net.execute()


def test_outputs_into_user_arrays(engine, rng):
    topo = topology(rng)
    net = cl.Network(engine, topo)
    ot, orr = net.new_output_array("t"), net.new_output_array("r")
    net.set_output_memory("t", ot)
    net.set_output_memory("r", orr)
    modes = net.io_bindings()["outputs"]
    unified = engine.info.host_unified_memory
    # "t" is plain, in a buffer of its own: the kernel writes the user's array (a discrete GPU: read into it)
    assert modes["t"] == ("shared" if unified else "read")
    # "r" is blocked (b_fs_yx_fsv16) on PoCL: converted on the host into the user's array
    assert modes["r"] == (("shared" if unified else "read") if net.get_output_layout("r").is_plain else "convert")
    for _ in range(2):
        x = fresh(rng)
        net.poison()
        out = net.run({"x": x})
        assert out["t"] is ot and out["r"] is orr
        check({"t": ot, "r": orr}, expected(topo, x))
    read = np.empty(SHAPE, np.float32)  # any alignment: one copy straight into it
    net.set_output_memory("t", read, zero_copy=False)
    assert net.io_bindings()["outputs"]["t"] == "read"
    x = fresh(rng)
    net.poison()
    net.set_input_data("x", x)
    outs = net.execute()
    assert outs["t"].numpy() is read
    check({"t": read}, {"t": np.tanh(x.astype(np.float64))})
    net.set_output_memory("t", None)
    net.set_output_memory("r", None)
    assert net.io_bindings()["outputs"] == {}
    ot[...] = -3.25
    x = fresh(rng)
    net.poison()
    check(net.run({"x": x}), expected(topo, x))
    assert (ot == -3.25).all()  # let go: no longer written


def test_output_binding_errors(engine, rng):
    topo = topology(rng)
    net = cl.Network(engine, topo)
    with pytest.raises(cl.ShapeError, match=r"output 't'.*expected \(2, 5, 9, 9\), got \(2, 5, 9\)"):
        net.set_output_memory("t", np.empty((2, 5, 9), np.float32))
    with pytest.raises(cl.DTypeError, match="output 't'.*expected float32, got int32"):
        net.set_output_memory("t", np.empty(SHAPE, np.int32))
    with pytest.raises(cl.TopologyError, match="'tt' is not an output.*did you mean 't'"):
        net.set_output_memory("tt", np.empty(SHAPE, np.float32))
    a = net.new_output_array("t")
    with pytest.raises(cl.BindingError, match="output 't'.*starts 4 bytes past"):
        net.set_output_memory("t", _shifted(a), zero_copy=True)
    assert net.io_bindings()["outputs"] == {}
    x = fresh(rng)
    net.poison()
    check(net.run({"x": x}), expected(topo, x))


def _shifted(a: np.ndarray) -> np.ndarray:
    """An array of ``a``'s shape and dtype starting 4 bytes past an aligned address."""
    raw = np.empty(a.nbytes + 256, np.uint8)
    start = (-raw.ctypes.data) % 128 + 4
    return raw[start:start + a.nbytes].view(a.dtype).reshape(a.shape)


def test_plain_output_numpy_copies_once(engine, rng, monkeypatch):
    """NetworkOutput.numpy() of a plain, unpadded output returns the array the device buffer was read into."""
    topo = topology(rng)
    net = cl.Network(engine, topo)
    seen = []
    real = engine.read_buffer

    def spy(buffer, host, wait_for=None):
        seen.append(host)
        return real(buffer, host, wait_for=wait_for)

    monkeypatch.setattr(engine, "read_buffer", spy)
    x = fresh(rng)
    net.poison()
    t = net.run({"x": x})["t"]
    assert len(seen) == 2 and any(np.shares_memory(t, h) for h in seen)
    check({"t": t}, {"t": np.tanh(x.astype(np.float64))})


@pytest.mark.parametrize("fmt, padding", [
    (cl.Format.b_fs_yx_fsv16, None),
    (cl.Format.bfyx, cl.Padding((0, 0, 1, 2), (0, 0, 2, 1))),
    (cl.Format.byxf, None),
])
def test_a_blocked_or_padded_input_is_converted_on_the_device(engine, rng, fmt, padding):
    topo = topology(rng, fmt, padding)
    net = cl.Network(engine, topo)
    node = net.program.node("x")
    assert node.layout() == cl.Layout(cl.DataType.f32, cl.Format.bfyx, SHAPE)  # stored plain: the user's bytes
    plain = cl.Network(engine, topology(np.random.default_rng(0)))  # the same kernel for "c" as a bfyx input
    assert net.program.node("c").impl.kernel_name == plain.program.node("c").impl.kernel_name
    x = fresh(rng)
    net.poison()
    check(net.run({"x": x}), expected(topo, x))
    a = net.new_input_array("x")
    a[...] = x = fresh(rng)
    net.set_input_memory("x", a, zero_copy=True if engine.info.host_unified_memory else None)
    assert net.io_bindings()["inputs"] == {"x": shared(engine)}
    net.poison()
    check(net.run({}), expected(topo, x))


def test_another_networks_output_memory_as_input(engine, rng):
    """net1's plain output "t" (tanh x) bound as net2's input: net2 computes on it with no host copy."""
    topo2 = topology(rng)
    net1, net2 = cl.Network(engine, topology(rng)), cl.Network(engine, topo2)
    x = fresh(rng)
    net1.poison()
    net1.set_input_data("x", x)
    mem = net1.execute()["t"].memory
    net2.set_input_memory("x", mem)
    assert net2.io_bindings()["inputs"] == {"x": "device"}
    net2.poison()
    check(net2.run({}), expected(topo2, np.tanh(x.astype(np.float64)).astype(np.float32)))
    x = fresh(rng)  # the next run of net1 feeds net2 again
    net1.poison()
    net1.run({"x": x})
    net2.poison()
    check(net2.run({}), expected(topo2, np.tanh(x.astype(np.float64)).astype(np.float32)))
    other = cl.Engine("cpu") if engine.kind == "ocl" else cl.Engine()
    with pytest.raises(cl.BindingError, match="'x'.*another engine"):
        net2.set_input_memory("x", other.allocate(cl.Layout(cl.DataType.f32, cl.Format.bfyx, SHAPE)))
    with pytest.raises(cl.ShapeError, match=r"'x'.*expected \(2, 5, 9, 9\), got \(2, 5, 9, 8\)"):
        net2.set_input_memory("x", engine.allocate(cl.Layout(cl.DataType.f32, cl.Format.bfyx, (2, 5, 9, 8))))
    with pytest.raises(cl.BindingError, match="'x'.*buffer of this network"):
        net2.set_input_memory("x", net2.execute()["t"].memory)
    assert net2.io_bindings()["inputs"] == {"x": "device"}


def _int64_model(dims: list) -> bytes:
    """ONNX: int64 input "i" -> Cast(float) -> Relu "y"."""
    from onnx import TensorProto, helper

    g = helper.make_graph(
        [helper.make_node("Cast", ["i"], ["f"], to=TensorProto.FLOAT), helper.make_node("Relu", ["f"], ["y"])],
        "g", [helper.make_tensor_value_info("i", TensorProto.INT64, dims)],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, dims)])
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)], ir_version=10).SerializeToString()


def test_an_onnx_int64_input_binds_its_int32_storage_only(engine, rng):
    net = cl.Network(engine, cl.load_onnx(_int64_model([2, 3])))
    i64 = rng.integers(-1000, 1000, (2, 3)).astype(np.int64)
    with pytest.raises(cl.DTypeError, match="input_layout 'i'.*expected int32, got int64.*set_input_data"):
        net.set_input_memory("i", i64)
    a = net.new_input_array("i")
    assert a.dtype == np.int32
    a[...] = i64
    net.set_input_memory("i", a)
    y = net.new_output_array("y")
    net.set_output_memory("y", y)
    np.testing.assert_array_equal(net.run({})["y"], np.maximum(i64, 0).astype(np.float32))


def test_a_dynamic_network_refuses_binding(engine):
    net = cl.Network(engine, cl.load_onnx(_int64_model(["N", 3])))
    with pytest.raises(cl.UnsupportedError, match="DynamicNetwork.*set_input_data"):
        net.set_input_memory("i", np.zeros((2, 3), np.int32))
    with pytest.raises(cl.UnsupportedError, match="DynamicNetwork"):
        net.set_output_memory("y", np.zeros((2, 3), np.float32))


def test_wrap_host_uses_the_array_itself_and_leaves_it_unchanged(engine, rng):
    """Engine.wrap_host: a buffer over the caller's aligned bytes (PoCL: CL_MEM_USE_HOST_PTR, checked by a probe
    that flips and restores one byte); None for a misaligned or read-only array."""
    from cldnn_py.host_io import aligned_array, flat_bytes

    a = aligned_array((64,), np.dtype(np.float32), engine.host_alignment)
    a[...] = rng.standard_normal(64).astype(np.float32)
    before = a.copy()
    buf = engine.wrap_host(flat_bytes(a))
    if not engine.info.host_unified_memory:  # a discrete GPU: never the caller's bytes, and they are untouched
        assert buf is None
        np.testing.assert_array_equal(a, before)
        return
    assert buf is not None
    np.testing.assert_array_equal(a, before)  # the probe put its byte back
    a[3] = 7.5  # the host writes, the device sees it without a copy
    back = np.empty(64, np.float32)
    engine.read_buffer(buf, back)
    assert back[3] == 7.5
    engine.write_buffer(buf, np.full(64, -2.5, np.float32))  # the device writes, the host sees it
    engine.finish()
    assert (a == -2.5).all()
    assert engine.wrap_host(flat_bytes(a)[4:]) is None  # 4 bytes past an aligned address
    ro = aligned_array((64,), np.dtype(np.float32), engine.host_alignment)
    ro.flags.writeable = False
    assert engine.wrap_host(flat_bytes(ro)) is None


def test_an_array_bound_both_as_input_and_output_is_refused(engine, rng):
    net = cl.Network(engine, topology(rng))
    a = net.new_input_array("x")
    net.set_input_memory("x", a)
    with pytest.raises(cl.BindingError, match="output 't'.*overlaps an array bound as an input"):
        net.set_output_memory("t", a)
    net.set_input_memory("x", None)
    net.set_output_memory("t", a)
    with pytest.raises(cl.BindingError, match="input_layout 'x'.*overlaps an array bound as an output"):
        net.set_input_memory("x", a)
    mode = "shared" if engine.info.host_unified_memory else "read"
    assert net.io_bindings() == {"inputs": {}, "outputs": {"t": mode}}


def test_a_misaligned_output_array_is_read_into_with_a_warning(engine, rng, caplog):
    topo = topology(rng)
    net = cl.Network(engine, topo)
    a = _shifted(net.new_output_array("t"))
    with caplog.at_level(logging.WARNING, logger="cldnn_py.network"):
        net.set_output_memory("t", a)
    assert net.io_bindings()["outputs"] == {"t": "read"}
    # warned where an aligned array would have been written in place; a discrete GPU reads into every array
    assert ("output 't'" in caplog.text) == engine.info.host_unified_memory
    x = fresh(rng)
    net.poison()
    assert net.run({"x": x})["t"] is a
    check({"t": a}, {"t": np.tanh(x.astype(np.float64))})
