"""The exception hierarchy of cldnn_py.

Every error is raised where the bad input enters (``Topology.add``, ``Program`` build,
``Network.set_input_data``) and names the primitive id with the expected and actual value.
All derive from :class:`CldnnError`, so ``except cl.CldnnError`` catches anything the engine raises.
"""

from __future__ import annotations


class CldnnError(Exception):
    """Base class of every error raised by cldnn_py."""


class TopologyError(CldnnError):
    """The graph itself is wrong: duplicate id, missing input id, cycle, bad output name."""


class ShapeError(CldnnError):
    """A tensor shape does not fit a primitive (weights vs convolution, input data vs InputLayout...)."""


class DTypeError(CldnnError):
    """A data type is not the one expected, or not supported by the device."""


class UnsupportedError(CldnnError):
    """No kernel supports a primitive with these parameters; the message carries selector.explain()."""


class RankError(ShapeError, UnsupportedError):
    """A tensor of rank above 6 (or 0 where a buffer is needed): a limit of the engine's layouts, so both a shape
    error and an unsupported case (``load_onnx(..., fallback="onnxruntime")`` hands such a node to onnxruntime)."""


class KernelBuildError(CldnnError):
    """An OpenCL program failed to build; the message names the primitive, the kernel and the build log."""

    def __init__(self, message: str, *, primitive_ids: list[str] | None = None,
                 kernel_name: str = "", build_log: str = "") -> None:
        super().__init__(message)
        self.primitive_ids = list(primitive_ids or [])
        self.kernel_name = kernel_name
        self.build_log = build_log


class DeviceError(CldnnError):
    """No usable OpenCL device, a bad device spec, or a resource limit of the device exceeded."""


class BindingError(CldnnError):
    """A user's array or Memory cannot be bound as a network input or output (``Network.set_input_memory``,
    ``set_output_memory``): not C-contiguous, read-only, not aligned as the device requires, a Memory of another
    engine or layout, or zero copy demanded where the device cannot give it; the message names the id and the
    expected vs actual value."""


class OnnxImportError(CldnnError):
    """The model file is not ONNX, is truncated, fails the ONNX checker, or holds an unreadable initializer; the
    message names the file (or the initializer). Raised by ``load_onnx`` / ``graph_inputs`` (frontend/onnx.py)."""


class InputFileError(CldnnError):
    """An array file (``.npy``/``.npz``) that cannot be read, holds pickled objects, or is not the kind expected, or a
    result name that would be written outside its folder; the message names the file. Raised by
    ``cldnn_py/input_files.py`` (the CLI and the examples read arrays through it)."""


class ProgramFileError(CldnnError):
    """A saved Program (``Program.load``, the warm-start cache) that cannot be used: not a program file, truncated,
    failing its checksum, of another format version, package version, engine or device, or describing a graph the
    engine does not accept; the message names the file and the expected against the actual value."""
