"""The float64 numpy references the tests compare kernels and networks against, in one place.

Every reference computes in float64 from the operator's definition (ONNX operator specs unless said otherwise),
independently of the kernels' loop orders, and takes logical arrays: 4-D data is NCHW (batch, feature, y, x),
convolution weights OIHW (output channel, input channel per group, ky, kx), fully connected weights (M, K).
Inputs may be float32; results are float64. A reference used by one test module only may live in that module;
those shared by several (or imported across modules) live here, so that no test module imports another.
"""

from __future__ import annotations

import functools
import itertools
import math

import numpy as np

import cldnn_py as cl

# ----- convolution --------------------------------------------------------------------------------------------------


def conv_ref(x, w, b, stride, dilation, pad, pad_end, groups):
    """Direct float64 convolution (ONNX Conv), independent of the kernels' loop orders.

    x (N, C, H, W); w (OC, C / groups, KH, KW); b (OC,) or None; stride, dilation, pad (begin), pad_end: (y, x)
    pairs, zero padding. Returns (N, OC, OH, OW) with OH = (H + pad + pad_end - dilation * (KH - 1) - 1) // stride
    + 1 (floor), likewise OW; groups split C and OC into equal consecutive slices (depthwise: groups = C)."""
    x = np.pad(x.astype(np.float64), ((0, 0), (0, 0), (pad[0], pad_end[0]), (pad[1], pad_end[1])))
    n, c, h, wd = x.shape
    oc, icg, kh, kw = w.shape
    oh = (h - dilation[0] * (kh - 1) - 1) // stride[0] + 1
    ow = (wd - dilation[1] * (kw - 1) - 1) // stride[1] + 1
    out = np.zeros((n, oc, oh, ow))
    ocg = oc // groups
    for g in range(groups):
        xs = x[:, g * icg:(g + 1) * icg]
        ws = w[g * ocg:(g + 1) * ocg].astype(np.float64)
        for ky in range(kh):
            for kx in range(kw):
                patch = xs[:, :, ky * dilation[0]: ky * dilation[0] + stride[0] * (oh - 1) + 1: stride[0],
                           kx * dilation[1]: kx * dilation[1] + stride[1] * (ow - 1) + 1: stride[1]]
                out[:, g * ocg:(g + 1) * ocg] += np.einsum("ncyx,oc->noyx", patch, ws[:, :, ky, kx])
    if b is not None:
        out += b.astype(np.float64)[None, :, None, None]
    return out


def quantized_conv_ref(x, w, stride, dilation, pad, pad_end, groups, x_zp=0, w_zp=None, bias=None, scale=None,
                       out_dtype=np.int32, y_zp=0):
    """ONNX ConvInteger / QLinearConv in integers: acc = bias + conv(x - x_zp, w - w_zp[oc]) with zero padding of
    the centred input (x_zp padding), summed in int64 by :func:`conv_ref`'s tap loop (exact: every product and sum
    is an integer far below 2^53). Then int32 (ConvInteger), float32(acc)·scale (f32) or, for uint8 / int8,
    saturate(round_half_even(float32(acc)·scale) + y_zp), onnxruntime's requantization in float32."""
    wc = w.astype(np.int64) - (0 if w_zp is None else np.asarray(w_zp, np.int64).reshape(-1, 1, 1, 1))
    acc = np.rint(conv_ref(x.astype(np.int64) - int(x_zp), wc, None, stride, dilation, pad, pad_end, groups))
    acc = acc.astype(np.int64) + (0 if bias is None else np.asarray(bias, np.int64).reshape(1, -1, 1, 1))
    if out_dtype == np.int32:
        return acc.astype(np.int32)
    v = acc.astype(np.float32)
    if scale is not None:
        v = v * np.asarray(scale, np.float32).reshape(1, -1, 1, 1)
    if out_dtype == np.float32:
        return v
    info = np.iinfo(out_dtype)
    return np.clip(np.rint(v) + np.float32(y_zp), info.min, info.max).astype(out_dtype)


# ----- pooling ------------------------------------------------------------------------------------------------------


def pool_out_size(size, k, s, pb, pe, ceil_mode):
    """ONNX MaxPool/AveragePool output extent of one spatial axis: floor (or ceil) of (size + pb + pe - k) / s,
    plus 1; in ceil mode a window must start inside the input or the begin pad (the last one is dropped if not).
    ``k`` is the window's extent (with dilation: (k - 1) * d + 1)."""
    n = (size + pb + pe - k) / s
    out = int(np.ceil(n) if ceil_mode else np.floor(n)) + 1
    if ceil_mode and (out - 1) * s >= size + pb:
        out -= 1
    return out


