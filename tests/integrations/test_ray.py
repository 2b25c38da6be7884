"""Ray Data batch inference (issue 8) on a local Ray of 2 CPUs whose node declares one "opencl" resource: two
BatchPredictor actors over 64 rows in batches of 8, and over 60 rows (a short last batch), compared bit for bit
with a single-process Network of the same batch size on the same device kind; and ``cldnn-py batch`` on a folder.

Skipped, with the reason, only when the ``[ray]`` extra is missing (``make test`` installs it). All tests of this
module run in one xdist worker (``--dist loadgroup``) and share one Ray; a hung Ray kills the worker after 10 min.
"""

from __future__ import annotations

import faulthandler
import os
import pathlib

import numpy as np
import pytest

from .small_cnn import SHAPE, network_rows, small_cnn

ray = pytest.importorskip("ray", reason="the [ray] extra is not installed (pip install -e '.[ray]')")
pytest.importorskip("ray.data", reason="the [ray] extra is not installed (pip install -e '.[ray]')")

from cldnn_py.integrations import ray as cl_ray  # noqa: E402

pytestmark = [pytest.mark.ray, pytest.mark.xdist_group("ray")]
TIME_LIMIT_S = int(os.environ.get("CLDNN_PY_RAY_TEST_TIMEOUT", "600"))


@pytest.fixture(scope="module")
def local_ray():
    faulthandler.dump_traceback_later(TIME_LIMIT_S, exit=True)  # bounded time: a hang ends the worker
    ray.init(address="local", num_cpus=2, resources={cl_ray.OPENCL_RESOURCE: 1}, include_dashboard=False,
             log_to_driver=False)
    ray.data.DataContext.get_current().enable_progress_bars = False
    try:
        yield ray
    finally:
        ray.shutdown()
        faulthandler.cancel_dump_traceback_later()


@pytest.fixture(scope="module")
def model() -> bytes:
    return small_cnn(seed=5)


# the CPU engine in actors: the same BatchPredictor as on OpenCL (tests/integrations/test_predictor.py runs it on
# both engines in process); here only the OpenCL device, whose actors share the "opencl" resource; 60 rows: seven
# full batches of 8 and a partial one
@pytest.mark.parametrize("device,rows", [("cl", 60)])
def test_actor_pool_matches_single_process(local_ray, rng, model, tmp_path, device, rows):
    x = rng.standard_normal((rows, *SHAPE)).astype(np.float32)
    want = network_rows(model, device, 8, x)["logits"]  # the single-process reference
    ds = local_ray.data.from_items([{"id": i, "image": x[i]} for i in range(rows)])
    out = cl_ray.map_batches(ds, model, workers=2, batch_size=8, device=device, cache_dir=tmp_path / "kernels",
                             opencl=0.5, worker_column="worker").take_all()
    assert len(out) == rows
    out.sort(key=lambda r: r["id"])
    assert [r["id"] for r in out] == list(range(rows))
    got = np.stack([r["logits"] for r in out])
    probs = np.stack([r["probs"] for r in out])
    np.testing.assert_array_equal(got, want)  # same device kind, same compiled batch: bit for bit
    np.testing.assert_allclose(probs.sum(axis=1), 1.0, rtol=1e-5)
    workers = {r["worker"] for r in out}
    assert 1 <= len(workers) <= 2, workers


def test_actor_options_choose_resources():
    assert cl_ray.actor_options("cpu") == {"num_cpus": 1.0}
    assert cl_ray.actor_options(None, opencl=0.5)["resources"] == {"opencl": 0.5}
    assert "resources" not in cl_ray.actor_options(None, opencl=0)
    env = cl_ray.actor_options("cl", threads=1)["runtime_env"]["env_vars"]
    assert env == {"POCL_CPU_MAX_CU_COUNT": "1", "NUMBA_NUM_THREADS": "1"}
    with pytest.raises(ValueError, match="threads must be >= 1"):
        cl_ray.actor_options(None, threads=0)


def test_pool_sizes(local_ray, model):
    ds = local_ray.data.from_items([{"image": np.zeros(SHAPE, np.float32)}])
    for bad, msg in [((2, 1), "1 <= min <= max"), (0, "workers must be >= 1")]:
        with pytest.raises(ValueError, match=msg):
            cl_ray.map_batches(ds, model, workers=bad)
    with pytest.raises(ValueError, match="batch_size must be >= 1"):
        cl_ray.map_batches(ds, model, batch_size=0)


def test_build_error_in_an_actor_surfaces_with_its_message(local_ray):
    ds = local_ray.data.from_items([{"image": np.zeros(SHAPE, np.float32)}])
    with pytest.raises(Exception, match="is not a valid ONNX model"):  # Ray wraps it (ActorDiedError ...)
        cl_ray.map_batches(ds, b"not a model", workers=1, batch_size=2, opencl=0.5).take_all()


def test_cli_batch_writes_one_result_per_file(local_ray, rng, model, tmp_path, capsys):
    from cldnn_py import cli

    in_dir, out_dir = tmp_path / "in", tmp_path / "out"
    in_dir.mkdir()
    model_path = tmp_path / "small_cnn.onnx"
    model_path.write_bytes(model)
    x = rng.standard_normal((13, *SHAPE)).astype(np.float32)
    for i, row in enumerate(x):  # half the files carry a leading batch of 1
        np.save(in_dir / f"img{i:02d}.npy", row if i % 2 else row[None])
    rc = cli.main(["batch", str(model_path), "--input-dir", str(in_dir), "--output-dir", str(out_dir),
                   "--workers", "2", "--batch", "4", "--cache-dir", str(tmp_path / "kernels"), "-q"])
    assert rc == 0
    assert "13 files in" in capsys.readouterr().out
    files = sorted(pathlib.Path(out_dir).iterdir())
    assert [f.name for f in files] == [f"img{i:02d}.npz" for i in range(13)]
    want = network_rows(model, "cl", 4, x)["logits"]
    for i, f in enumerate(files):
        with np.load(f) as z:
            assert sorted(z.files) == ["logits", "probs"]
            np.testing.assert_array_equal(z["logits"], want[i])
