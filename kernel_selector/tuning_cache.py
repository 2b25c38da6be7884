"""The tuning cache: which kernel, and which variant of it, won on a device for one Params (clDNN's auto-tuning).

clDNN times every candidate kernel of a primitive once per shape and device and keeps the winner in a JSON cache
(``cache.json``, keyed by device and a hash of the params); later builds read the winner instead of the priority
rules. This module is that cache: the storage, the keys, and the lookup the selector does. The timing itself needs
an engine and lives in :mod:`cldnn_py.autotuner`.

Keys:

- device key: device name, platform version (PoCL and its LLVM), driver version and the device's native float vector
  width, so a winner measured on one device/compiler/instruction set is never applied to another. The width is in
  the key since version 3: one PoCL build on two VMs of the same name ("pthread-AMD EPYC") reports 8 where the VM
  hides AVX-512 and 16 where it shows it, and ``convolution_b_fs_yx_fsv16`` compiles another form (and offers other
  pixel blocks) on each; version-2 keys mixed the two, so the shipped winners tuned at width 8 were applied at
  width 16, where 14 of ResNet-50's were not even valid variants (ignored, one warning each) and the stored
  ``device:registers`` fact ("wide", an unmeasured default at width 8) overrode the "narrow" rule: ResNet-50 on
  PoCL 53.0 ms median against 48.5 with ``tuning="off"`` (2026-12-07, one process, interleaved runs);
- params key: the first 20 hex digits of the SHA-1 of a canonical JSON of everything a kernel sees (kind, engine,
  every input and output layout with padding, attributes, fused ops). Attributes at their default value are left
  out, so that a new attribute with a default (``ConvolutionAttrs.block_diagonal`` was one) keeps the keys of the
  entries stored before it: in version 1, which listed every attribute, that addition had silently orphaned every
  shipped convolution entry for three days. Each entry keeps a readable ``desc`` too.

Two files are read: the one shipped in the package (``kernel_selector/tuning/*.json``, measured on the pip PoCL on
a 2-core Zen 4; used by anyone with the same device key) and the user's (``BuildOptions.tuning_cache``,
``CLDNN_PY_TUNING_CACHE`` or ``<platformdirs user cache>/cldnn_py/tuning_cache.json``), whose entries win. Only the
user's file is written. File format::

    {"version": 3, "devices": {"<device key>": {"<params key>":
        {"kernel": "convolution_b_fs_yx_fsv16", "variant": {"block": 5}, "ms": 0.61, "desc": "..."},
        "device:load_form": {"load_form": "pointer", "gflops": {"pointer": 160.0, "vload": 50.0}}}}}
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import tempfile
import threading
from dataclasses import MISSING, dataclass, field, fields
from importlib import resources
from pathlib import Path
from typing import Any

from .device_caps import vector_width
from .params import Params

log = logging.getLogger("cldnn_py.tuning")

TUNING_MODES = ("off", "cache", "tune")
FORMAT_VERSION = 3
"""3: the device key ends with the native float vector width (``float8``, ``float16``); 2: attributes at their
default value are left out of the params key (1 listed them all). Older files' keys are not comparable, so a file
of another version is ignored with a warning (tune again)."""


def device_key(device: Any) -> str:
    """``"<name> | <platform version> | <driver version> | float<N>"`` of a DeviceInfo (anything with those
    attributes; N: ``device.caps.native_vector_width_float``, 1 when the device has no caps)."""
    return f"{device.name} | {device.platform_version} | {device.driver_version} | float{vector_width(device)}"


def _layout_desc(lay: Any) -> str:
    """``str(lay)`` without padding along a blocked dimension: the slices of an in-place concatenation that a
    producer writes into (prepare_buffer_fusing) change where its output lands, not its work, so the producer keeps
    the winner tuned for its unpadded output."""
    return str(lay.without_blocked_padding())


def _plain_value(v: Any) -> Any:
    return list(v) if isinstance(v, tuple) else v


def attrs_desc(attrs: Any) -> dict[str, Any]:
    """The attributes of a typed attrs dataclass (:class:`cldnn_py.ops.OpAttrs`) that differ from their field's
    default, sorted by name, tuples as lists (a value equal to the default as a list or a tuple is left out too)."""
    out = {}
    for f in fields(attrs):
        value = getattr(attrs, f.name)
        default = f.default if f.default is not MISSING else (
            f.default_factory() if f.default_factory is not MISSING else MISSING)
        if default is not MISSING and _plain_value(value) == _plain_value(default):
            continue
        out[f.name] = _plain_value(value)
    return dict(sorted(out.items()))


def params_desc(params: Params) -> dict[str, Any]:
    """The canonical, JSON-able description of everything a kernel sees of ``params`` (the layer id excluded;
    attributes at their default left out: :func:`attrs_desc`)."""
    return {
        "kind": params.kind,
        "engine": params.engine,
        "inputs": [_layout_desc(x) for x in params.inputs],
        "output": _layout_desc(params.output),
        "attrs": attrs_desc(params.attrs),
        "fused": [{"kind": op.kind, "attrs": attrs_desc(op.attrs),
                   "inputs": [_layout_desc(x) for x in op.extra_inputs]} for op in params.fused_ops],
    }


def params_key(params: Params) -> str:
    """20 hex digits of SHA-1 over :func:`params_desc` (sorted keys, compact separators)."""
    text = json.dumps(params_desc(params), sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha1(text.encode()).hexdigest()[:20]


def short_desc(params: Params) -> str:
    """One human line for a cache entry: ``kind in0 -> out [attrs]``."""
    d = params_desc(params)
    attrs = ",".join(f"{k}={v}" for k, v in d["attrs"].items() if k not in ("weights", "bias"))
    fused = "+".join(f["kind"] for f in d["fused"])
    return f"{d['kind']} {' ; '.join(d['inputs'])} -> {d['output']} [{attrs}]{' fused ' + fused if fused else ''}"


MAX_VARIANT_VALUE = 2**31 - 1  # a variant value is a jit constant: an OpenCL int


def _entry_problem(key: Any, entry: Any) -> str | None:
    """Why one stored entry cannot be used, or None: a winner needs ``kernel`` (a string), ``variant`` (a dict of
    string to int, |value| < 2**31; booleans and floats refused), ``ms`` (a number or null); a ``device:<name>`` fact
    must be a dict (its values are checked by its reader, e.g. cldnn_py.device_probe)."""
    if not isinstance(key, str) or not isinstance(entry, dict):
        return f"entry {key!r} is a {type(entry).__name__}, not an object"
    if key.startswith("device:"):
        return None
    if not isinstance(entry.get("kernel"), str):
        return f"entry {key!r}: 'kernel' is {entry.get('kernel')!r}, not a kernel name"
    variant = entry.get("variant", {})
    if not isinstance(variant, dict):
        return f"entry {key!r}: 'variant' is {variant!r}, not an object"
    for name, value in variant.items():
        if type(value) is not int or abs(value) > MAX_VARIANT_VALUE:
            return f"entry {key!r}: variant value {name}={value!r} is not an int below 2**31"
    ms = entry.get("ms")
    if ms is not None and (type(ms) not in (int, float) or ms != ms):
        return f"entry {key!r}: 'ms' is {ms!r}, not a number"
    return None


def _read(path: Path) -> dict[str, dict[str, dict[str, Any]]]:
    """The ``devices`` of a tuning cache file, keeping only well-formed entries. Nothing in it is trusted: a file
    that is missing gives {}; one that is not a regular file, cannot be read, is not JSON (truncated, hand-edited),
    or is not a cache of this FORMAT_VERSION gives {} with a warning naming it; malformed entries
    (:func:`_entry_problem`) are dropped with one warning per file. Never raises for what is on disk (a bad file
    must not fail every build)."""
    try:
        if not path.is_file():
            if path.exists():
                log.warning("tuning cache %s is not a regular file; ignoring it", path)
            return {}
        data = json.loads(path.read_text())
    except (OSError, ValueError, RecursionError) as err:
        log.warning("tuning cache %s cannot be read (%s); ignoring it (delete it, or pass another "
                    "BuildOptions(tuning_cache=...), to tune again)", path, err)
        return {}
    if not isinstance(data, dict) or data.get("version") != FORMAT_VERSION or not isinstance(data.get("devices"),
                                                                                              dict):
        got = f"version {data.get('version')!r}" if isinstance(data, dict) else f"a JSON {type(data).__name__}"
        log.warning("tuning cache %s: expected {'version': %d, 'devices': {...}}, got %s; ignoring it (an older "
                    "version keys its entries by an older formula: tune again)", path, FORMAT_VERSION, got)
        return {}
    out: dict[str, dict[str, dict[str, Any]]] = {}
    problems = []
    for dev, entries in data["devices"].items():
        if not isinstance(dev, str) or not isinstance(entries, dict):
            problems.append(f"device {dev!r} holds a {type(entries).__name__}, not an object")
            continue
        kept = out.setdefault(dev, {})
        for key, entry in entries.items():
            problem = _entry_problem(key, entry)
            if problem is None:
                kept[key] = entry
            else:
                problems.append(problem)
    if problems:
        log.warning("tuning cache %s: %d malformed entries ignored (first: %s)", path, len(problems), problems[0])
    return out


def shipped_files() -> list[Path]:
    """The tuning caches shipped in ``kernel_selector/tuning/`` (sorted by name)."""
    folder = resources.files("kernel_selector").joinpath("tuning")
    if not folder.is_dir():
        return []
    return sorted(Path(str(p)) for p in folder.iterdir() if p.name.endswith(".json"))


@dataclass
class Winner:
    """A cache entry: kernel name, its variant (jit choices, e.g. ``{"block": 5}``), median device time in ms."""

    kernel: str
    variant: dict[str, int] = field(default_factory=dict)
    ms: float | None = None


class TuningCache:
    """Shipped winners plus the user's file (which wins); thread-safe lookups and stores, atomic saves.

    Args:
        path: the user's file (read if present, written by ``save``; the runtime's default is
            :func:`cldnn_py.kernel_cache.default_tuning_cache_path`).
        shipped: also read the caches shipped in the package.
    Nothing read is trusted: a file that cannot be read or is not a cache of this FORMAT_VERSION is ignored with a
    warning, a malformed entry is dropped (:func:`_read`), and the selector takes a stored winner only when its
    kernel and variant are among the kernel's own candidates for the params (``KernelSelector.select``). The
    shipped files go through the same checks.
    """

    def __init__(self, path: Path | str, shipped: bool = True) -> None:
        self.path = Path(path)
        self._shipped: dict[str, dict[str, dict[str, Any]]] = {}
        if shipped:
            for f in shipped_files():
                for dev, entries in _read(f).items():
                    self._shipped.setdefault(dev, {}).update(entries)
        self._user = _read(self.path)
        self._dirty = False
        self._lock = threading.Lock()

    def lookup(self, device: Any, params: Params) -> Winner | None:
        """The stored winner for ``params`` on ``device`` (a DeviceInfo), user entries first, or None."""
        dev, key = device_key(device), params_key(params)
        with self._lock:
            e = self._user.get(dev, {}).get(key) or self._shipped.get(dev, {}).get(key)
        if e is None:
            return None
        return Winner(e["kernel"], dict(e.get("variant", {})), e.get("ms"))

    def store(self, device: Any, params: Params, winner: Winner) -> None:
        """Record a winner in the user's entries (written by ``save``)."""
        entry = {"kernel": winner.kernel, "variant": dict(winner.variant), "ms": winner.ms,
                 "desc": short_desc(params)}
        with self._lock:
            self._user.setdefault(device_key(device), {})[params_key(params)] = entry
            self._dirty = True

    def lookup_device(self, device: Any, name: str) -> dict[str, Any] | None:
        """A per-device fact stored under ``"device:<name>"`` (e.g. the load-form probe of cldnn_py.device_probe),
        user entries first, or None."""
        dev, key = device_key(device), f"device:{name}"
        with self._lock:
            e = self._user.get(dev, {}).get(key) or self._shipped.get(dev, {}).get(key)
        return dict(e) if e is not None else None

    def store_device(self, device: Any, name: str, value: dict[str, Any]) -> None:
        """Record a per-device fact (a JSON-able dict) in the user's entries."""
        with self._lock:
            self._user.setdefault(device_key(device), {})[f"device:{name}"] = dict(value)
            self._dirty = True

    def entries(self, device: Any) -> dict[str, dict[str, Any]]:
        """Every entry known for ``device`` (shipped, then the user's over them), by params key."""
        dev = device_key(device)
        with self._lock:
            return {**self._shipped.get(dev, {}), **self._user.get(dev, {})}

    def save(self) -> Path | None:
        """Write the user's entries to ``path`` atomically (temp file + rename, merged with what another process
        wrote meanwhile); returns the path, or None when nothing changed. Raises OSError if it cannot be written."""
        with self._lock:
            if not self._dirty:
                return None
            self.path.parent.mkdir(parents=True, exist_ok=True)
            merged = _read(self.path)
            for dev, entries in self._user.items():
                merged.setdefault(dev, {}).update(entries)
            fd, tmp = tempfile.mkstemp(dir=self.path.parent, prefix=".tuning_", suffix=".json")
            with os.fdopen(fd, "w") as fh:
                json.dump({"version": FORMAT_VERSION, "devices": merged}, fh, indent=1, sort_keys=True)
            os.chmod(tmp, 0o644)  # mkstemp makes it private; a cache is as readable as any other user file
            os.replace(tmp, self.path)
            self._user = merged
            self._dirty = False
        log.info("tuning cache written: %s", self.path)
        return self.path