def pool_ref(x, mode, k, s, pb, pe, ceil_mode=False):
    """ONNX MaxPool / AveragePool in float64, window by window, no dilation.

    x (N, C, H, W); mode a ``cl.PoolingMode``; k, s, pb (begin pads), pe (end pads): (y, x) pairs. ``max`` ignores
    the pads; ``average_no_padding`` (count_include_pad=0) divides by the window cut to the input; ``average``
    (count_include_pad=1) by the window cut to [-pad, size + pad_end). Returns (N, C, OH, OW), see pool_out_size."""
    x = x.astype(np.float64)
    n, c, h, w = x.shape
    oh = pool_out_size(h, k[0], s[0], pb[0], pe[0], ceil_mode)
    ow = pool_out_size(w, k[1], s[1], pb[1], pe[1], ceil_mode)
    out = np.empty((n, c, oh, ow))
    for i in range(oh):
        y0 = i * s[0] - pb[0]
        for j in range(ow):
            x0 = j * s[1] - pb[1]
            win = x[:, :, max(y0, 0):min(y0 + k[0], h), max(x0, 0):min(x0 + k[1], w)]
            if mode == cl.PoolingMode.max:
                out[:, :, i, j] = win.max(axis=(2, 3))
            elif mode == cl.PoolingMode.average_no_padding:
                out[:, :, i, j] = win.mean(axis=(2, 3))
            else:
                area = (min(y0 + k[0], h + pe[0]) - y0) * (min(x0 + k[1], w + pe[1]) - x0)
                out[:, :, i, j] = win.sum(axis=(2, 3)) / area
    return out


def pool_dilated_ref(x, mode, k, s, pb, pe, d, ceil_mode=False):
    """ONNX MaxPool-10 / AveragePool-19 with dilations, tap by tap in float64.

    x (N, C, H, W); the taps of output o are o * s - pb + t * d for t < k; the average divisor counts the taps
    inside [-pb, size + pe) (``average``) or inside the input (``average_no_padding``). Returns (N, C, OH, OW),
    see pool_out_size with the dilated extent (k - 1) * d + 1."""
    x = x.astype(np.float64)
    n, c, h, w = x.shape
    ext = ((k[0] - 1) * d[0] + 1, (k[1] - 1) * d[1] + 1)
    oh = pool_out_size(h, ext[0], s[0], pb[0], pe[0], ceil_mode)
    ow = pool_out_size(w, ext[1], s[1], pb[1], pe[1], ceil_mode)
    out = np.empty((n, c, oh, ow))
    for i in range(oh):
        ys = [i * s[0] - pb[0] + t * d[0] for t in range(k[0])]
        for j in range(ow):
            xs = [j * s[1] - pb[1] + t * d[1] for t in range(k[1])]
            vals = [x[:, :, yy, xx] for yy in ys for xx in xs if 0 <= yy < h and 0 <= xx < w]
            vals = np.stack(vals, axis=-1)
            if mode == cl.PoolingMode.max:
                out[:, :, i, j] = vals.max(axis=-1)
            elif mode == cl.PoolingMode.average_no_padding:
                out[:, :, i, j] = vals.mean(axis=-1)
            else:
                area = sum(yy < h + pe[0] for yy in ys) * sum(xx < w + pe[1] for xx in xs)
                out[:, :, i, j] = vals.sum(axis=-1) / area
    return out


# ----- eltwise ------------------------------------------------------------------------------------------------------

_E = cl.EltwiseMode
# mode -> binary float64 numpy op (ONNX Add, Sub, Mul, Div, Max, Min, Pow, PRelu; max/min propagate NaN)
ELTWISE_OPS = {_E.sum: np.add, _E.sub: np.subtract, _E.prod: np.multiply, _E.div: np.divide, _E.max: np.maximum,
               _E.min: np.minimum, _E.pow: np.power, _E.prelu: lambda v, slope: np.where(v >= 0, v, slope * v),
               # comparisons: 1 or 0 in the operands' type (ONNX Equal, Less ... before the cast to bool)
               _E.equal: lambda a, b: (a == b).astype(a.dtype), _E.not_equal: lambda a, b: (a != b).astype(a.dtype),
               _E.less: lambda a, b: (a < b).astype(a.dtype), _E.greater: lambda a, b: (a > b).astype(a.dtype),
               _E.less_equal: lambda a, b: (a <= b).astype(a.dtype),
               _E.greater_equal: lambda a, b: (a >= b).astype(a.dtype),
               # selects (ONNX Where's halves) and remainders (ONNX Mod: fmod=1 C fmod, fmod=0 Python %)
               _E.mask: lambda v, c: np.where(c != 0, v, 0).astype(v.dtype),
               _E.mask_not: lambda v, c: np.where(c != 0, 0, v).astype(v.dtype),
               _E.fmod: np.fmod, _E.mod: np.mod}
