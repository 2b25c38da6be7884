"""The typed JSON codec of saved programs (cldnn_py/program_codec.py): values come back equal and of the same types
through real JSON text, and anything that is not a value the codec writes is refused with the path inside it."""

from __future__ import annotations

import json

import numpy as np
import pytest

import cldnn_py as cl
from cldnn_py.program_codec import ProgramCodecError, decode, encode


def round_trip(value):
    arrays: list[np.ndarray] = []
    text = json.dumps(encode(value, arrays))  # through real JSON text
    return decode(json.loads(text), arrays)


def test_plain_values_keep_their_types(rng):
    value = {"t": (1, 2.5, "s"), "l": [None, True], 3: frozenset({1, 2}), "set": {4}, "nan": float("nan"),
             "inf": -float("inf"), "np": np.float32(rng.standard_normal()), "dt": np.dtype("int64")}
    got = round_trip(value)
    assert set(got) == set(value) and isinstance(got["t"], tuple) and isinstance(got["l"], list)
    assert got[3] == frozenset({1, 2}) and isinstance(got[3], frozenset) and got["set"] == {4}
    assert np.isnan(got["nan"]) and got["inf"] == -float("inf")
    assert type(got["np"]) is np.float32 and got["np"] == value["np"] and got["dt"] == np.dtype("int64")


def test_primitives_and_layouts_come_back_equal(rng):
    w = rng.standard_normal((4, 3, 3, 3)).astype(np.float32)
    prims = [cl.Convolution("c", "x", weights="w", stride=(2, 1), pad=(1, 0), groups=1),
             cl.Pooling("p", "c", mode="max", kernel=(3, 3), stride=(2, 2), pad=(1, 1)),
             cl.Activation("a", "p", "relu_negative_slope", a=0.1),
             cl.Eltwise("e", ["a", "p"], mode="prod"),
             cl.Softmax("s", "e", axis=1),
             cl.Reshape("r", "s", shape=(1, -1)),
             cl.InputLayout("x", cl.Layout(cl.DataType.f16, cl.Format.b_fs_yx_fsv16, (1, 3, 8, 8),
                                           cl.Padding((0, 0, 1, 1), (0, 0, 1, 2))))]
    for p in prims:
        got = round_trip(p)
        assert type(got) is type(p) and got == p, p
    data = round_trip(cl.Data("w", w))
    np.testing.assert_array_equal(data.array, w)


@pytest.mark.parametrize("obj, words", [
    ({"$c": "os.system", "f": {}}, "unknown class 'os.system'"),
    ({"$c": "builtins.eval", "f": {"source": "1"}}, "unknown class"),
    ({"$e": "cldnn_py.layout.DataType", "v": "no_such"}, "malformed $e"),
    ({"$e": "subprocess.Popen", "v": "x"}, "unknown enum"),
    ({"$a": 0, "dtype": "|O", "shape": [1]}, "not a numeric dtype"),
    ({"$a": 5, "dtype": "<f4", "shape": [1]}, "out of range"),
    ({"$x": 1}, "unknown tag '$x'"),
    ({}, "unexpected dict"),
    ({"$c": "cldnn_py.layout.Padding", "f": {"lower": {"$t": [0, 0, -1, 0]}}}, "refused the stored fields"),
    ({"$c": "cldnn_py.layout.Padding", "f": {"left": 1}}, "has no field(s) ['left']"),
])
def test_what_is_not_a_stored_value_is_refused(obj, words):
    with pytest.raises(ProgramCodecError) as e:
        decode({"$t": [1, obj]}, [np.zeros(1, np.float32)])
    assert words in str(e.value) and "$[1]" in str(e.value), str(e.value)


def test_unstorable_values_are_refused():
    for value in (lambda x: x, object(), np.array([object()])):
        with pytest.raises(ProgramCodecError):
            encode(value, [])
