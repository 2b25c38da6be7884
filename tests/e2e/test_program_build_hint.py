"""The build hint of a saved Program (cldnn_py/program_build_hint.py): the file holds its kernels' digests, never
their sources; the sources go in the saving machine's kernel cache; a load there starts the driver's build from
them, and a batch takes that build only where the package's templates make the same text. Kernels that would leave
the output unwritten, a malformed digest list, a cache entry that does not match its digest, or no cache at all
change nothing but the time."""

from __future__ import annotations

import json
import zipfile

import numpy as np
import pytest

import cldnn_py as cl
from cldnn_py import program_build_hint as hint

from .test_program_save_load import small_topology


@pytest.fixture
def engine_with_cache(tmp_path):
    """An OpenCL Engine with a kernel cache folder of the test's own."""
    return cl.Engine(cache_dir=str(tmp_path / "kernels"))


def _outputs(prog: cl.Program, x: np.ndarray) -> dict[str, np.ndarray]:
    net = cl.Network(prog)
    net.poison()
    return net.run({"x": x})


def _same_outputs(a: cl.Program, b: cl.Program, rng) -> None:
    x = rng.standard_normal((1, 3, 12, 12)).astype(np.float32)
    want, got = _outputs(a, x), _outputs(b, x)
    for k in want:
        assert np.isfinite(got[k]).all(), f"{k}: unwritten (poisoned) elements: a hint's kernel ran"
        np.testing.assert_array_equal(got[k], want[k])


def _hinted(engine) -> bool:
    return engine.build_threads > 1  # without worker threads the hint would only add a build: none starts


def test_the_file_holds_digests_and_the_cache_the_sources(engine_with_cache, rng, tmp_path):
    prog = cl.Program(engine_with_cache, small_topology(rng))
    prog.save(tmp_path / "p.cldnn")
    made = hint.sources(prog)
    assert made and len(made) == prog.kernels_built
    with zipfile.ZipFile(tmp_path / "p.cldnn") as z:
        listed = json.loads(z.read("manifest.json"))["kernel_digests"]
        assert not any(b"__kernel" in z.read(n) for n in z.namelist())  # no source in the file
    assert listed == [[e, hint.digest(s)] for e, s in made]
    assert hint.lookup(engine_with_cache, listed) == made


def test_the_hint_builds_first_and_the_program_runs_bit_for_bit(engine_with_cache, rng, tmp_path):
    prog = cl.Program(engine_with_cache, small_topology(rng))
    prog.save(tmp_path / "p.cldnn")
    for mapped in (False, True):
        loaded = cl.Program.load(engine_with_cache, tmp_path / "p.cldnn", map_constants=mapped)
        assert loaded.hint_batches == (len(loaded.cl_programs) if _hinted(engine_with_cache) else 0)
        _same_outputs(prog, loaded, rng)


def _returns_at_once(pairs: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """Every kernel returns before it writes anything: if the load ran these, the outputs would stay poisoned."""
    out = []
    for entry, src in pairs:
        at = src.index("{", src.rindex("KERNEL("))  # the entry function: KERNEL(name)(params) {
        out.append((entry, src[:at + 1] + " return; " + src[at + 1:]))
    return out


@pytest.mark.parametrize("edit", [_returns_at_once, lambda pairs: [(e, s + "\n// edited") for e, s in pairs]],
                         ids=["kernels-that-write-nothing", "a-comment-added"])
def test_a_hint_that_differs_from_the_templates_is_not_used(engine_with_cache, rng, tmp_path, monkeypatch, edit):
    prog = cl.Program(engine_with_cache, small_topology(rng))
    real = hint.sources
    monkeypatch.setattr(hint, "sources", lambda p: edit(real(p)))  # digests and cached sources of other kernels
    prog.save(tmp_path / "p.cldnn")
    monkeypatch.setattr(hint, "sources", real)
    with zipfile.ZipFile(tmp_path / "p.cldnn") as z:
        listed = json.loads(z.read("manifest.json"))["kernel_digests"]
    found = hint.lookup(engine_with_cache, listed)
    assert found and all(s != dict(real(prog))[e] for e, s in found)  # the driver is handed the edited kernels
    loaded = cl.Program.load(engine_with_cache, tmp_path / "p.cldnn")
    assert loaded.hint_batches == 0
    _same_outputs(prog, loaded, rng)


def _bad_list(prog, tmp_path, monkeypatch, listed) -> None:
    monkeypatch.setattr(hint, "record", lambda p: listed)
    prog.save(tmp_path / "p.cldnn")


def _corrupt_cache(prog, tmp_path, monkeypatch, cache) -> None:
    prog.save(tmp_path / "p.cldnn")
    for _, src in hint.sources(prog):  # the stored text no longer matches its digest
        cache.store(hint.store_key(hint.digest(src)), (src + "\n// changed on disk").encode())


def _drop_one(prog, tmp_path, monkeypatch, cache) -> None:
    prog.save(tmp_path / "p.cldnn")
    _, src = hint.sources(prog)[-1]  # one source gone: no partial hint either
    cache.discard(hint.store_key(hint.digest(src)))


@pytest.mark.parametrize("spoil", [
    lambda prog, tmp, mp, cache: _bad_list(prog, tmp, mp, {"not": "a list"}),
    lambda prog, tmp, mp, cache: _bad_list(prog, tmp, mp, [["entry"]]),
    lambda prog, tmp, mp, cache: _bad_list(prog, tmp, mp, [["entry", "../../etc/passwd"]]),
    lambda prog, tmp, mp, cache: _bad_list(prog, tmp, mp, [[1, 2]]),
    _corrupt_cache,
    _drop_one,
    lambda prog, tmp, mp, cache: (prog.save(tmp / "p.cldnn"), cache.clear()),
], ids=["not-a-list", "not-pairs", "not-a-digest", "not-strings", "cache-entry-changed", "one-source-missing",
        "cache-cleared"])
def test_no_usable_hint_changes_nothing_but_the_time(engine_with_cache, rng, tmp_path, monkeypatch, spoil):
    prog = cl.Program(engine_with_cache, small_topology(rng))
    spoil(prog, tmp_path, monkeypatch, engine_with_cache.kernel_cache)
    with zipfile.ZipFile(tmp_path / "p.cldnn") as z:
        assert hint.lookup(engine_with_cache, json.loads(z.read("manifest.json"))["kernel_digests"]) == []
    loaded = cl.Program.load(engine_with_cache, tmp_path / "p.cldnn")
    assert loaded.hint_batches == 0
    _same_outputs(prog, loaded, rng)