COMPARISONS = frozenset({_E.equal, _E.not_equal, _E.less, _E.greater, _E.less_equal, _E.greater_equal})
SELECTS = frozenset({_E.mask, _E.mask_not})
REMAINDERS = frozenset({_E.fmod, _E.mod})


def eltwise_ref(arrays, mode, coefficients=None):
    """clDNN eltwise in float64: the inputs (any shapes numpy broadcasts, ONNX multidirectional broadcasting),
    each first scaled by its ``coefficients`` entry if given, reduced left to right with ``ELTWISE_OPS[mode]``."""
    xs = [a.astype(np.float64) for a in arrays]
    if coefficients is not None:
        xs = [c * a for c, a in zip(coefficients, xs)]
    return functools.reduce(ELTWISE_OPS[mode], xs)


def eltwise_inputs(rng, shapes, mode):
    """float32 inputs of ``shapes`` inside the domain where eltwise_ref is well conditioned: standard normal;
    divisors kept away from zero (|v| in [0.5, 2], random sign); pow: positive bases in [0.2, 3], exponents in
    [-2, 2]; comparisons: halves in [-2, 2], so that ties (equal operands) are common; selects: conditions in
    {-1, 0, 1}; remainders: divisors as for div."""
    out = []
    for i, s in enumerate(shapes):
        if mode in COMPARISONS:
            a = rng.integers(-4, 5, s) * 0.5
        elif mode in SELECTS and i > 0:
            a = rng.integers(-1, 2, s)
        elif mode in (_E.div, *REMAINDERS) and i > 0:
            a = rng.uniform(0.5, 2.0, s) * rng.choice([-1.0, 1.0], s)
        elif mode == _E.pow:
            a = rng.uniform(0.2, 3.0, s) if i == 0 else rng.uniform(-2.0, 2.0, s)
        else:
            a = rng.standard_normal(s)
        out.append(np.asarray(a, dtype=np.float32))
    return out


# ----- activation ---------------------------------------------------------------------------------------------------

_erf = np.vectorize(math.erf, otypes=[np.float64])
_erfc = np.vectorize(math.erfc, otypes=[np.float64])


def _sigmoid(v):
    """Logistic via tanh (a different route from the kernels' 1 / (1 + exp(-x)))."""
    return 0.5 * (1.0 + np.tanh(0.5 * v))


# func name (a ``cl.ActivationFunc``, a str enum) -> float64 f(x, a, b), written from the definitions (ONNX
# operators Relu, LeakyRelu, Clip, Sigmoid, Tanh, Elu, ..., HardSigmoid, HardSwish, Gelu, Selu; clDNN
# activation_func for clamp, linear, swish, ...); a and b are the activation's two parameters.
ACTIVATION_REFS = {
    "relu": lambda x, a, b: np.where(x > 0, x, 0.0),
    "relu_negative_slope": lambda x, a, b: np.where(x >= 0, x, a * x),
    "clamp": lambda x, a, b: np.minimum(np.maximum(x, a), b),
    "logistic": lambda x, a, b: _sigmoid(x),
    "tanh": lambda x, a, b: np.tanh(x),
    "elu": lambda x, a, b: np.where(x >= 0, x, a * np.expm1(x)),
    "abs": lambda x, a, b: np.abs(x),
    "exp": lambda x, a, b: np.exp(x),
    "log": lambda x, a, b: np.log(x),
    "sqrt": lambda x, a, b: np.sqrt(x),
    "square": lambda x, a, b: x * x,
    "softplus": lambda x, a, b: np.logaddexp(0.0, x),
    "hard_sigmoid": lambda x, a, b: np.clip(a * x + b, 0.0, 1.0),
    "hard_swish": lambda x, a, b: x * np.clip(x + 3.0, 0.0, 6.0) / 6.0,
    "swish": lambda x, a, b: x * _sigmoid(a * x),
    "gelu": lambda x, a, b: x * 0.5 * _erfc(-x / math.sqrt(2.0)),          # x * Phi(x), Phi via float64 erfc
    "gelu_tanh": lambda x, a, b: 0.5 * x * (1.0 + np.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * x ** 3))),
    "linear": lambda x, a, b: a * x + b,
    "neg": lambda x, a, b: -x,
    "reciprocal": lambda x, a, b: 1.0 / x,
    "erf": lambda x, a, b: _erf(x),
    "selu": lambda x, a, b: b * np.where(x > 0, x, a * (np.exp(x) - 1.0)),
    "floor": lambda x, a, b: np.floor(x),
    "ceil": lambda x, a, b: np.ceil(x),
    "round": lambda x, a, b: np.round(x),                                   # numpy rounds halves to even (ONNX)
    "sign": lambda x, a, b: np.where(x > 0, 1.0, np.where(x < 0, -1.0, x)),
}


