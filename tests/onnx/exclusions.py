"""ONNX node conformance cases that are excluded, each with its reason. The one place exclusions are listed.

Cases of operators outside the converter table, and cases whose inputs are not float32/integer/bool (float16,
float64, bfloat16, strings, float8), are not collected at all (see tests/onnx/test_conformance.py).
"""

EXCLUDED: dict[str, str] = {
}
