"""mvn_rows (OpenCL, CPU tier) and mvn_cpu_rows (CPU engine): MVN over the trailing axes of bfyx, chosen unforced,
against the float64 reference on poisoned outputs: LayerNorm rows (per-element gamma / beta, row lengths off the
float8 grid), InstanceNorm on bfyx (per-row scale / bias), scalars, mean-only; and the refusals."""

from __future__ import annotations

import pytest

import cldnn_py as cl
from cldnn_py.primitives.mvn import MVN
from kernel_selector import Params, selector
from tests.helpers import assert_close, cpu_tier, f32, typed_attrs
from tests.references import mvn_ref

KERNEL = {"ocl": "mvn_rows", "cpu": "mvn_cpu_rows"}

CASES = [
    # shape, axes, scale shape, bias shape, scale_axis, normalize_variance
    ((1, 197, 192), (-1,), (192,), (192,), None, True),       # a ViT LayerNorm: 24 float8 per row
    ((2, 7, 13), (2,), (13,), (1, 13), None, True),           # rows of 13: one float8 and 5 single floats
    ((3, 5), (-1,), (5,), None, None, True),                  # rows shorter than a float8
    ((2, 4, 3, 6), (2, 3), (3, 6), (3, 6), None, True),       # two trailing axes, per-element operands
    ((2, 3, 4, 5), (2, 3), (3,), (3,), 1, True),              # InstanceNorm: per-row scale (row % 3)
    ((2, 3, 4, 5), (2, 3), (2, 3, 1, 1), (1,), 0, True),      # per-row over (n, c); a scalar bias
    ((2, 5, 11), (-1,), None, (5, 1), 1, False),              # mean only, per-row bias
    ((37,), (0,), (37,), (37,), None, True),                  # rank 1: one row
    ((2, 2, 3, 2, 3, 9), (4, 5), (3, 9), None, None, True),   # rank 6
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c[0]}-axes{c[1]}-s{c[2]}-b{c[3]}")
def test_rows_match_reference(engine, rng, case):
    shape, axes, ss, bs, sax, nv = case
    x = f32(rng.standard_normal(shape) * 3 + 1.5)
    scale = f32(rng.standard_normal(ss)) if ss else None
    bias = f32(rng.standard_normal(bs)) if bs else None
    topo = cl.Topology(cl.InputLayout("x", cl.Layout(cl.DataType.f32, cl.Format.bfyx, shape)))
    if scale is not None:
        topo.add(cl.Data("s", scale))
    if bias is not None:
        topo.add(cl.Data("b", bias))
    topo.add(MVN("mvn", "x", axes=axes, epsilon=1e-3, normalize_variance=nv, scale="s" if ss else None,
                 bias="b" if bs else None, scale_axis=sax))
    net = cl.Network(cl.Program(engine, topo, cpu_tier()))
    assert net.program.node("mvn").impl.kernel_name == KERNEL[engine.kind]
    net.poison()
    out = net.run({"x": x})["mvn"]
    assert_close(out, mvn_ref(x, axes, 1e-3, nv, scale, bias, sax), rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("kind", ["ocl", "cpu"])
def test_rows_refusals(kind):
    """Non-trailing axes, a statistics result and a scale that varies within a row otherwise run the reference."""
    lay = lambda *s: cl.Layout(cl.DataType.f32, cl.Format.bfyx, s)  # noqa: E731

    def reason(x, attrs, extra=()):
        params = Params("mvn", kind, [x, *extra], x if attrs.get("result", "normalized") == "normalized"
                        else lay(*[1 if i in (2, 3) else s for i, s in enumerate(x.shape)]),
                        typed_attrs("mvn", attrs))
        return {v.kernel: v.reason for v in selector.explain(params)}[KERNEL[kind]]

    x = lay(2, 3, 4, 5)
    assert "not the trailing axes" in reason(x, {"axes": (1, 2)})
    assert "statistics" in reason(x, {"axes": (2, 3), "result": "mean"})
    assert "varies within a row" in reason(x, {"axes": (2, 3), "has_scale": True}, [lay(4, 1)])
    assert reason(x, {"axes": (2, 3), "has_scale": True}, [lay(4, 5)]) is None