def activation_ref(x, func, a=None, b=None):
    """The activation ``func`` (a name or ``cl.ActivationFunc``) elementwise on x (any shape) in float64, with
    parameters a and b (see ACTIVATION_REFS)."""
    return ACTIVATION_REFS[str(getattr(func, "value", func))](np.asarray(x, dtype=np.float64), a, b)


# ----- gemm, fully connected ----------------------------------------------------------------------------------------


def gemm_ref(a, b, c=None, ta=False, tb=False, alpha=1.0, beta=1.0):
    """ONNX Gemm generalised to numpy matmul: alpha · op(A) @ op(B) + beta · C in float64, op a transpose of the
    last two axes when ``ta``/``tb`` (rank >= 2 only); numpy matmul does the batch broadcasting and the 1-D rules,
    C broadcasts (unidirectional) to the product."""
    a, b = a.astype(np.float64), b.astype(np.float64)
    if ta and a.ndim > 1:
        a = np.swapaxes(a, -1, -2)
    if tb and b.ndim > 1:
        b = np.swapaxes(b, -1, -2)
    y = alpha * np.matmul(a, b)
    if c is not None:
        y = y + beta * c.astype(np.float64)
    return np.asarray(y)


def fc_ref(x, w, b, relu=False):
    """clDNN fully_connected (ONNX Flatten(axis=1) + Gemm(transB=1)): x (N, ...) flattened per batch item in C
    order (logical NCHW), times Wᵀ (w (M, K)), plus bias b (M elements, any shape) or None, then relu if
    ``relu``; returns (N, M) in float64."""
    out = x.reshape(x.shape[0], -1).astype(np.float64) @ w.astype(np.float64).T
    if b is not None:
        out = out + b.astype(np.float64).reshape(-1)
    return np.maximum(out, 0.0) if relu else out


# ----- normalization, data movement ---------------------------------------------------------------------------------


def lrn_ref(x, size, alpha, beta, k):
    """ONNX LRN (across channels): square_sum[c] = Σ x[i]² for i in [max(0, c - floor((size-1)/2)),
    min(C-1, c + ceil((size-1)/2))]; y = x / (k + alpha / size * square_sum) ** beta. x (N, C, ...) of rank >= 2,
    channels along axis 1; float64."""
    x = x.astype(np.float64)
    c_num = x.shape[1]
    sq = x * x
    out = np.empty_like(x)
    lo_w, hi_w = int(np.floor((size - 1) / 2)), int(np.ceil((size - 1) / 2))
    for c in range(c_num):
        lo, hi = max(0, c - lo_w), min(c_num - 1, c + hi_w)
        s = sq[:, lo:hi + 1].sum(axis=1)
        out[:, c] = x[:, c] / (k + alpha / size * s) ** beta
    return out


def permute_ref(x: np.ndarray, order: tuple[int, ...]) -> np.ndarray:
    """ONNX Transpose(perm=order): out[i_0, ..., i_r] = x[j] with j[order[k]] = i_k, by an explicit index loop
    (independent of numpy.transpose) in float64; any rank."""
    out_shape = tuple(x.shape[o] for o in order)
    out = np.empty(out_shape)
    for idx in np.ndindex(*out_shape):
        j = [0] * x.ndim
        for k, o in enumerate(order):
            j[o] = idx[k]
        out[idx] = x[tuple(j)]
    return out


