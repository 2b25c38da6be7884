"""Bad input gives a clear error naming the primitive, and leaves nothing half-built behind."""

from __future__ import annotations

import numpy as np
import pytest

import cldnn_py as cl
from kernel_selector import KernelBase, KernelData, Params, register
from kernel_selector.kernel_base import ClKernelData


@register
class _BrokenActivation(KernelBase):
    """A kernel whose source does not compile; only used when forced."""

    name = "activation_broken_for_test"
    primitive = "activation"

    def priority(self, params: Params) -> int:
        return 10**6

    def kernel_data(self, params: Params) -> KernelData:
        entry, src = self.make_source(self.jit_constants(params),
                                      "KERNEL(broken)(__global float* out) { out[0] = undefined_symbol; }\n")
        return KernelData(self.name, [ClKernelData(entry, src, (1,), None, [])])


def _conv_topology(w_shape=(4, 3, 3, 3)):
    rng = np.random.default_rng(3)
    return cl.Topology(
        cl.InputLayout("data", cl.Layout(cl.DataType.f32, cl.Format.bfyx, (1, 3, 8, 8))),
        cl.Data("w", rng.standard_normal(w_shape).astype(np.float32)),
        cl.Convolution("conv1", "data", weights="w", pad=(1, 1)),
    )


def test_weights_shape_mismatch_names_primitive_expected_and_actual(engine):
    msg = r"convolution 'conv1': weights 'w' shape: expected .*3.*got \(4, 2, 3, 3\)"
    with pytest.raises(cl.ShapeError, match=msg):
        cl.Program(engine, _conv_topology((4, 2, 3, 3)))


def test_unknown_output_name(engine):
    with pytest.raises(cl.TopologyError, match="'nope'"):
        cl.Program(engine, _conv_topology(), cl.BuildOptions(outputs=["nope"]))


def test_kernel_build_failure_names_primitive_kernel_and_log(engine):
    if engine.kind != "ocl":
        pytest.skip("an OpenCL build failure: the CPU engine builds no OpenCL")
    topo = _conv_topology()
    topo.add(cl.Activation("relu1", "conv1"))
    opts = cl.BuildOptions(force_implementations={"relu1": "activation_broken_for_test"})
    with pytest.raises(cl.KernelBuildError) as info:
        cl.Program(engine, topo, opts)
    err = info.value
    assert err.primitive_ids == ["relu1"]
    assert err.kernel_name == "activation_broken_for_test"
    assert "undefined_symbol" in err.build_log
    assert "relu1" in str(err) and "activation_broken_for_test" in str(err)
    # the topology is unchanged and still builds without the forced kernel
    assert topo.ids() == ["data", "w", "conv1", "relu1"]
    net = cl.Network(cl.Program(engine, topo))
    x = np.random.default_rng(5).standard_normal((1, 3, 8, 8)).astype(np.float32)
    assert net.run({"data": x})["relu1"].min() >= 0


def test_forced_kernel_that_cannot_run_is_explained(engine):
    opts = cl.BuildOptions(force_implementations={"conv1": "no_such_kernel"})
    msg = r"forced kernel 'no_such_kernel' does not exist[\s\S]*convolution_(cpu_)?ref"
    with pytest.raises(cl.UnsupportedError, match=msg):
        cl.Program(engine, _conv_topology(), opts)


def test_unsupported_combination_carries_explanation(engine):
    topo = cl.Topology(cl.InputLayout("x", cl.Layout(cl.DataType.i32, cl.Format.bfyx, (1, 2, 3, 3))),
                       cl.Activation("relu", "x"))
    with pytest.raises(cl.UnsupportedError) as info:
        cl.Program(engine, topo)
    msg = str(info.value)
    ref = "activation_ref" if engine.kind == "ocl" else "activation_cpu_ref"
    assert "activation 'relu'" in msg and f"{ref}: rejected: input 0 data type i32" in msg


@pytest.fixture
def net(engine):
    return cl.Network(cl.Program(engine, _conv_topology()))


def test_set_input_unknown_id_suggests(net):
    with pytest.raises(cl.TopologyError, match=r"'dat' is not an input.*did you mean 'data'"):
        net.set_input_data("dat", np.zeros((1, 3, 8, 8), np.float32))


def test_set_input_wrong_shape(net):
    with pytest.raises(cl.ShapeError, match=r"input_layout 'data': shape: expected \(1, 3, 8, 8\), got \(1, 3, 8, 9\)"):
        net.set_input_data("data", np.zeros((1, 3, 8, 9), np.float32))


def test_set_input_wrong_dtype(net):
    with pytest.raises(cl.DTypeError, match=r"input_layout 'data': dtype: expected float32.*got float64"):
        net.set_input_data("data", np.zeros((1, 3, 8, 8)))


def test_failed_set_input_leaves_network_usable(net, rng):
    x = rng.standard_normal((1, 3, 8, 8)).astype(np.float32)
    net.set_input_data("data", x)
    first = net.execute()["conv1"].numpy()
    with pytest.raises(cl.ShapeError):
        net.set_input_data("data", np.zeros((2, 3, 8, 8), np.float32))
    np.testing.assert_array_equal(net.execute()["conv1"].numpy(), first)


def test_execute_without_input(engine):
    net = cl.Network(cl.Program(engine, _conv_topology()))
    with pytest.raises(cl.CldnnError, match=r"inputs \['data'\] were never set"):
        net.execute()


def test_engine_objects_refuse_pickling(engine, net):
    import pickle

    for obj in (engine, net, net.program):
        with pytest.raises(TypeError, match="cannot be pickled"):
            pickle.dumps(obj)


def test_bad_device_spec():
    with pytest.raises(cl.DeviceError, match="bad device spec"):
        cl.Engine(device="gpu:x")
    with pytest.raises(cl.DeviceError, match="expected platform"):
        cl.Engine(device="cl:99:0")


def test_error_in_a_pass_names_the_pass_the_node_and_the_passes_before(engine):
    with pytest.raises(cl.ShapeError) as info:
        cl.Program(engine, _conv_topology((4, 2, 3, 3)))
    notes = "\n".join(getattr(info.value, "__notes__", []))
    assert "pass 'graph_initializations' failed at node 'conv1' after passes []" in notes


def test_network_larger_than_device_memory_names_sizes_before_allocating(engine, monkeypatch):
    import dataclasses

    prog = cl.Program(engine, _conv_topology())
    small = dataclasses.replace(engine.info, global_mem_bytes=1000)
    monkeypatch.setattr(engine, "info", small)
    with pytest.raises(cl.DeviceError, match=r"network needs \d+ bytes .* device has 1000 bytes .* largest: '"):
        cl.Network(prog)
