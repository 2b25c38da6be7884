"""The warm-start cache's build hint (cldnn_py/program_build_hint.py): a file ``Program.save`` writes for a user
holds no kernel source; an entry saved with ``build_hint`` holds them, a load with ``build_hint`` starts the
driver's build from them, and a batch takes that build only where the package's templates make the same text: a
hint whose kernels would leave the output unwritten, or that is malformed, changes nothing but the time."""

from __future__ import annotations

import zipfile

import numpy as np
import pytest

import cldnn_py as cl
from cldnn_py import program_build_hint

from .test_program_save_load import small_topology


def _outputs(prog: cl.Program, x: np.ndarray) -> dict[str, np.ndarray]:
    net = cl.Network(prog)
    net.poison()
    return net.run({"x": x})


def _hinted(engine) -> bool:
    return engine.build_threads > 1  # without worker threads the hint would only add a build: none starts


def _save_with(monkeypatch, prog: cl.Program, path, edit) -> None:
    """Save ``prog`` with a build hint whose [(entry, source)] pairs ``edit`` rewrote."""
    real = program_build_hint.collect
    monkeypatch.setattr(program_build_hint, "collect", lambda p: edit(real(p)))
    prog.save(path, build_hint=True)
    monkeypatch.setattr(program_build_hint, "collect", real)


def test_a_user_file_holds_no_source_and_a_cache_entry_does(ocl_engine, rng, tmp_path):
    prog = cl.Program(ocl_engine, small_topology(rng))
    prog.save(tmp_path / "user.cldnn")
    with zipfile.ZipFile(tmp_path / "user.cldnn") as z:
        assert program_build_hint.MEMBER not in z.namelist()
    assert program_build_hint.read(tmp_path / "user.cldnn") is None
    prog.save(tmp_path / "entry.cldnn", build_hint=True)
    hint = program_build_hint.read(tmp_path / "entry.cldnn")
    made = {k.entry: k.source for n in prog.order if n.impl for k in n.impl.kernels}
    assert hint and dict(hint) == made and len(hint) == prog.kernels_built
    # a user's file is never read for a hint, even when it has one
    loaded = cl.Program.load(ocl_engine, tmp_path / "entry.cldnn")
    assert loaded.hint_batches == 0


def test_the_hint_builds_first_and_the_program_runs_bit_for_bit(ocl_engine, rng, tmp_path):
    prog = cl.Program(ocl_engine, small_topology(rng))
    prog.save(tmp_path / "entry.cldnn", build_hint=True)
    loaded = cl.Program.load(ocl_engine, tmp_path / "entry.cldnn", map_constants=True, build_hint=True)
    assert loaded.hint_batches == (len(loaded.cl_programs) if _hinted(ocl_engine) else 0)
    x = rng.standard_normal((1, 3, 12, 12)).astype(np.float32)
    want, got = _outputs(prog, x), _outputs(loaded, x)
    for k in want:
        assert np.isfinite(got[k]).all(), f"{k}: unwritten (poisoned) elements"
        np.testing.assert_array_equal(got[k], want[k])


def _returns_at_once(pairs: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """Every kernel returns before it writes anything: if the load ran these, the outputs would stay poisoned."""
    out = []
    for entry, src in pairs:
        at = src.index("{", src.rindex("KERNEL("))  # the entry function: KERNEL(name)(params) {
        out.append((entry, src[:at + 1] + " return; " + src[at + 1:]))
    return out


@pytest.mark.parametrize("edit", [_returns_at_once, lambda pairs: [(e, s + "\n// edited") for e, s in pairs]],
                         ids=["kernels-that-write-nothing", "a-comment-added"])
def test_a_hint_that_differs_from_the_templates_is_not_used(ocl_engine, rng, tmp_path, monkeypatch, edit):
    prog = cl.Program(ocl_engine, small_topology(rng))
    _save_with(monkeypatch, prog, tmp_path / "entry.cldnn", edit)
    hint = program_build_hint.read(tmp_path / "entry.cldnn")
    assert hint and all(s != dict(program_build_hint.collect(prog))[e] for e, s in hint)
    loaded = cl.Program.load(ocl_engine, tmp_path / "entry.cldnn", build_hint=True)
    assert loaded.hint_batches == 0
    x = rng.standard_normal((1, 3, 12, 12)).astype(np.float32)
    want, got = _outputs(prog, x), _outputs(loaded, x)
    for k in want:
        assert np.isfinite(got[k]).all(), f"{k}: unwritten (poisoned) elements: a hint's kernel ran"
        np.testing.assert_array_equal(got[k], want[k])


@pytest.mark.parametrize("member", [b"not json", b'{"a": 1}', b'[["only-an-entry"]]', b"[[1, 2]]"],
                         ids=["not-json", "not-a-list", "not-pairs", "not-strings"])
def test_a_malformed_hint_is_ignored(ocl_engine, rng, tmp_path, monkeypatch, member):
    prog = cl.Program(ocl_engine, small_topology(rng))
    monkeypatch.setattr(program_build_hint, "encode", lambda pairs: member)
    prog.save(tmp_path / "entry.cldnn", build_hint=True)
    assert program_build_hint.read(tmp_path / "entry.cldnn") is None
    loaded = cl.Program.load(ocl_engine, tmp_path / "entry.cldnn", build_hint=True)
    assert loaded.hint_batches == 0
    x = rng.standard_normal((1, 3, 12, 12)).astype(np.float32)
    np.testing.assert_array_equal(_outputs(loaded, x)["prob"], _outputs(prog, x)["prob"])
