"""ONNX's own node test cases (onnx.backend.test.case.node) through the public API, as a user calls it:
``cl.Network(engine, cl.load_onnx(case.model)).run(feeds)`` with the feeds exactly as the case gives them (int64,
bool, rank-0, shape-determining inputs such as Reshape ``shape`` or Reduce ``axes`` as graph inputs, dynamic
dimensions), the outputs compared in the dtype and shape the case expects.

Collected: every case whose operators all have a converter, run on the host (host_ops.HOST_OPS) or fold away as
constants, and whose inputs and outputs are float32, int64, int32, bool, uint8 or int8, except cases computing on
int8/uint8 tensors alone (int8 arithmetic belongs to the reduced-precision work).
Excluded cases are listed with their reason in tests/onnx/exclusions.py. Run one operator: ``-k test_relu``.
Every case runs on the CPU engine, about half on the OpenCL device (:func:`_ocl_subset`: every operator, every
other variant). ``-k ocl-test_relu`` selects one engine.
"""

from __future__ import annotations

import functools
import warnings

import numpy as np
import pytest

import cldnn_py as cl
from cldnn_py.frontend.onnx_ops import CONVERTERS
from cldnn_py.host_ops import HOST_OPS
from tests.conftest import ENGINES
from tests.onnx.exclusions import EXCLUDED

FOLD_ONLY = {"Constant", "ConstantOfShape", "Shape", "Size", "Range"}
OK_DTYPES = {np.dtype(np.float32), np.dtype(np.int64), np.dtype(np.int32), np.dtype(np.bool_), np.dtype(np.uint8),
             np.dtype(np.int8)}
INT8_DTYPES = {np.dtype(np.uint8), np.dtype(np.int8)}


def _arrays(case) -> list[np.ndarray]:
    out = []
    for inputs, outputs in case.data_sets or []:
        out += [np.asarray(a) for a in list(inputs) + list(outputs) if not isinstance(a, (list, dict))]
    return out


@functools.lru_cache(maxsize=1)
def all_node_cases() -> tuple:
    """Every case of ``onnx.backend.test.case.node``, generated once per process (onnx runs each case's reference
    implementation: about 11 s; test_conformance_fallback takes its cases from here too)."""
    from onnx.backend.test.case.node import collect_testcases

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return tuple(collect_testcases())


def _collect():
    selected = []
    for case in all_node_cases():
        if case.model is None or not case.data_sets:
            continue
        ops = {n.op_type for n in case.model.graph.node}
        if not ops <= set(CONVERTERS) | FOLD_ONLY | set(HOST_OPS) or not ops & (set(CONVERTERS) | set(HOST_OPS)):
            continue
        arrays = _arrays(case)
        if not arrays or any(a.dtype not in OK_DTYPES for a in arrays):
            continue
        if not any(a.dtype == np.float32 for a in arrays) and any(a.dtype in INT8_DTYPES for a in arrays):
            continue  # arithmetic on int8/uint8 tensors: the reduced-precision issue (int8 kernels)
        selected.append(case)
    return selected


CASES = _collect()


def _ocl_subset(cases) -> set[str]:
    """The cases run on the OpenCL device too: of the cases of each operator set, the 1st, 3rd, 5th ... (every
    operator keeps at least one). Each case is a PoCL build of its own (about 0.3 s, most of it PoCL parsing
    clang's opencl-c.h: a fixed cost per program), so all 790 cost 270 s of the suite's time on a fresh cache; the
    variants left out (another axis, keepdims, a default attribute) differ in the frontend's conversion, which the
    CPU engine's run of every case checks, and in jit constants of kernels that tests/ocl checks one by one."""
    seen: dict[frozenset[str], int] = {}
    keep = set()
    for case in cases:
        ops = frozenset(n.op_type for n in case.model.graph.node) - FOLD_ONLY
        seen[ops] = seen.get(ops, 0) + 1
        if seen[ops] % 2 == 1:
            keep.add(case.name)
    return keep


OCL_CASES = _ocl_subset(CASES)


def _param(case, kind: str):
    marks = [pytest.mark.skip(reason=EXCLUDED[case.name])] if case.name in EXCLUDED else []
    return pytest.param(case, kind, id=f"{kind}-{case.name}", marks=marks)


@pytest.fixture(scope="module")
def engines(request):
    """The engines of ENGINES by kind; OpenCL's is the session's ``ocl_engine`` (not a second context)."""
    return {k: request.getfixturevalue("ocl_engine") if k == "ocl" else cl.Engine("cpu") for k in ENGINES}


@pytest.mark.parametrize("case, kind", [_param(c, k) for k in ENGINES for c in CASES
                                        if k == "cpu" or c.name in OCL_CASES])
def test_onnx_node_case(case, kind, engines):
    net = cl.Network(engines[kind], cl.load_onnx(case.model))
    init = {i.name for i in case.model.graph.initializer}
    names = [i.name for i in case.model.graph.input if i.name not in init]
    for inputs, expected in case.data_sets:
        assert len(inputs) == len(names)
        outputs = net.run(dict(zip(names, inputs)))
        assert len(expected) == len(case.model.graph.output)
        for out, ref in zip(case.model.graph.output, expected):
            got, ref = outputs[out.name], np.asarray(ref)
            assert got.dtype == ref.dtype, f"dtype {got.dtype} != {ref.dtype}"
            assert got.shape == ref.shape, f"shape {got.shape} != {ref.shape}"
            np.testing.assert_allclose(got, ref, rtol=case.rtol, atol=case.atol)


def test_every_exclusion_names_a_collected_case():
    names = {c.name for c in CASES}
    stale = sorted(set(EXCLUDED) - names)
    assert not stale, f"exclusions that match no collected case (remove them): {stale}"
