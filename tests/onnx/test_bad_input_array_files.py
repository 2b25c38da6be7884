"""Bad input, array files: ``cldnn-py run --input``, ``cldnn-py batch`` and the examples' ``--weights`` read .npy/.npz
through one loader (cldnn_py/input_files.py) that never unpickles; a pickled file, or one whose dtype or shape does
not match the model input, fails with one line (no traceback) naming the file, the input, expected and actual; result
files are never written outside the folder named. Part of the bad-input catalogue (tests/*/test_bad_input_*.py)."""

from __future__ import annotations

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper

import cldnn_py as cl
from cldnn_py.cli import main
from cldnn_py.input_files import load_array_file, output_path
from cldnn_py.integrations.batch_cli import _write, read_rows
from cldnn_py.io_signature import TensorSignature
from tests.e2e.common import load_example


@pytest.fixture
def model_path(tmp_path):
    g = helper.make_graph([helper.make_node("Relu", ["x"], ["y"])], "g",
                          [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 3, 5, 5])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N", 3, 5, 5])])
    path = tmp_path / "relu.onnx"
    onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)], ir_version=10), path)
    return str(path)


def _pickled(path):
    np.save(path, np.array([{"a": 1}, None], dtype=object), allow_pickle=True)
    return path


def _run_fails(capsys, argv, match):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1, err
    assert match in err, err


def test_run_refuses_a_pickled_input(model_path, tmp_path, capsys):
    path = _pickled(tmp_path / "x.npy")
    _run_fails(capsys, ["run", model_path, "--input", f"x={path}"],
               f"InputFileError: '{path}' holds pickled Python objects (an object array); refused")


@pytest.mark.parametrize("bad", ["dtype", "shape", "rank", "npz", "name"])
def test_run_refuses_an_input_file_that_does_not_match(model_path, tmp_path, capsys, bad, rng):
    x = rng.standard_normal((2, 3, 5, 5)).astype(np.float32)
    path = tmp_path / "x.npy"
    name = "x"
    if bad == "dtype":
        x, want = x.astype(np.float64), "input 'x': dtype: expected float32, got float64"
    elif bad == "shape":
        x, want = x[..., :4], "input 'x': shape: expected float32[N,3,5,5], got (2, 3, 5, 4)"
    elif bad == "rank":
        x, want = x[0], "input 'x': shape: expected float32[N,3,5,5], got (3, 5, 5)"
    elif bad == "npz":
        path, want = tmp_path / "x.npz", "is a .npz archive of ['x']; a .npy file is expected"
    else:
        name, want = "z", "'z' is not an input of the model (inputs: ['x'])"
    if bad == "npz":
        np.savez(path, x=x)
    else:
        np.save(path, x)
    _run_fails(capsys, ["run", model_path, "--input", f"{name}={path}"], want)


def test_the_loader_never_unpickles_and_reads_plain_files(tmp_path, rng):
    x = rng.standard_normal((2, 3)).astype(np.float32)
    np.save(tmp_path / "x.npy", x)
    np.savez(tmp_path / "w.npz", a=x, b=x.astype(np.int64))
    np.testing.assert_array_equal(load_array_file(tmp_path / "x.npy"), x)
    assert sorted(load_array_file(tmp_path / "w.npz")) == ["a", "b"]
    np.savez(tmp_path / "p.npz", a=x, evil=np.array([object()], dtype=object))
    with pytest.raises(cl.InputFileError, match="p.npz' holds pickled Python objects"):
        load_array_file(tmp_path / "p.npz")
    (tmp_path / "junk.npy").write_bytes(b"\x93NUMPY garbage")
    with pytest.raises(cl.InputFileError, match="junk.npy"):
        load_array_file(tmp_path / "junk.npy")


def test_batch_rows_are_checked_and_results_stay_in_the_output_folder(tmp_path, rng):
    sig = {"x": TensorSignature("x", np.dtype(np.float32), ("N", 3, 5, 5))}
    np.save(tmp_path / "ok.npy", rng.standard_normal((1, 3, 5, 5)).astype(np.float32))
    assert read_rows(str(tmp_path / "ok.npy"), sig)["x"].shape == (3, 5, 5)
    with pytest.raises(cl.InputFileError, match="holds pickled Python objects"):
        read_rows(str(_pickled(tmp_path / "p.npy")), sig)
    np.save(tmp_path / "wide.npy", np.zeros((3, 5, 6), np.float32))
    with pytest.raises(cl.ShapeError, match=r"wide.npy' \(one row\): input 'x': shape: expected float32\[3,5,5\], "
                                            r"got \(3, 5, 6\)"):
        read_rows(str(tmp_path / "wide.npy"), sig)
    out = tmp_path / "out"
    out.mkdir()
    _write(out, str(tmp_path / "ok.npy"), {"y": np.zeros(2, np.float32)})
    assert (out / "ok.npy").exists()
    for name in ("../escape", "a/b", "..", "", "/abs"):
        with pytest.raises(cl.InputFileError, match="refused"):
            output_path(out, name, ".npy")
    assert sorted(p.name for p in tmp_path.rglob("*escape*")) == []


def test_example_weights_are_never_unpickled(tmp_path, capsys):
    runner = load_example("example_runner")
    path = _pickled(tmp_path / "w.npy")
    np.savez(tmp_path / "w.npz", conv1_w=np.array([object()], dtype=object))
    for p in (path, tmp_path / "w.npz"):
        with pytest.raises(cl.InputFileError, match="holds pickled Python objects"):
            runner.run_example("doc", lambda *a: None, (3, 8, 8), ["prob"], ["--weights", str(p)])
