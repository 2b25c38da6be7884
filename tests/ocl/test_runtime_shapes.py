"""Shapes as kernel arguments (kernel_selector/common/runtime_shapes.py): the blocked batch norm and concatenation
compile one binary for every shape (PoCL keeps only 128 loaded kernels; DenseNet-121 had 198), and stay correct
against float64 references on fresh data with poisoned outputs; the jit rewrite itself."""

from __future__ import annotations

import numpy as np

import cldnn_py as cl
from kernel_selector.common.runtime_shapes import move_shapes_to_args
from kernel_selector.jitter import JitConstants, tensor_jit
from tests.helpers import assert_close

F32, BFYX, FSV16 = cl.DataType.f32, cl.Format.bfyx, cl.Format.b_fs_yx_fsv16


def test_move_shapes_to_args_rewrites_the_tensor_constants():
    lay = cl.Layout(F32, FSV16, (2, 24, 5, 7))
    jit = tensor_jit("INPUT0", lay)
    pitch = int(jit["INPUT0_Y_PITCH"])
    args = move_shapes_to_args(jit, ["INPUT0"], {"CAT_FIRST1": 3})
    assert jit["INPUT0_FEATURE_NUM"] == "rs_input0_feature_num" and jit["INPUT0_Y_PITCH"] == "rs_input0_y_pitch"
    assert "INPUT0_GET_INDEX(B, F, Y, X)" not in jit and "INPUT0_PAD_BEFORE_SIZE_X" not in jit
    assert "INPUT0_LOAD8(p, i)" in jit and jit["CAT_FIRST1"] == "rs_cat_first1"
    decl = jit["RUNTIME_SHAPE_ARGS"].split(", ")[1:]
    assert len(decl) == len(args) and decl[0] == "int rs_input0_batch_num"
    values = dict(zip((d.split()[1] for d in decl), (a.index for a in args)))
    assert values["rs_input0_feature_num"] == 24 and values["rs_input0_y_pitch"] == pitch
    assert values["rs_cat_first1"] == 3 and all(a.kind == "int" for a in args)


def _bn_concat(rng, c0, c1, hw):
    """x0 (c0 ch) and x1 (c1 ch) → concat → batch norm → ReLU, blocked; returns topology, feeds, reference."""
    x0 = rng.standard_normal((1, c0, hw, hw)).astype(np.float32)
    x1 = rng.standard_normal((1, c1, hw, hw)).astype(np.float32)
    c = c0 + c1
    mean, scale, shift = (rng.standard_normal(c).astype(np.float32) for _ in range(3))
    var = (rng.random(c) + 0.5).astype(np.float32)
    topo = cl.Topology(
        cl.InputLayout("x0", cl.Layout(F32, BFYX, x0.shape)), cl.InputLayout("x1", cl.Layout(F32, BFYX, x1.shape)),
        cl.Reorder("b0", "x0", FSV16), cl.Reorder("b1", "x1", FSV16),
        cl.Concatenation("cat", ["b0", "b1"], axis=1),
        cl.Data("m", mean), cl.Data("v", var), cl.Data("s", scale), cl.Data("t", shift),
        cl.BatchNorm("bn", "cat", mean="m", variance="v", scale="s", shift="t", epsilon=1e-3),
        cl.Activation("y", "bn", "relu"))
    xc = np.concatenate([x0, x1], 1).astype(np.float64)
    r = lambda a: a.reshape(1, c, 1, 1).astype(np.float64)  # noqa: E731
    ref = np.maximum((xc - r(mean)) / np.sqrt(r(var) + 1e-3) * r(scale) + r(shift), 0)
    return topo, {"x0": x0, "x1": x1}, ref


def test_batch_norm_and_concatenation_share_one_binary_across_shapes(ocl_engine, rng):
    sources: dict[str, set[str]] = {"cat": set(), "bn": set()}
    for c0, c1, hw in [(32, 16, 6), (64, 16, 9), (48, 5, 4)]:
        topo, feeds, ref = _bn_concat(rng, c0, c1, hw)
        net = cl.Network(cl.Program(ocl_engine, topo))
        kernels = {pid: net.program.node(pid).impl for pid in sources}
        if kernels["cat"].kernel_name != "concatenation_b_fs_yx_fsv16" \
                or kernels["bn"].kernel_name != "batch_norm_b_fs_yx_fsv16":
            return  # a GPU-tier device: other kernels (nothing to check here)
        for pid in sources:
            sources[pid].add(kernels[pid].kernels[0].source)
        net.poison()
        assert_close(net.run(feeds)["y"], ref, rtol=1e-5, atol=1e-5)
    assert all(len(s) == 1 for s in sources.values()), {k: len(v) for k, v in sources.items()}


def test_jit_constants_stay_literal_without_the_rewrite():
    jit = JitConstants()
    jit.update(tensor_jit("OUTPUT", cl.Layout(F32, BFYX, (1, 3, 4, 5))))
    assert jit["OUTPUT_FEATURE_NUM"] == "3" and "RUNTIME_SHAPE_ARGS" not in jit
