"""jitter.tensor_jit without a device: the emitted ``NAME_GET_INDEX(B, F, Y, X)`` text, evaluated as integer
arithmetic in Python, gives the offset at which Layout.to_physical stores each element, for every format and
padding; the size/pad/pitch constants match the Layout."""

from __future__ import annotations

import itertools
import re

import numpy as np
import pytest

import cldnn_py as cl
from cldnn_py.layout import Format, Layout, Padding
from kernel_selector.jitter import JitConstants, tensor_jit

F32 = cl.DataType.f32
_C_EXPR = re.compile(r"^[0-9BFYX+*/%() ]+$")


def index_function(layout: Layout, name: str = "T"):
    """The GET_INDEX macro body as a Python function of (b, f, y, x).

    The body may only use non-negative integer literals, the four parameters and + * / % (); C's ``/`` on
    non-negative ints is Python's ``//`` and the precedences agree.
    """
    jit = tensor_jit(name, layout)
    body = jit[f"{name}_GET_INDEX(B, F, Y, X)"]
    assert _C_EXPR.match(body), f"unexpected token in GET_INDEX body {body!r}"
    code = compile(body.replace("/", "//"), "<GET_INDEX>", "eval")
    return lambda b, f, y, x: eval(code, {"__builtins__": {}}, {"B": b, "F": f, "Y": y, "X": x})


def legal_padding(fmt: Format) -> Padding:
    """Padding on every dimension except the blocked one."""
    lower, upper = [2, 1, 1, 3], [1, 2, 3, 1]
    if fmt.block is not None:
        i = "bfyx".index(fmt.block[0])
        lower[i] = upper[i] = 0
    return Padding(tuple(lower), tuple(upper))


SHAPES = [(2, 19, 3, 5), (17, 2, 3, 2), (3, 18, 4), (5, 7), (11,)]


@pytest.mark.parametrize("padded", [False, True], ids=["unpadded", "padded"])
@pytest.mark.parametrize("shape", SHAPES, ids=str)
@pytest.mark.parametrize("fmt", list(Format), ids=lambda f: f.value)
def test_get_index_matches_layout_placement(fmt, shape, padded):
    lay = Layout(F32, fmt, shape, legal_padding(fmt) if padded else Padding())
    idx = index_function(lay)
    a = (np.arange(lay.count(), dtype=np.float32) + 1).reshape(lay.dims4)   # distinct, non-zero
    phys = lay.to_physical(a.reshape(shape))
    offsets = set()
    for b, f, y, x in itertools.product(*(range(d) for d in lay.dims4)):
        off = idx(b, f, y, x)
        assert 0 <= off < lay.buffer_size
        assert phys[off] == a[b, f, y, x], f"{lay}: GET_INDEX({b},{f},{y},{x}) = {off}"
        offsets.add(off)
    assert len(offsets) == lay.count()


@pytest.mark.parametrize("fmt", list(Format), ids=lambda f: f.value)
def test_size_pad_pitch_constants_match_layout(fmt):
    pad = legal_padding(fmt)
    lay = Layout(F32, fmt, (3, 18, 4, 5), pad)
    j = tensor_jit("INPUT1", lay)
    sizes = {"BATCH_NUM": 3, "FEATURE_NUM": 18, "SIZE_Y": 4, "SIZE_X": 5}
    for k, v in sizes.items():
        assert j[f"INPUT1_{k}"] == str(v)
    for i, k in enumerate(sizes):
        assert j[f"INPUT1_PAD_BEFORE_{k}"] == str(pad.lower[i])
        assert j[f"INPUT1_PAD_AFTER_{k}"] == str(pad.upper[i])
    p = lay.pitches
    for d, k in zip("bfyx", ("BATCH_PITCH", "FEATURE_PITCH", "Y_PITCH", "X_PITCH")):
        assert j[f"INPUT1_{k}"] == str(p[d])
    assert j["INPUT1_LENGTH"] == str(3 * 18 * 4 * 5)
    assert j["INPUT1_RANK"] == "4" and j["INPUT1_TYPE"] == "float"
    assert j[f"INPUT1_FORMAT_{fmt.value.upper()}"] == "1"
    assert int(j["INPUT1_OFFSET"]) == index_function(lay, "INPUT1")(0, 0, 0, 0)


def test_rank_and_type_of_small_tensors():
    j = tensor_jit("OUTPUT", Layout(cl.DataType.i32, Format.bfyx, (6, 7)))
    assert j["OUTPUT_RANK"] == "2" and j["OUTPUT_TYPE"] == "int"
    assert (j["OUTPUT_SIZE_Y"], j["OUTPUT_SIZE_X"]) == ("1", "1")


def test_header_and_undefs():
    j = JitConstants({"A": 1, "FLAG": True, "MAC(x)": "((x) + 1)"})
    assert j.header() == "#define A 1\n#define FLAG 1\n#define MAC(x) ((x) + 1)\n"
    assert j.undefs() == "#undef A\n#undef FLAG\n#undef MAC\n"
