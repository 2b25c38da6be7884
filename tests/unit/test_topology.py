"""Topology validation: duplicate ids, missing inputs (with a suggestion), cycles; the Topology stays unchanged."""

from __future__ import annotations

import numpy as np
import pytest

import cldnn_py as cl

L = cl.Layout(cl.DataType.f32, cl.Format.bfyx, (1, 3, 8, 8))


def test_duplicate_id_is_refused_and_topology_unchanged():
    topo = cl.Topology(cl.InputLayout("data", L))
    with pytest.raises(cl.TopologyError, match="duplicate primitive id 'data'"):
        topo.add(cl.Activation("relu", "data"), cl.Activation("data", "relu"))
    assert topo.ids() == ["data"]  # all or nothing: 'relu' was not added either


def test_duplicate_within_one_call():
    topo = cl.Topology()
    with pytest.raises(cl.TopologyError, match="duplicate primitive id 'a'"):
        topo.add(cl.Activation("a", "x"), cl.Activation("a", "x"))
    assert len(topo) == 0


def test_missing_input_suggests_closest_id():
    topo = cl.Topology(cl.InputLayout("data", L), cl.Activation("conv1_relu", "dta"))
    with pytest.raises(cl.TopologyError, match=r"activation 'conv1_relu': input 'dta' does not exist.*'data'"):
        topo.validate()


def test_cycle_is_named():
    topo = cl.Topology(cl.InputLayout("data", L), cl.Eltwise("a", ["data", "c"]), cl.Activation("b", "a"),
                       cl.Activation("c", "b"))
    with pytest.raises(cl.TopologyError, match=r"cycle in topology: .*a -> b -> c|cycle in topology: .*c -> a"):
        topo.validate()


def test_forward_references_are_allowed():
    topo = cl.Topology(cl.Activation("relu", "data"), cl.InputLayout("data", L))
    assert topo.validate() == ["data", "relu"]


def test_non_primitive_is_refused():
    with pytest.raises(cl.TopologyError, match="expects primitives"):
        cl.Topology().add("conv1")  # type: ignore[arg-type]


def test_data_refuses_float64_with_hint():
    with pytest.raises(cl.DTypeError, match=r"data 'w'.*astype\(np.float32\)"):
        cl.Data("w", np.random.default_rng(0).standard_normal((2, 2)))


def test_data_is_copied():
    a = np.random.default_rng(1).standard_normal((3,)).astype(np.float32)
    d = cl.Data("w", a)
    a[0] = 1e9
    assert d.array[0] != 1e9