def physical_ref(x4: np.ndarray, fmt: cl.Format) -> np.ndarray:
    """The flat buffer a (b, f, y, x) array occupies in ``fmt`` (bfyx, byxf, yxfb, fyxb, b_fs_yx_fsv16), built
    from the format definitions with numpy transposes (independent of Layout.pitches / GET_INDEX): plain orders
    outermost first, and for b_fs_yx_fsv16 features zero-padded to a multiple of 16 and stored
    [b][f / 16][y][x][f % 16]. Keeps x4's dtype."""
    F = cl.Format
    if fmt == F.b_fs_yx_fsv16:
        b, f, y, x = x4.shape
        fs = -(-f // 16)
        full = np.zeros((b, fs * 16, y, x), x4.dtype)
        full[:, :f] = x4
        return full.reshape(b, fs, 16, y, x).transpose(0, 1, 3, 4, 2).reshape(-1)
    perm = {F.bfyx: (0, 1, 2, 3), F.byxf: (0, 2, 3, 1), F.yxfb: (2, 3, 1, 0), F.fyxb: (1, 2, 3, 0)}[fmt]
    return np.ascontiguousarray(x4.transpose(perm)).reshape(-1)


# ---- moved from tests/ocl/test_batch_norm.py (also used by tests/oclgrind) ----

def batch_norm_ref(x, mean, var, scale, shift, eps):
    """y = (x - mean) / sqrt(var + eps) * scale + shift, statistics broadcast along axis 1 (float64)."""
    bshape = (1, -1) + (1,) * (x.ndim - 2)
    def per_c(a):
        return np.asarray(a, np.float64).reshape(bshape)
    y = (x.astype(np.float64) - per_c(mean)) / np.sqrt(per_c(var) + eps)
    if scale is not None:
        y = y * per_c(scale)
    if shift is not None:
        y = y + per_c(shift)
    return y

# ---- moved from tests/ocl/test_deconvolution.py (also used by tests/oclgrind) ----

def deconv_ref(x, w, b, stride, dilation, pad, pad_end, out_pad, groups):
    """Scatter every input pixel times the filter into the full output, then crop pads / extend output padding."""
    x, w = x.astype(np.float64), w.astype(np.float64)
    n, c, h, wd = x.shape
    _, ocg, kh, kw = w.shape
    icg = c // groups
    fh = stride[0] * (h - 1) + dilation[0] * (kh - 1) + 1
    fw = stride[1] * (wd - 1) + dilation[1] * (kw - 1) + 1
    full = np.zeros((n, ocg * groups, fh + out_pad[0], fw + out_pad[1]))
    for g in range(groups):
        xs = x[:, g * icg:(g + 1) * icg]
        ws = w[g * icg:(g + 1) * icg]                      # (icg, ocg, kh, kw)
        for ky in range(kh):
            for kx in range(kw):
                contrib = np.einsum("ncyx,co->noyx", xs, ws[:, :, ky, kx])
                y0, x0 = ky * dilation[0], kx * dilation[1]
                full[:, g * ocg:(g + 1) * ocg, y0:y0 + stride[0] * (h - 1) + 1:stride[0],
                     x0:x0 + stride[1] * (wd - 1) + 1:stride[1]] += contrib
    out = full[:, :, pad[0]:full.shape[2] - pad_end[0], pad[1]:full.shape[3] - pad_end[1]]
    if b is not None:
        out = out + b.astype(np.float64)[None, :, None, None]
    return out

# ---- moved from tests/ocl/test_mvn.py (also used by tests/oclgrind) ----

def mvn_ref(x, axes, eps, normalize_variance=True, scale=None, bias=None, scale_axis=None, result="normalized"):
    """Normalize x over ``axes`` in float64; scale/bias reshaped so that dim 0 sits on ``scale_axis``."""
    x = x.astype(np.float64)
    axes = tuple(a % x.ndim for a in axes)
    mean = x.mean(axis=axes, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=axes, keepdims=True)
    inv = 1.0 / np.sqrt(var + eps)
    if result == "mean":
        return mean
    if result == "inv_std_dev":
        return inv
    y = (x - mean) * inv if normalize_variance else x - mean

    def aligned(t):
        t = t.astype(np.float64)
        if scale_axis is None:
            return t
        return t.reshape(t.shape + (1,) * (x.ndim - scale_axis - t.ndim))

    if scale is not None:
        y = y * aligned(scale)
    if bias is not None:
        y = y + aligned(bias)
    return y

# ---- moved from tests/ocl/test_pad.py (also used by tests/oclgrind) ----

def pad_ref(x: np.ndarray, begin, end, mode: str, value: float = 0.0) -> np.ndarray:
    """numpy.pad in float64; negative pads first crop the input (ONNX Pad allows them, numpy.pad does not)."""
    x = x.astype(np.float64)
    crop = tuple(slice(max(0, -b), x.shape[d] - max(0, -e)) for d, (b, e) in enumerate(zip(begin, end)))
    width = [(max(0, b), max(0, e)) for b, e in zip(begin, end)]
    kw = {"constant_values": value} if mode == "constant" else {}
    return np.pad(x[crop], width, mode=mode, **kw)

# ---- moved from tests/ocl/test_reduce.py (also used by tests/oclgrind) ----

_NP = {"mean": np.mean, "sum": np.sum, "max": np.max, "min": np.min, "prod": np.prod}


def reduce_ref(x, mode, axes, keep_dims):
    """numpy's reduction of ``x`` in float64 over ``axes`` (empty = all); a full reduction without keep_dims is
    returned with shape (1,), as the engine stores a rank-0 tensor."""
    ax = tuple(axes) if axes else None
    out = _NP[mode](x.astype(np.float64), axis=ax, keepdims=keep_dims)
    return np.asarray(out).reshape(1) if np.ndim(out) == 0 else out

# ---- moved from tests/ocl/test_resize.py (also used by tests/oclgrind) ----

def _kernel(mode: str, t: float, a: float) -> float:
    t = abs(t)
    if mode == "linear":
        return max(0.0, 1.0 - t)
    if t <= 1:
        return (a + 2) * t ** 3 - (a + 3) * t ** 2 + 1
    return a * t ** 3 - 5 * a * t ** 2 + 8 * a * t - 4 * a if t < 2 else 0.0


def _coord(ctm: str, o: int, n: int, m: int, s: float, roi) -> float:
    """x_original of output index o (ONNX Resize-19 coordinate_transformation_mode formulas; the resized length
    is s * n, fractional when the scale is given, as in the ONNX reference implementation)."""
    w = s * n
    if ctm == "half_pixel":
        return (o + 0.5) / s - 0.5
    if ctm == "half_pixel_symmetric":
        return n / 2 * (1 - m / w) + (o + 0.5) / s - 0.5
    if ctm == "pytorch_half_pixel":
        return (o + 0.5) / s - 0.5 if w > 1 else 0.0
    if ctm == "align_corners":
        return o * (n - 1) / (w - 1) if w != 1 else 0.0
    if ctm == "asymmetric":
        return o / s
    if ctm == "tf_half_pixel_for_nn":
        return (o + 0.5) / s
    start, end = roi
    return start * (n - 1) + o * (end - start) * (n - 1) / (w - 1) if w != 1 else 0.5 * (start + end) * (n - 1)


def _taps(p: dict, x: float, n: int, s: float) -> list[tuple[int, float]]:
    """(input index, weight) pairs of one axis at coordinate x; indices outside [0, n) are edge-clamped."""
    if p["mode"] == "nearest":
        nm = p["nearest_mode"]
        frac = x - math.floor(x)
        if nm == "floor":
            i = math.floor(x)
        elif nm == "ceil":
            i = math.ceil(x)
        elif nm == "round_prefer_floor":
            i = math.floor(x) if frac <= 0.5 else math.floor(x) + 1
        else:
            i = math.floor(x) if frac < 0.5 else math.floor(x) + 1
        return [(min(max(i, 0), n - 1), 1.0)]
    eff = min(s, 1.0) if p["antialias"] else 1.0
    support = (1 if p["mode"] == "linear" else 2) / eff
    js = range(math.floor(x - support) - 1, math.ceil(x + support) + 2)
    pairs = [(j, _kernel(p["mode"], (j - x) * eff, p["a"])) for j in js]
    if p["exclude_outside"]:
        pairs = [(j, w if 0 <= j < n else 0.0) for j, w in pairs]
    if p["antialias"] or p["exclude_outside"]:
        total = sum(w for _, w in pairs)
        pairs = [(j, w / total) for j, w in pairs]
    return [(min(max(j, 0), n - 1), w) for j, w in pairs if w != 0.0]


def resize_ref(x: np.ndarray, sizes, scales=None, roi=None, extrapolation=0.0, **p) -> np.ndarray:
    """Every output element as a sum over the tensor product of per-axis taps, in float64."""
    p = {"mode": "nearest", "ctm": "half_pixel", "nearest_mode": "round_prefer_floor", "a": -0.75,
         "exclude_outside": False, "antialias": False, **p}
    r = x.ndim
    scales = scales or [m / n for m, n in zip(sizes, x.shape)]
    out = np.empty(sizes)
    xd = x.astype(np.float64)
    for o in np.ndindex(*sizes):
        per_axis, outside = [], False
        for d in range(r):
            n, m, s = x.shape[d], sizes[d], float(scales[d])
            if n == m and s == 1.0 and p["ctm"] != "tf_crop_and_resize":
                per_axis.append([(o[d], 1.0)])
                continue
            c = _coord(p["ctm"], o[d], n, m, s, (roi[d], roi[d + r]) if roi else None)
            outside |= p["ctm"] == "tf_crop_and_resize" and not 0 <= c <= n - 1
            per_axis.append(_taps(p, c, n, s))
        out[o] = extrapolation if outside else sum(
            math.prod(w for _, w in combo) * xd[tuple(i for i, _ in combo)] for combo in itertools.product(*per_axis))
    return out

# ----- RoI align ----------------------------------------------------------------------------------------------------

def _roi_sample(img, y, x):
    """The four weighted corner values (4, C) of the bilinear sample at (y, x) of img (C, H, W), by ONNX RoiAlign's
    rule: zeros outside [-1, H] x [-1, W]; coordinates clamped to >= 0; at or past the last row / column, that row /
    column alone."""
    c, h, w = img.shape
    if not (-1.0 <= y <= h and -1.0 <= x <= w):
        return np.zeros((4, c))
    y, x = max(y, 0.0), max(x, 0.0)
    y0, x0 = int(math.floor(y)), int(math.floor(x))
    if y0 >= h - 1:
        y0 = y1 = h - 1
        y = float(y0)
    else:
        y1 = y0 + 1
    if x0 >= w - 1:
        x0 = x1 = w - 1
        x = float(x0)
    else:
        x1 = x0 + 1
    ly, lx = y - y0, x - x0
    hy, hx = 1.0 - ly, 1.0 - lx
    return np.stack([hy * hx * img[:, y0, x0], hy * lx * img[:, y0, x1], ly * hx * img[:, y1, x0],
                     ly * lx * img[:, y1, x1]])


def roi_align_ref(x, rois, batch_indices, output_height, output_width, sampling_ratio=0, spatial_scale=1.0,
                  mode="avg", coordinate_transformation_mode="half_pixel"):
    """ONNX RoiAlign (Mask R-CNN's RoIAlign, He et al. 2017) in float64, written from the operator spec and the
    behaviour onnxruntime defines for it (its conformance outputs): x (N, C, H, W); rois (R, 4) rows [x1, y1, x2, y2];
    batch_indices (R,). Each RoI is scaled, shifted by -0.5 for ``half_pixel`` (``output_half_pixel``: no shift,
    height and width clamped to >= 1), cut into output_height x output_width bins, each sampled on a sampling_ratio
    grid (0: ceil(bin size) per axis, no samples for a size <= 0); ``avg``: the mean of the samples' bilinear values
    (over the grid's size); ``max``: per sample the largest weighted corner, the largest over the bin. A batch index
    outside [0, N) gives zeros (the engine's documented choice; onnxruntime raises). Returns (R, C, oh, ow)."""
    x = np.asarray(x, np.float64)
    n, c = x.shape[:2]
    rois = np.asarray(rois, np.float64).reshape(-1, 4)
    out = np.zeros((len(rois), c, output_height, output_width))
    half = coordinate_transformation_mode == "half_pixel"
    for r, b in enumerate(np.asarray(batch_indices).reshape(-1)):
        if not 0 <= b < n:
            continue
        x0, y0, x1, y1 = (float(v) * spatial_scale - (0.5 if half else 0.0) for v in rois[r])
        rh, rw = y1 - y0, x1 - x0
        if not half:
            rh, rw = max(rh, 1.0), max(rw, 1.0)
        bh, bw = rh / output_height, rw / output_width
        gh = sampling_ratio or (max(math.ceil(bh), 0) if math.isfinite(bh) else 0)
        gw = sampling_ratio or (max(math.ceil(bw), 0) if math.isfinite(bw) else 0)
        for ph in range(output_height):
            for pw in range(output_width):
                samples = [_roi_sample(x[int(b)], y0 + ph * bh + (iy + 0.5) * bh / gh,
                                       x0 + pw * bw + (ix + 0.5) * bw / gw) for iy in range(gh) for ix in range(gw)]
                if not samples:
                    continue
                if mode == "max":
                    out[r, :, ph, pw] = np.max([s.max(axis=0) for s in samples], axis=0)
                else:
                    out[r, :, ph, pw] = np.sum([s.sum(axis=0) for s in samples], axis=0) / (gh * gw)
    return out


# ---- moved from tests/ocl/test_scale.py (also used by tests/oclgrind) ----

def scale_ref(x, s, b):
    """x * s (+ b) with numpy broadcasting, float64."""
    out = x.astype(np.float64) * s.astype(np.float64)
    return out if b is None else out + b.astype(np.float64)

# ---- moved from tests/ocl/test_softmax.py (also used by tests/oclgrind) ----

def softmax_ref(x, axis):
    """exp(x) / Σ exp(x) along ``axis`` in float64 (shifted by the max so float64 cannot overflow either)."""
    x = x.astype(np.float64)
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


# ----- recurrent ----------------------------------------------------------------------------------------------------

def lstm_ref(xw, h, c, r, p, reverse, clip):
    """ONNX LSTM (gates i, o, f, c; σ, tanh, tanh) in float64 over precomputed xw rows; (seq, batch, 2n)."""
    batch, n = h.shape
    seq = xw.shape[0] // batch
    xw, h, c, r = (a.astype(np.float64) for a in (xw, h, c, r))
    p = np.zeros((3, n)) if p is None else p.astype(np.float64).reshape(3, n)

    def sig(v):
        return 0.5 * (1.0 + np.tanh(0.5 * v))

    def cl_(v):
        return np.clip(v, -clip, clip) if clip else v

    out = np.zeros((seq, batch, 2 * n))
    for t in (range(seq - 1, -1, -1) if reverse else range(seq)):
        z = xw[t * batch:(t + 1) * batch] + h @ r.T
        i = sig(cl_(z[:, :n] + p[0] * c))
        f = sig(cl_(z[:, 2 * n:3 * n] + p[2] * c))
        c = f * c + i * np.tanh(cl_(z[:, 3 * n:]))
        o = sig(cl_(z[:, n:2 * n] + p[1] * c))
        h = o * np.tanh(c)
        out[t] = np.concatenate([h, c], axis=1)
    return out


# ----- detection post-processing ---------------------------------------------------------------------------------


def nms_ref(boxes, scores, max_out, iou_threshold, score_threshold=None, center_point_box=0):
    """Greedy non-maximum suppression (ONNX NonMaxSuppression) by plain loops in float64: per batch and class, the
    boxes scoring above ``score_threshold`` best first (ties: lower index first); a box is kept unless its IoU with
    an already kept box exceeds ``iou_threshold``; at most ``max_out`` per class. Boxes (B, N, 4) as corners
    [y1, x1, y2, x2] (either diagonal) or centres [xc, yc, w, h]; returns a list of [batch, class, box] rows."""

    def corners(b):
        b = [float(v) for v in b]
        if center_point_box:
            return b[1] - b[3] / 2, b[0] - b[2] / 2, b[1] + b[3] / 2, b[0] + b[2] / 2
        return min(b[0], b[2]), min(b[1], b[3]), max(b[0], b[2]), max(b[1], b[3])

    def iou(a, b):
        ih = min(a[2], b[2]) - max(a[0], b[0])
        iw = min(a[3], b[3]) - max(a[1], b[1])
        if ih <= 0 or iw <= 0:
            return 0.0
        inter = ih * iw
        area_a, area_b = (a[2] - a[0]) * (a[3] - a[1]), (b[2] - b[0]) * (b[3] - b[1])
        return inter / (area_a + area_b - inter)

    rows = []
    for bi in range(boxes.shape[0]):
        cs = [corners(b) for b in boxes[bi]]
        for ci in range(scores.shape[1]):
            s = [float(v) for v in scores[bi, ci]]
            cand = [i for i in range(len(s)) if score_threshold is None or s[i] > score_threshold]
            cand.sort(key=lambda i: (-s[i], i))
            kept: list[int] = []
            for i in cand:
                if len(kept) == max_out:
                    break
                if all(iou(cs[i], cs[k]) <= iou_threshold for k in kept):
                    kept.append(i)
            rows += [[bi, ci, k] for k in kept]
    return rows


def gru_ref(xw, h, r, rbh, reverse, clip):
    """ONNX GRU (gates z, r, h; σ, tanh) in float64 over precomputed xw rows; ``rbh`` (hidden,) for
    linear_before_reset = 1, None for 0 (Rb_h already in xw then); (seq, batch, n)."""
    batch, n = h.shape
    seq = xw.shape[0] // batch
    xw, h, r = (a.astype(np.float64) for a in (xw, h, r))

    def sig(v):
        return 0.5 * (1.0 + np.tanh(0.5 * v))

    def cl_(v):
        return np.clip(v, -clip, clip) if clip else v

    out = np.zeros((seq, batch, n))
    for t in (range(seq - 1, -1, -1) if reverse else range(seq)):
        x = xw[t * batch:(t + 1) * batch]
        z = sig(cl_(x[:, :n] + h @ r[:n].T))
        rg = sig(cl_(x[:, n:2 * n] + h @ r[n:2 * n].T))
        if rbh is None:
            hh = np.tanh(cl_(x[:, 2 * n:] + (rg * h) @ r[2 * n:].T))
        else:
            hh = np.tanh(cl_(x[:, 2 * n:] + rg * (h @ r[2 * n:].T + rbh.astype(np.float64))))
        h = (1 - z) * hh + z * h
        out[t] = h
    return out
