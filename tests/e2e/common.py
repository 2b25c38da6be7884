"""Shared by the whole-network tests: import an example module, run it on cldnn_py and onnxruntime, compare."""

from __future__ import annotations

import importlib.util
import pathlib
import sys
from types import ModuleType

import numpy as np

import cldnn_py as cl
from tests.helpers import run_topology

EXAMPLES = pathlib.Path(__file__).resolve().parents[2] / "examples"


def load_example(name: str) -> ModuleType:
    """examples/<name>.py as a module (examples/ is a folder of scripts, not a package)."""
    key = f"cldnn_py_examples_{name}"
    if key not in sys.modules:
        spec = importlib.util.spec_from_file_location(key, EXAMPLES / f"{name}.py")
        assert spec is not None and spec.loader is not None, f"no example {name}"
        mod = importlib.util.module_from_spec(spec)
        sys.modules[key] = mod
        spec.loader.exec_module(mod)
    return sys.modules[key]


def compare_with_onnxruntime(engine: cl.Engine, rng: np.random.Generator, example: ModuleType,
                             to_onnx, rtol: float = 1e-4) -> None:
    """Seeded weights from ``rng`` → the example's Topology (rebuilt from the weights dict, which also exercises
    ``build(weights=...)``) and the independent ONNX graph ``to_onnx(weights)``; one random input; checks
    max|ours - ort| / max|ort| <= rtol on the logits, the same top-1, and that prob is a distribution."""
    from tests.e2e.onnx_models import ort_session

    _, weights = example.build(1, seed=int(rng.integers(2**31)))
    topo, used = example.build(1, weights=weights)
    assert list(used) == list(weights)
    x = rng.standard_normal((1, *example.INPUT_SHAPE)).astype(np.float32)

    ours = run_topology(engine, topo, {"data": x}, cl.BuildOptions(outputs=example.OUTPUTS))
    ref_logits, ref_prob = ort_session(to_onnx(weights)).run(["logits", "prob"], {"data": x})

    logits, prob = ours["logits"], ours["prob"]
    assert logits.shape == ref_logits.shape == (1, 1000) and prob.shape == (1, 1000)
    assert np.isfinite(logits).all() and np.isfinite(prob).all(), "NaN/inf in our output (unwritten poison?)"
    err = np.abs(logits.astype(np.float64) - ref_logits).max() / np.abs(ref_logits).max()
    worst = int(np.abs(logits - ref_logits).argmax())
    assert err <= rtol, (f"logits relative error {err:.3g} > {rtol:g} (worst class {worst}: ours "
                         f"{logits[0, worst]:.6f}, onnxruntime {ref_logits[0, worst]:.6f})")
    top, ref_top = int(logits.argmax()), int(ref_logits.argmax())
    # A tie within the tolerance is no disagreement (astronomically rare with continuous random data).
    tie = ref_logits[0, ref_top] - ref_logits[0, top] <= rtol * np.abs(ref_logits).max()
    assert top == ref_top or tie, f"top-1: ours {top}, onnxruntime {ref_top}"
    assert abs(float(prob.astype(np.float64).sum()) - 1.0) <= 1e-5, f"prob sums to {prob.sum()}"
    np.testing.assert_allclose(prob, ref_prob, rtol=1e-3, atol=1e-6)
