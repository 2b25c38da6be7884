"""The lrn test cases shared by tests/ocl/test_lrn.py and test_lrn_gpu.py (a test module never imports
another test module)."""

from __future__ import annotations

CASES = [
    # shape, size, alpha, beta, k
    ((2, 19, 4, 5), 5, 0.5, 0.75, 2.0),       # AlexNet-like window, alpha large enough to matter
    ((1, 8, 3, 3), 4, 0.9, 0.6, 1.0),          # even size: window asymmetric (1 before, 2 after)
    ((1, 6, 5, 2), 1, 2.0, 0.5, 1.5),          # size 1: only the element itself
    ((1, 5, 3, 4), 9, 1.0, 1.0, 0.5),          # window larger than C
    ((2, 11, 6), 3, 0.3, 0.75, 1.0),           # rank 3
    ((3, 7), 2, 1.5, 0.8, 1.0),                # rank 2
]
