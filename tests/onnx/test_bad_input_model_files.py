"""Bad input, model files: external data is read from the model file's own folder, never from the current directory
and never from outside that folder (``..``, absolute paths, symlinks); a missing file names the tensor. Part of the
bad-input catalogue (tests/*/test_bad_input_*.py)."""

from __future__ import annotations

import os

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

import cldnn_py as cl


def _matmul_model(w: np.ndarray) -> onnx.ModelProto:
    g = helper.make_graph([helper.make_node("MatMul", ["x", "w"], ["y"])], "g",
                          [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 4])],
                          [numpy_helper.from_array(w, "w")])
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)], ir_version=10)


@pytest.fixture
def model_dir(tmp_path, rng):
    """tmp_path/model/model.onnx with its weights in model/weights.bin; returns (folder, weights)."""
    folder = tmp_path / "model"
    folder.mkdir()
    w = rng.standard_normal((3, 4)).astype(np.float32)
    onnx.save(_matmul_model(w), folder / "model.onnx", save_as_external_data=True, location="weights.bin",
              size_threshold=0)
    return folder, w


def _relocate(folder, location: str) -> str:
    """Point the weights of folder/model.onnx at ``location``; returns the model path."""
    path = folder / "model.onnx"
    m = onnx.load(path, load_external_data=False)
    for e in m.graph.initializer[0].external_data:
        if e.key == "location":
            e.value = location
    path.write_bytes(m.SerializeToString())
    return str(path)


def test_external_data_is_read_from_the_model_folder_not_the_current_directory(model_dir, tmp_path, monkeypatch,
                                                                              rng):
    folder, w = model_dir
    cwd = tmp_path / "elsewhere"
    cwd.mkdir()
    (cwd / "weights.bin").write_bytes(np.full(64, 7, np.float32).tobytes())  # a decoy of the same name
    monkeypatch.chdir(cwd)
    topo = cl.load_onnx(str(folder / "model.onnx"))
    x = rng.standard_normal((2, 3)).astype(np.float32)
    y = cl.Network(cl.Engine("cpu"), topo).run({"x": x})["y"]
    np.testing.assert_allclose(y, x @ w, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("where", ["traversal", "absolute", "symlink"])
def test_external_data_outside_the_model_folder_is_refused(model_dir, tmp_path, where):
    folder, _ = model_dir
    secret = tmp_path / "secret.bin"
    secret.write_bytes((folder / "weights.bin").read_bytes())
    if where == "traversal":
        loc, why = "../secret.bin", "leads outside the model's folder"
    elif where == "absolute":
        loc, why = str(folder / "weights.bin"), "is an absolute path"
    else:
        os.symlink(secret, folder / "link.bin")
        loc, why = "link.bin", "leads outside the model's folder"
    path = _relocate(folder, loc)
    with pytest.raises(cl.OnnxImportError, match=f"tensor 'w': external data location '{loc}' {why}"):
        cl.load_onnx(path)


def test_missing_external_file_names_the_tensor(model_dir):
    folder, _ = model_dir
    (folder / "weights.bin").unlink()
    with pytest.raises(cl.OnnxImportError, match=r"tensor 'w': external data location 'weights.bin': no such file"):
        cl.load_onnx(str(folder / "model.onnx"))


def test_external_data_without_a_folder_is_refused_clearly(model_dir):
    folder, _ = model_dir
    m = onnx.load(folder / "model.onnx", load_external_data=False)
    for given in (m, m.SerializeToString()):
        with pytest.raises(cl.OnnxImportError, match=r"tensor 'w' keeps its data in the external file 'weights.bin'"
                                                     r".*no folder"):
            cl.load_onnx(given)
