"""activation vs float64 numpy references: every ActivationFunc with its parameters a/b, several formats.

All functions of one format run in one Program (one input per value range, one Activation per case), so the whole
list costs one batched build per format; a failure names every mismatching case.
"""

from __future__ import annotations

import numpy as np
import pytest

import cldnn_py as cl
from cldnn_py.ops.elementwise import ACTIVATIONS
from tests.helpers import f32, run_topology
from tests.ocl.activation_cases import AF, CASES, DEFAULT_TOL, RANGES, REFS
from tests.ocl.padded import run_kernel_padded


def test_every_function_is_covered():
    """Each ActivationFunc has a kernel formula, a numpy reference and at least one case here."""
    names = {f.value for f in AF}
    assert names == set(ACTIVATIONS)
    assert set(REFS) == set(AF)
    assert {c[0] for c in CASES} == set(AF)


@pytest.mark.parametrize("fmt", [cl.Format.bfyx, cl.Format.b_fs_yx_fsv16, cl.Format.byxf, cl.Format.yxfb])
def test_activation_matches_reference(engine, rng, fmt):
    shape = (2, 19, 3, 4)
    feeds = {name: f32(gen(rng, shape)) for name, gen in RANGES.items()}
    topo = cl.Topology()
    for name in RANGES:
        topo.add(cl.InputLayout(name, cl.Layout(cl.DataType.f32, cl.Format.bfyx, shape)))
        topo.add(cl.Reorder(f"{name}_{fmt.value}", name, fmt))
    for i, (func, a, b, rng_name, _) in enumerate(CASES):
        topo.add(cl.Activation(f"act{i}", f"{rng_name}_{fmt.value}", func=func, a=a, b=b))
    outs = run_topology(engine, topo, feeds)
    failures = []
    for i, (func, a, b, rng_name, tol) in enumerate(CASES):
        out = outs[f"act{i}"]
        rtol, atol = tol or DEFAULT_TOL
        x = feeds[rng_name].astype(np.float64)
        ref = REFS[func](x, a, b)
        assert out.shape == shape and out.dtype == np.float32
        bad = ~np.isclose(out.astype(np.float64), ref, rtol=rtol, atol=atol)
        if bad.any():
            j = np.flatnonzero(bad)[0]
            failures.append(f"{func.value}(a={a}, b={b}) on '{rng_name}': {bad.sum()} of {bad.size} mismatch, "
                            f"e.g. x={x.flat[j]!r}: got {out.flat[j]!r}, expected {ref.flat[j]!r}")
    assert not failures, "\n".join(failures)


@pytest.mark.parametrize("func", [AF.gelu, AF.clamp])
def test_activation_padded_buffers(engine, rng, func):
    """Padded input and output (b_fs_yx_fsv16 in, padded bfyx out): only the interior is read and written."""
    shape = (1, 19, 3, 4)
    lin = cl.Layout(cl.DataType.f32, cl.Format.b_fs_yx_fsv16, shape, cl.Padding((0, 0, 1, 2), (1, 0, 2, 0)))
    lout = cl.Layout(cl.DataType.f32, cl.Format.bfyx, shape, cl.Padding((1, 2, 0, 1), (0, 3, 1, 1)))
    x = f32(rng.standard_normal(shape) * 3)
    a, b = -0.5, 1.25
    out = run_kernel_padded(engine, "activation", [lin], lout, {"func": func, "a": a, "b": b}, [x])
    np.testing.assert_allclose(out, REFS[func](x.astype(np.float64), a, b), rtol=1e-5, atol=1e-6)


def test_activation_ref_applies_fused_activations(ocl_engine, rng):
    """activation_ref runs the activations fused after its own (a fake quantization's chain: linear 1/s → round →
    clamp → linear s), forced, on a padded b_fs_yx_fsv16 output; vs float64 (activation_gpu_wg:
    tests/passes/test_prepare_primitive_fusing.py)."""
    from cldnn_py.ops import FusedActivationAttrs
    from kernel_selector.params import FusedOp
    from tests.cpu.kernel_harness import run_kernel

    shape = (2, 19, 5, 6)
    lin = cl.Layout(cl.DataType.f32, cl.Format.bfyx, shape)
    lout = cl.Layout(cl.DataType.f32, cl.Format.b_fs_yx_fsv16, shape, padding=cl.Padding((0, 0, 1, 2), (0, 0, 1, 2)))
    x = f32(rng.standard_normal(shape) * 3)
    fused = [FusedOp("activation", FusedActivationAttrs("round", 0.0, 0.0)),
             FusedOp("activation", FusedActivationAttrs("clamp", -9.0, 9.0)),
             FusedOp("activation", FusedActivationAttrs("linear", 0.25, 0.0))]
    attrs = cl.Activation("a", "x", "linear", a=4.0, b=0.0).attrs()
    out, _ = run_kernel(ocl_engine, "activation", [lin], lout, attrs, [x], "activation_ref", fused)
    ref = np.clip(np.rint(x.astype(np.float64) * 4.0), -9, 9) * 0.25
    np.testing.assert_array_equal(out, ref)
    assert len(np.unique(out)) == 19  # every step of [-9, 9] / 4
