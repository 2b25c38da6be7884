"""The mvn test cases shared by tests/ocl/test_mvn.py and test_mvn_gpu.py (a test module never imports
another test module)."""

from __future__ import annotations

import cldnn_py as cl

CASES = [
    # shape, axes, scale shape, bias shape, scale_axis, normalize_variance, fmt
    ((2, 3, 4, 5), (2, 3), (3,), (3,), 1, True, cl.Format.bfyx),                 # instance norm
    ((2, 18, 3, 4), (2, 3), (18,), (18,), 1, True, cl.Format.b_fs_yx_fsv16),
    ((2, 3, 4, 5), (-1,), (5,), (5,), None, True, cl.Format.byxf),              # layer norm, last axis
    ((2, 3, 4, 5), (1, 2, 3), (3, 4, 5), (1, 4, 5), None, True, cl.Format.bfyx),
    ((3, 4), (0, 1), (3, 4), None, None, True, cl.Format.bfyx),
    ((2, 6, 5, 3), (0, 2, 3), None, None, None, True, cl.Format.b_fs_yx_fsv16),  # batch norm statistics
    ((2, 5, 7), (2,), None, (5, 1), 1, False, cl.Format.bfyx),                  # mean only, (5, 1) bias
    ((37,), (0,), (37,), (37,), None, True, cl.Format.bfyx),                    # rank 1
    ((2, 3, 2, 3, 4), (2, 3, 4), (3,), (3,), 1, True, cl.Format.bfyx),          # rank 5 instance norm
    ((2, 2, 3, 2, 3, 2), (4, 5), (3, 2), (2,), None, True, cl.Format.bfyx),     # rank 6 layer norm
]
