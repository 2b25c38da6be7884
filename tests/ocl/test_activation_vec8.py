"""activation_vec8 is the kernel for f32 activations on flat and b_fs_yx_fsv16 layouts (test_activation.py then
checks every function through it), and stays away from what it cannot take (a padded bfyx input); values vs the
float64 reference with the output poisoned."""

from __future__ import annotations

import numpy as np
import pytest

import cldnn_py as cl
from tests.helpers import assert_close, f32
from tests.references import activation_ref


@pytest.mark.parametrize("fmt, shape", [(cl.Format.bfyx, (1, 3, 7, 5)), (cl.Format.b_fs_yx_fsv16, (2, 21, 3, 4))])
@pytest.mark.parametrize("func", ["logistic", "hard_swish", "elu"])
def test_activation_vec8_chosen_and_correct(ocl_engine, rng, fmt, shape, func):
    x = f32(rng.standard_normal(shape) * 3)
    topo = cl.Topology(cl.InputLayout("x", cl.Layout(cl.DataType.f32, cl.Format.bfyx, shape)),
                       cl.Reorder("xr", "x", format=fmt), cl.Activation("a", "xr", func=func),
                       cl.Reorder("out", "a", format=cl.Format.bfyx))
    net = cl.Network(cl.Program(ocl_engine, topo, cl.BuildOptions(kernel_tier="cpu")))
    net.poison()
    out = net.run({"x": x})["out"]
    assert net.program.node("a").impl.kernel_name == "activation_vec8"
    a = 1.0 if func == "elu" else None
    assert_close(out, activation_ref(x, func, a), rtol=1e-5, atol=1e-6)
    assert np.isfinite(out).all()
