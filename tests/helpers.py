"""Test helpers: run a small topology with poisoned output buffers and compare with a float64 reference."""

from __future__ import annotations

import numpy as np

import cldnn_py as cl
import cldnn_py.primitives as prims
from cldnn_py.ops import OpAttrs


def f32(a: np.ndarray) -> np.ndarray:
    """As float32."""
    return np.asarray(a, dtype=np.float32)


def cpu_tier(**options) -> cl.BuildOptions:
    """BuildOptions that ask for the CPU tier of kernels (``kernel_tier="cpu"``: the register-tiled fsv16, gemm_tiled,
    fully_connected_gemm/gemv ... kernels), plus ``options``. For a test about a CPU-tier kernel: the default,
    ``"auto"``, picks the GPU tier on a GPU device (docs/gpu.md), so such a test would not see its kernel there."""
    return cl.BuildOptions(kernel_tier="cpu", **options)


def run_topology(engine: cl.Engine, topo: cl.Topology, feeds: dict[str, np.ndarray],
                 options: cl.BuildOptions | None = None) -> dict[str, np.ndarray]:
    """Build, poison every computed buffer with NaN, run, return {output id: array}."""
    net = cl.Network(cl.Program(engine, topo, options or cl.BuildOptions()))
    net.poison()
    return net.run(feeds)


def run_single(engine: cl.Engine, prim: cl.Primitive, inputs: dict[str, np.ndarray],
               data: dict[str, np.ndarray] | None = None, fmt: cl.Format = cl.Format.bfyx,
               out_fmt: cl.Format | None = None, options: cl.BuildOptions | None = None) -> np.ndarray:
    """Run one primitive. ``inputs`` become InputLayouts (f32 bfyx, then reordered to ``fmt`` when it is not
    bfyx, under the same id the primitive reads); ``data`` become Data. ``out_fmt`` adds a final reorder.
    ``options`` are the BuildOptions (e.g. ``force_implementations`` to test one kernel)."""
    topo = cl.Topology()
    for name, arr in inputs.items():
        dt = cl.DataType.from_numpy(arr.dtype)
        if fmt == cl.Format.bfyx:
            topo.add(cl.InputLayout(name, cl.Layout(dt, cl.Format.bfyx, arr.shape)))
        else:
            topo.add(cl.InputLayout(name + "__host", cl.Layout(dt, cl.Format.bfyx, arr.shape)))
            topo.add(cl.Reorder(name, name + "__host", fmt))
    for name, arr in (data or {}).items():
        topo.add(cl.Data(name, arr))
    topo.add(prim)
    out_id = prim.id
    if out_fmt is not None:
        topo.add(cl.Reorder(prim.id + "__out", prim.id, out_fmt))
        out_id = prim.id + "__out"
    feeds = {(n if fmt == cl.Format.bfyx else n + "__host"): a for n, a in inputs.items()}
    outs = run_topology(engine, topo, feeds, options)
    return outs[out_id]


def assert_close(actual: np.ndarray, expected: np.ndarray, rtol: float = 1e-4, atol: float = 1e-5) -> None:
    """Shapes equal, no NaN (unwritten poison), values within tolerance of the float64 reference."""
    assert actual.shape == expected.shape, f"shape {actual.shape} != {expected.shape}"
    assert not np.isnan(actual).any() or np.isnan(expected).any(), "NaN in output: an element was not written"
    np.testing.assert_allclose(actual.astype(np.float64), expected, rtol=rtol, atol=atol)


def typed_attrs(kind: str, attrs: object) -> OpAttrs:
    """The typed attributes (cldnn_py.ops) of primitive type ``kind`` from a dict of attribute values, for tests
    that build kernel_selector Params by hand; an OpAttrs is returned as it is."""
    if isinstance(attrs, OpAttrs):
        return attrs
    by_kind = {c.type_name: c.attrs_type for c in vars(prims).values()
               if isinstance(c, type) and issubclass(c, prims.Primitive)}
    return by_kind[kind](**dict(attrs))  # type: ignore[arg-type]
