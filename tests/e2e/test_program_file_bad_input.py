"""Bad program files (cldnn_py/program_io.py): not a program, truncated, corrupt, tampered (with and without a
recomputed checksum), from another package version or device. Each is refused with a ProgramFileError that names
the file and what was expected, before the Program exists."""

from __future__ import annotations

import hashlib
import json
import zipfile
from collections.abc import Callable

import numpy as np
import pytest

import cldnn_py as cl
from tests.e2e.test_program_save_load import small_topology


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    """(engine, path of a saved small Program, its bytes)."""
    engine = cl.Engine()
    path = tmp_path_factory.mktemp("prog") / "good.cldnn"
    cl.Program(engine, small_topology(np.random.default_rng(7))).save(path)
    return engine, path, path.read_bytes()


def rewrite(src, dst, edit: Callable[[dict], None] | None = None, checksum: bool = True,
            member_edit: Callable[[str, bytes], bytes] | None = None) -> None:
    """Copy the program file ``src`` to ``dst`` with ``edit(manifest)`` applied, the checksum recomputed (or kept
    as it was with ``checksum=False``) and ``member_edit(name, bytes)`` applied to the other members."""
    with zipfile.ZipFile(src) as z:
        members = {n: z.read(n) for n in z.namelist()}
    manifest = json.loads(members["manifest.json"])
    if edit is not None:
        edit(manifest)
    text = json.dumps(manifest).encode()
    with zipfile.ZipFile(dst, "w", compression=zipfile.ZIP_STORED) as z:
        z.writestr("checksum", hashlib.sha256(text).hexdigest() if checksum else members["checksum"])
        z.writestr("manifest.json", text)
        for n, data in members.items():
            if n not in ("checksum", "manifest.json"):
                z.writestr(n, member_edit(n, data) if member_edit else data)


def refused(engine, path, *words: str) -> str:
    with pytest.raises(cl.ProgramFileError) as e:
        cl.Program.load(engine, path)
    msg = str(e.value)
    assert str(path) in msg, msg
    for w in words:
        assert w in msg, msg
    return msg


def test_not_a_program_file(saved, tmp_path):
    engine = saved[0]
    p = tmp_path / "x.cldnn"
    p.write_bytes(b"\x89PNG not a program at all" * 10)
    refused(engine, p, "not a readable")
    with zipfile.ZipFile(p, "w") as z:
        z.writestr("hello.txt", "hi")
    refused(engine, p, "no 'checksum'")
    refused(engine, tmp_path / "missing.cldnn", "cannot read")


@pytest.mark.parametrize("keep", [0.05, 0.5, 0.9, 0.999])
def test_truncated_file(saved, tmp_path, keep):
    engine, _, data = saved
    p = tmp_path / "cut.cldnn"
    p.write_bytes(data[:int(len(data) * keep)])
    refused(engine, p)


def test_manifest_changed_without_checksum(saved, tmp_path):
    engine, good, _ = saved
    p = tmp_path / "t.cldnn"
    rewrite(good, p, lambda m: m["outputs"].append("c1"), checksum=False)
    refused(engine, p, "checksum mismatch")


def test_constant_bytes_changed(saved, tmp_path):
    engine, good, _ = saved
    p = tmp_path / "t.cldnn"
    rewrite(good, p)  # the same content re-zipped: loads
    cl.Program.load(engine, p)
    # flip a byte of the first array's stored data behind zip's back (the CRC in the directory stays)
    data = bytearray(p.read_bytes())
    with zipfile.ZipFile(p) as z:
        info = z.getinfo("arrays/0.bin")
    start = info.header_offset + 30 + len(info.filename) + len(info.extra)
    data[start + 1] ^= 0xFF
    p.write_bytes(bytes(data))
    refused(engine, p, "CRC-32 mismatch")


def _node(m: dict, kind_word: str) -> dict:
    return next(n for n in m["nodes"] if "primitive" in n and kind_word in n["primitive"]["$c"])


def _set_shape(layout: dict, shape: list[int]) -> None:
    layout["f"]["shape"] = {"$t": shape}


TAMPERED = {
    "package version": (lambda m: m.update(package="0.0.1"), ["package: expected"]),
    "format version": (lambda m: m.update(version=99), ["version: expected 1, got 99"]),
    "device": (lambda m: m["device"].update(name="Some Other GPU"), ["another device", "Some Other GPU"]),
    "engine kind": (lambda m: m["device"].update(kind="cpu"), ["another device", "kind"]),
    "vector width": (lambda m: m["device"].update(native_vector_width_float="3"),
                     ["another device", "native_vector_width_float", "'3'"]),
    "unknown class": (lambda m: _node(m, "Convolution")["primitive"].update({"$c": "os.system"}),
                      ["unknown class 'os.system'"]),
    "object array": (lambda m: m["arrays"][0].update(dtype="|O"), ["not a numeric dtype"]),
    "layout": (lambda m: _set_shape(_node(m, "Softmax")["layout"], [1, 11]), ["layout: expected"]),
    "kernel": (lambda m: next(n for n in m["nodes"] if n["impl"])["impl"].update(kernel="evil_kernel"),
               ["kernel 'evil_kernel' does not exist"]),
    "memory slot": (lambda m: m["memory"].update(slot_bytes=[4 for _ in m["memory"]["slot_bytes"]]),
                    ["bytes, its buffer holds 4"]),
    "order": (lambda m: m["nodes"].reverse(), ["not an earlier node"]),
    "array size": (lambda m: m["arrays"][1].update(shape=[m["arrays"][1]["shape"][0] + 16],
                                                   bytes=m["arrays"][1]["bytes"] + 16), ["size: expected"]),
}


@pytest.mark.parametrize("what", list(TAMPERED))
def test_tampered_manifest_with_a_valid_checksum(saved, tmp_path, what):
    """Whoever edits the manifest can recompute its checksum: the graph checks must still refuse the change."""
    engine, good, _ = saved
    edit, words = TAMPERED[what]
    p = tmp_path / "t.cldnn"
    rewrite(good, p, edit)
    refused(engine, p, *words)


def test_cpu_file_on_an_opencl_engine(tmp_path, rng):
    prog = cl.Program(cl.Engine("cpu"), small_topology(rng))
    prog.save(tmp_path / "cpu.cldnn")
    refused(cl.Engine(), tmp_path / "cpu.cldnn", "another device", "kind: expected 'ocl'")
