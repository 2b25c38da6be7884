"""The program file as an archive (format version 1; ``program_io.py`` says what a Program puts in it): a zip of
``checksum`` (SHA-256 of the manifest), ``manifest.json`` and ``arrays/<i>.bin``, written atomically with each array
member's data 4096-aligned in the file, and read back checked: archive, checksum, format and package version,
device identity, each array's entry, size and CRC-32. The arrays come back as views of the file mapped in memory.
Every problem raises :class:`~cldnn_py.errors.ProgramFileError` naming the file and the expected against the actual
value.
"""

from __future__ import annotations

import hashlib
import json
import mmap
import os
import tempfile
import threading
import zipfile
import zlib
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from kernel_selector.device_caps import vector_width

from .errors import ProgramFileError
from .program_codec import ProgramCodecError, decode
from .version import __version__

if TYPE_CHECKING:
    from .engine import Engine

FORMAT = "cldnn_py.program"
FORMAT_VERSION = 1
DEVICE_FIELDS = ("name", "platform", "platform_version", "driver_version")
RUNTIME_OPTIONS = ("progress", "watchdog_s")
"""BuildOptions that do not shape the compiled graph: not stored (the loading process decides them)."""
def graph_options(options: Any) -> dict[str, Any]:
    """The fields of a BuildOptions that shape the compiled graph (all but RUNTIME_OPTIONS), a tuning cache path as
    a str: what a program file stores and what the warm-start key holds."""
    opts = {k: v for k, v in vars(options).items() if k not in RUNTIME_OPTIONS}
    if opts.get("tuning_cache") is not None:
        opts["tuning_cache"] = str(opts["tuning_cache"])
    return opts


def device_identity(engine: Engine) -> dict[str, str]:
    """The engine kind, the device fields a saved Program is bound to and the device's native float vector width:
    one PoCL build reports 8 on a VM that hides AVX-512 and 16 on one that shows it, under the same name and
    versions, and the convolution kernels compile another form (with other tune variants) for each, so a Program
    chosen for one is refused on the other (as the tuning cache keeps their winners apart)."""
    return {"kind": engine.kind, **{f: str(getattr(engine.info, f)) for f in DEVICE_FIELDS},
            "native_vector_width_float": str(vector_width(engine.info))}


