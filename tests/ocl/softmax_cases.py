"""The softmax test cases shared by tests/ocl/test_softmax.py and test_softmax_gpu.py (a test module never imports
another test module)."""

from __future__ import annotations

import numpy as np

import cldnn_py as cl

CASES = [
    # shape, axis
    ((2, 1000), 1),          # classifier output after a fully connected layer
    ((3, 10), -1),
    ((4, 6), 0),
    ((37,), 0),              # rank 1
    ((2, 19, 3, 4), 1),
    ((2, 5, 6, 3), 2),
    ((2, 5, 3, 7), 3),
    ((3, 4, 2, 5), 0),
    ((2, 17, 3, 4), -3),     # = axis 1
    ((2, 3, 8), 2),          # rank 3, last axis maps to dims4 y
    ((2, 9, 5), -2),         # rank 3, axis 1
]


# ----- log-softmax, ONNX opset < 13 "coerce to 2-D", rank 5-6 ---------------------------------------------------
def softmax_general_ref(x, axis, log=False, coerce_2d=False):
    """float64 (log-)softmax; with coerce_2d the input is viewed as 2-D at ``axis`` (ONNX Softmax-1/11)."""
    x = x.astype(np.float64)
    axis %= x.ndim
    shape = x.shape
    if coerce_2d:
        x = x.reshape(int(np.prod(shape[:axis])), -1)
        axis = 1
    m = x.max(axis=axis, keepdims=True)
    lse = m + np.log(np.exp(x - m).sum(axis=axis, keepdims=True))
    y = x - lse if log else np.exp(x - lse)
    return y.reshape(shape)


GENERAL = [
    # shape, axis, log, coerce_2d, fmt
    ((2, 3, 4, 5), -1, True, False, cl.Format.b_fs_yx_fsv16),
    ((2, 3, 4, 5), 2, True, True, cl.Format.byxf),         # over (4, 5) together
    ((3, 4, 5), 0, False, True, cl.Format.bfyx),           # the whole tensor
    ((2, 18, 3), 1, False, True, cl.Format.b_fs_yx_fsv16),
    ((2, 3, 2, 3, 4), 3, False, False, cl.Format.bfyx),    # rank 5
    ((2, 2, 3, 2, 3, 2), 2, True, True, cl.Format.bfyx),   # rank 6
]
