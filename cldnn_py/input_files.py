"""Array files from disk (``.npy`` / ``.npz``): the one loader of the CLI (``run --input``, ``batch``) and the
examples (``--weights``), and the checks of what it read.

Nothing from disk is trusted: files are read with ``allow_pickle=False`` always, so a pickled object array (which
would run code when unpickled) is refused, as is a file numpy cannot read. An array fed to a model input must have
the input's declared dtype and rank and match each static dimension; the error names the file, the input, the
expected and the actual value. Result files are written only inside the folder named: a name that is empty,
absolute or holds a path separator or ``..`` is refused.
"""

from __future__ import annotations

import os
import pathlib
import zipfile

import numpy as np

from .errors import DTypeError, InputFileError, ShapeError
from .io_signature import TensorSignature


def load_array_file(path: str | os.PathLike[str]) -> np.ndarray | dict[str, np.ndarray]:
    """The array of a ``.npy`` file, or {name: array} of a ``.npz`` file (read whole; the file is closed).

    Never unpickles: raises InputFileError naming the file for an object (pickled) array, a missing or unreadable
    file, or one that is not ``.npy``/``.npz`` data.
    """
    name = os.fspath(path)
    try:
        loaded = np.load(name, allow_pickle=False)
        if isinstance(loaded, np.lib.npyio.NpzFile):
            with loaded:
                return {k: _plain(name, k, loaded[k]) for k in loaded.files}
        return _plain(name, None, loaded)
    except ValueError as e:
        if "allow_pickle" in str(e) or "pickle" in str(e).lower():
            raise InputFileError(f"'{name}' holds pickled Python objects (an object array); refused: only "
                                 f"plain numeric arrays are read") from None
        raise InputFileError(f"'{name}' is not a readable .npy/.npz file: {e}") from None
    except (OSError, EOFError, zipfile.BadZipFile, KeyError) as e:
        raise InputFileError(f"'{name}' cannot be read: {type(e).__name__}: {e}") from None


def _plain(name: str, key: str | None, arr: np.ndarray) -> np.ndarray:
    """``arr`` if numeric (or bool); InputFileError for object, string, void or structured arrays."""
    if arr.dtype.kind not in "biuf":
        where = f"'{name}'" + (f" array '{key}'" if key is not None else "")
        raise InputFileError(f"{where} has dtype {arr.dtype}; only numeric and bool arrays are read")
    return arr


def load_array(path: str | os.PathLike[str]) -> np.ndarray:
    """The one array of a ``.npy`` file (InputFileError for a ``.npz``, or as :func:`load_array_file`)."""
    got = load_array_file(path)
    if isinstance(got, dict):
        raise InputFileError(f"'{os.fspath(path)}' is a .npz archive of {sorted(got)}; a .npy file is expected")
    return got


def load_array_dict(path: str | os.PathLike[str]) -> dict[str, np.ndarray]:
    """{name: array} of a ``.npz`` file (InputFileError for a ``.npy``, or as :func:`load_array_file`)."""
    got = load_array_file(path)
    if not isinstance(got, dict):
        raise InputFileError(f"'{os.fspath(path)}' is a single .npy array; a .npz archive is expected")
    return got


def check_input_array(sig: TensorSignature, arr: np.ndarray, source: str) -> None:
    """Raise DTypeError / ShapeError naming ``source`` (the file), the input, the expected and the actual value when
    ``arr`` has another dtype than the declared one, another rank, or differs in a static dimension."""
    if arr.dtype != sig.dtype:
        raise DTypeError(f"{source}: input '{sig.name}': dtype: expected {sig.dtype}, got {arr.dtype}")
    bad_rank = arr.ndim != len(sig.dims)
    if bad_rank or any(isinstance(d, int) and d != s for d, s in zip(sig.dims, arr.shape)):
        raise ShapeError(f"{source}: input '{sig.name}': shape: expected {sig.describe()}, got {tuple(arr.shape)}")


def output_path(folder: str | os.PathLike[str], name: str, suffix: str) -> pathlib.Path:
    """``folder/name+suffix``, refused (InputFileError) unless it is a plain file name directly inside ``folder``:
    no path separator, no ``..``, not absolute, not empty (a model's output name or an input file's stem)."""
    file = f"{name}{suffix}"
    if (not name or name in (".", "..") or "/" in file or "\\" in file or os.sep in file
            or (os.altsep and os.altsep in file) or os.path.isabs(file) or "\0" in file):
        raise InputFileError(f"result name {name!r} is not a plain file name; refused (it could be written outside "
                             f"'{os.fspath(folder)}')")
    out = pathlib.Path(folder) / file
    if out.resolve().parent != pathlib.Path(folder).resolve():
        raise InputFileError(f"result '{file}' resolves outside '{os.fspath(folder)}'; refused")
    return out