def write(path: str | os.PathLike[str], manifest: dict[str, Any], arrays: list[np.ndarray]) -> int:
    """Write the archive of ``manifest`` (its ``arrays`` list is filled here) and ``arrays`` to ``path``
    atomically (a temporary file in the same folder, renamed); returns the file's size in bytes. Raises OSError."""
    manifest["arrays"] = [{"dtype": a.dtype.str, "shape": list(a.shape), "bytes": int(a.nbytes)} for a in arrays]
    text = json.dumps(manifest, separators=(",", ":")).encode()
    dest = Path(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{dest.name}.", suffix=".tmp", dir=dest.parent if str(dest.parent) else ".")
    try:
        with os.fdopen(fd, "wb") as f, zipfile.ZipFile(f, "w", compression=zipfile.ZIP_STORED, allowZip64=True) as z:
            z.writestr("checksum", hashlib.sha256(text).hexdigest())
            z.writestr("manifest.json", text)
            for i, a in enumerate(arrays):
                info = _aligned_info(f"arrays/{i}.bin", f.tell(), a.nbytes > 2**31)
                with z.open(info, "w", force_zip64=a.nbytes > 2**31) as m:
                    m.write(memoryview(a.reshape(-1).view(np.uint8)))  # type: ignore[arg-type]
        os.replace(tmp, dest)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return dest.stat().st_size


ALIGN = 4096
"""Array members start at a multiple of this offset in the file (the zip local header's extra field is padded, as
Android's zipalign does): a mapped constant can then be the device buffer itself (``wrap_host``)."""


def _aligned_info(name: str, offset: int, zip64: bool) -> zipfile.ZipInfo:
    """A stored member whose data will start at a multiple of ALIGN when its header is written at ``offset``."""
    info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
    info.compress_type = zipfile.ZIP_STORED
    header = 30 + len(name.encode()) + (20 if zip64 else 0)  # zip64 adds its own extra record
    pad = (-(offset + header + 4)) % ALIGN  # 4: the padding record's own id and size
    info.extra = (0xD935).to_bytes(2, "little") + pad.to_bytes(2, "little") + bytes(pad)
    return info


def read(path: str | os.PathLike[str], engine: Engine | None = None,
         private: bool = False) -> tuple[dict[str, Any], list[np.ndarray]]:
    """(manifest, arrays) of a program file, checked: archive, checksum, format, version, package, and, with
    ``engine``, its device. The arrays are views of the file mapped read-only, or (``private``) copy-on-write, so
    they are writeable without changing the file. Raises ProgramFileError."""
    name = str(path)
    try:
        with zipfile.ZipFile(path) as z:
            members = set(z.namelist())
            for m in ("checksum", "manifest.json"):
                if m not in members:
                    raise ProgramFileError(f"'{name}' is not a cldnn_py program file: no '{m}' in the archive")
            text = z.read("manifest.json")
            digest = z.read("checksum").decode("ascii", "replace").strip()
            if hashlib.sha256(text).hexdigest() != digest:
                raise ProgramFileError(f"'{name}': checksum mismatch: the manifest's SHA-256 is "
                                       f"{hashlib.sha256(text).hexdigest()[:16]}..., the file says {digest[:16]}... "
                                       f"(the file was changed or is corrupt)")
            manifest = _json(text, name)
            _check_header(manifest, name, engine)
            arrays = _arrays(z, manifest, name, private)
    except (zipfile.BadZipFile, zipfile.LargeZipFile, EOFError) as e:
        raise ProgramFileError(f"'{name}' is not a readable cldnn_py program file (truncated or corrupt): "
                               f"{e}") from None
    except OSError as e:
        raise ProgramFileError(f"cannot read program file '{name}': {e}") from None
    return manifest, arrays


def _json(text: bytes, name: str) -> dict[str, Any]:
    try:
        manifest = json.loads(text)
    except ValueError as e:
        raise ProgramFileError(f"'{name}': manifest.json is not valid JSON: {e}") from None
    if not isinstance(manifest, dict):
        raise ProgramFileError(f"'{name}': manifest.json: expected an object, got {type(manifest).__name__}")
    return manifest


def _check_header(manifest: dict[str, Any], name: str, engine: Engine | None) -> None:
    expect = {"format": FORMAT, "version": FORMAT_VERSION, "package": __version__}
    for key, want in expect.items():
        got = manifest.get(key)
        if got != want:
            raise ProgramFileError(f"'{name}': {key}: expected {want!r}, got {got!r}"
                                   + ("; build and save the program again with this version" if key != "format"
                                      else ""))
    if engine is not None:
        have = device_identity(engine)
        saved = manifest.get("device")
        if not isinstance(saved, dict):
            raise ProgramFileError(f"'{name}': no device identity in the manifest")
        for key, want in have.items():
            if saved.get(key) != want:
                raise ProgramFileError(f"'{name}' was compiled for another device: {key}: expected {want!r} (this "
                                       f"engine), got {saved.get(key)!r} (the file)")


def _arrays(z: zipfile.ZipFile, manifest: dict[str, Any], name: str, private: bool = False) -> list[np.ndarray]:
    """The stored arrays, read-only views of the file mapped in memory (no copy: the constants go straight from
    the page cache to the device), each checked against its manifest entry and its zip CRC-32 (in a thread: zlib
    releases the GIL, so the check overlaps the kernel rebuild)."""
    specs = manifest.get("arrays")
    if not isinstance(specs, list):
        raise ProgramFileError(f"'{name}': manifest has no array list")
    z.fp.seek(0)  # type: ignore[union-attr]
    access = mmap.ACCESS_COPY if private else mmap.ACCESS_READ
    mm = mmap.mmap(z.fp.fileno(), 0, access=access)  # type: ignore[union-attr]
    out, spans = [], []
    for i, spec in enumerate(specs):
        member = f"arrays/{i}.bin"
        try:
            dt = decode({"$dt": spec["dtype"]}, [])
            shape = tuple(int(s) for s in spec["shape"])
            nbytes = int(spec["bytes"])
            info = z.getinfo(member)
        except (KeyError, TypeError, ValueError, ProgramCodecError) as e:
            raise ProgramFileError(f"'{name}': array {i}: bad entry or missing member: {e}") from None
        if nbytes != int(np.prod(shape, dtype=np.int64)) * dt.itemsize or info.file_size != nbytes \
                or info.compress_type != zipfile.ZIP_STORED:
            raise ProgramFileError(f"'{name}': array {i}: size: expected {nbytes} stored bytes for {dt} {shape}, "
                                   f"the member holds {info.file_size} (compression {info.compress_type})")
        head = mm[info.header_offset:info.header_offset + 30]
        if len(head) < 30 or head[:4] != b"PK\x03\x04":
            raise ProgramFileError(f"'{name}': array {i}: no local header at offset {info.header_offset}")
        start = info.header_offset + 30 + int.from_bytes(head[26:28], "little") + int.from_bytes(head[28:30],
                                                                                                    "little")
        if start + nbytes > len(mm):
            raise ProgramFileError(f"'{name}': array {i}: truncated: {nbytes} bytes at offset {start}, the file has "
                                   f"{len(mm)}")
        raw = np.frombuffer(mm, dtype=np.uint8, count=nbytes, offset=start)
        out.append(raw.view(dt).reshape(shape) if dt.itemsize == 1 or start % dt.itemsize == 0
                   else raw.copy().view(dt).reshape(shape))
        spans.append((i, raw, info.CRC))
    return CheckedArrays(out, spans, name)


class CheckedArrays(list[np.ndarray]):
    """The arrays, with their CRC-32 check running in a thread; ``verify()`` waits for it and raises
    ProgramFileError for the first array whose bytes do not match."""

    def __init__(self, arrays: list[np.ndarray], spans: list[tuple[int, np.ndarray, int]], name: str) -> None:
        super().__init__(arrays)
        self._bad: list[int] = []
        self._name = name
        self._thread = threading.Thread(target=self._check, args=(spans,), daemon=True)
        self._thread.start()

    def _check(self, spans: list[tuple[int, np.ndarray, int]]) -> None:
        self._bad = [i for i, raw, crc in spans if zlib.crc32(raw) != crc]  # type: ignore[arg-type]

    def verify(self) -> None:
        self._thread.join()
        if self._bad:
            raise ProgramFileError(f"'{self._name}': array {self._bad[0]}: CRC-32 mismatch (the file was changed or "
                                   f"is corrupt)")


