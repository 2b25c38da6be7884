"""KernelBase: how a kernel declares what it supports, how it is dispatched, and what it compiles to.

The hooks follow clDNN's ``KernelBase`` (see ``activation_kernel_tutorial.cpp``):

- ``supported_key()``: engine kinds, data types and formats (checked by the selector first);
- ``validate(params)``: anything the key cannot say (a stride, a rank); returns a reason string or None;
- ``priority(params)``: lower wins (``FORCE_PRIORITY_1`` ... ``DONT_USE_IF_HAVE_SOMETHING_ELSE``);
- ``jit_constants(params)``: the ``#define`` header (tensor sizes, pitches, activation ...);
- ``dispatch(params)``: gws (and lws, None lets the driver choose) of each enqueue;
- ``kernel_data(params)``: the KernelData the engine builds and runs;
- ``tune_variants(params)``: the variants (jit choices such as a block size) auto-tuning may time; a kernel with
  more than one accepts ``kernel_data(params, variant)``.

An OpenCL kernel's template is ``cl_kernels/<name>.cl``. Its entry point is written ``KERNEL(<name>)(args...)``:
``KERNEL`` expands to a unique ``__kernel void`` name so many kernels share one batched ``cl.Program``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from importlib import resources

from cldnn_py.layout import DataType

from .jitter import JitConstants, fused_ops_jit, source_hash, tensor_jit
from .params import Params, SupportedKey

INT32_MAX = 2**31 - 1
"""The largest element offset an OpenCL kernel's ``int`` arithmetic reaches."""

FORCE_PRIORITY_1 = 1
FORCE_PRIORITY_2 = 2
FORCE_PRIORITY_3 = 3
FORCE_PRIORITY_5 = 5
FORCE_PRIORITY_7 = 7
FORCE_PRIORITY_9 = 9
DONT_USE_IF_HAVE_SOMETHING_ELSE = 1000


@dataclass(frozen=True)
class Arg:
    """A kernel argument: ``("input", i)`` (the i-th dependency's buffer), ``("output", 0)``, or a scalar
    ``("int", value)`` / ``("float", value)``."""

    kind: str
    index: int | float = 0


class BaseKernelData:
    """One enqueue of a kernel, whatever the engine kind: its ``entry`` name, its ``args`` (buffers and scalars, in
    the order the kernel takes them) and its ``gws`` / ``lws`` (``lws`` None: the driver's choice). The concrete
    kinds are :class:`ClKernelData` (OpenCL source, built by the OpenCL engine) and :class:`CpuKernelData` (a
    callable run by the CPU engine); an engine's ``bind_kernel`` accepts its own kind and raises DeviceError for the
    other, so no caller branches on the kind."""

    entry: str
    gws: tuple[int, ...]
    lws: tuple[int, ...] | None
    args: list[Arg]


@dataclass
class ClKernelData(BaseKernelData):
    """One OpenCL enqueue (clDNN's ``clKernelData``): the full source of the kernel (jit header + template, without
    ``common_header()``), its entry point, gws, lws, args and build options."""

    entry: str
    source: str
    gws: tuple[int, ...]
    lws: tuple[int, ...] | None
    args: list[Arg]
    build_options: tuple[str, ...] = ()


@dataclass
class CpuKernelData(BaseKernelData):
    """One CPU-engine "enqueue": ``fn`` is the callable the CPU engine runs with the kernel's arguments in ``args``
    order (raw 64-byte aligned uint8 host buffers, np.int32 / np.float32 scalars); it knows its layouts from the
    Params it was made from (:mod:`kernel_selector.cpu_kernel_base`). gws / lws are nominal (no work-groups)."""

    entry: str
    fn: Callable[..., None]
    args: list[Arg]
    gws: tuple[int, ...] = (1,)
    lws: tuple[int, ...] | None = None


@dataclass
class KernelData:
    """What the selector returns for one primitive: the chosen kernel's name and its enqueues, in order (all
    :class:`ClKernelData` for an OpenCL kernel, all :class:`CpuKernelData` for a CPU one)."""

    kernel_name: str
    kernels: list[BaseKernelData] = field(default_factory=list)
    variant: dict[str, int] = field(default_factory=dict)
    """The tune variant the kernels were made with ({}: the kernel's default); set by the selector."""


_COMMON: str | None = None


def common_header() -> str:
    """``cl_kernels/include/common.cl``: helpers shared by every kernel (prepended once per program)."""
    global _COMMON
    if _COMMON is None:
        _COMMON = resources.files("cl_kernels").joinpath("include/common.cl").read_text()
    return _COMMON


def load_template(name: str) -> str:
    """The text of ``cl_kernels/<name>.cl`` (importlib.resources, so it works from a wheel)."""
    return resources.files("cl_kernels").joinpath(f"{name}.cl").read_text()


class KernelBase:
    """Base of every kernel. Subclasses set ``name`` (= template file and registry name) and ``primitive``
    (the primitive type name it implements) and override the hooks. ``n_data_inputs`` says how many of the
    params' inputs the supported key checks (the rest are weights, bias ...)."""

    name: str = ""
    primitive: str = ""
    engine: str = "ocl"
    n_data_inputs: int | None = 1
    supports_fused_ops: bool = False  # True when the template ends with FUSED_OPS(...) and FUSED_OPS_ARGS
    fused_op_kinds: frozenset[str] = frozenset({"activation", "eltwise"})  # the FusedOp kinds its epilogue takes
    tier: str = ""  # "cpu": shaped for CPU devices (work-groups of one); "gpu": work-groups, __local; "": both
    offsets_64bit: bool = False  # True when an OpenCL kernel computes every offset in 64 bits (long / size_t)
    writes_padded_blocks: bool = False  # True when the output is written through OUTPUT_OFFSET and pitches only

    def index_reason(self, params: Params) -> str | None:
        """Why an OpenCL kernel with 32-bit offsets cannot address ``params``' tensors: one (input, fused-op input or
        output) of more than INT32_MAX (2^31-1) elements, named with its element count; None otherwise. The numba
        kernels of the CPU engine index in 64 bits."""
        if self.engine != "ocl" or self.offsets_64bit:
            return None
        tensors = [(f"input {i}", lay) for i, lay in enumerate(params.inputs)]
        tensors += [(f"fused op input {lay}", lay) for op in params.fused_ops for lay in op.extra_inputs]
        for what, lay in tensors + [("output", params.output)]:
            if lay.buffer_size > INT32_MAX:
                return (f"{what} {lay} has {lay.buffer_size} elements, more than the {INT32_MAX} a 32-bit (int) "
                        f"offset reaches")
        return None

    def blocked_padding_reason(self, params: Params) -> str | None:
        """Why this kernel cannot take a tensor padded along its blocked dimension, or None. Only an output is ever
        padded so (the feature slices an in-place concatenation's inputs write, :mod:`cldnn_py.passes.
        prepare_buffer_fusing`), and only kernels that write every output element through ``OUTPUT_OFFSET`` plus
        pitches or ``OUTPUT_GET_INDEX`` say they take it (``writes_padded_blocks``); inputs so padded are refused."""
        tensors = [(f"input {i}", lay) for i, lay in enumerate(params.inputs)]
        tensors += [(f"fused op input {lay}", lay) for op in params.fused_ops for lay in op.extra_inputs]
        if not self.writes_padded_blocks:
            tensors.append(("output", params.output))
        for what, lay in tensors:
            if lay.pads_blocked_dim:
                return f"{what} {lay} is padded along its blocked dimension '{lay.format.block[0]}'"  # type: ignore[index]
        return None

    def tier_reason(self, params: Params) -> str | None:
        """Why this kernel's tier is not the one the build wants (``params.kernel_tier``), or None."""
        if not self.tier or self.tier == params.kernel_tier:
            return None
        caps = params.caps
        if self.tier == "cpu":
            return (f"device type {caps.device_type}, {params.kernel_tier} tier: the cpu tier runs work-groups of one "
                    f"work-item")
        return (f"device type {caps.device_type}, {params.kernel_tier} tier: the gpu tier needs work-groups and local "
                f"memory (BuildOptions(kernel_tier='gpu') forces it)")

    def supported_key(self) -> SupportedKey:
        """Default: OpenCL, f32 in and out, any format, padding allowed."""
        return SupportedKey()

    def validate(self, params: Params) -> str | None:
        """Reason this kernel cannot run ``params`` beyond its key, or None."""
        return None

    def priority(self, params: Params) -> int:
        """Lower wins. Reference kernels return DONT_USE_IF_HAVE_SOMETHING_ELSE."""
        return DONT_USE_IF_HAVE_SOMETHING_ELSE

    def jit_constants(self, params: Params) -> JitConstants:
        """Tensor constants of every input (INPUT0, INPUT1 ...) and of the OUTPUT."""
        j = JitConstants()
        for i, x in enumerate(params.inputs):
            j.update(tensor_jit(f"INPUT{i}", x))
        j.update(tensor_jit("OUTPUT", params.output))
        return j

    def dispatch(self, params: Params) -> tuple[tuple[int, ...], tuple[int, ...] | None]:
        """Default gws: (x, y, f * b) of the output; lws None (driver's choice)."""
        b, f, y, x = params.output.dims4
        return (x, y, f * b), None

    def args(self, params: Params) -> list[Arg]:
        """Default: every input buffer in order, then the output."""
        return [Arg("input", i) for i in range(len(params.inputs))] + [Arg("output", 0)]

    def make_source(self, jit: JitConstants, template: str | None = None) -> tuple[str, str]:
        """(entry point name, source) for a template specialized by ``jit``; the name hashes the source."""
        body = jit.header() + (template if template is not None else load_template(self.name))
        entry = f"{self.name}__{source_hash(body)}"
        src = f"#define KERNEL(name) __kernel void {entry}\n{body}\n#undef KERNEL\n{jit.undefs()}"
        return entry, src

    def tune_variants(self, params: Params) -> list[dict[str, int]]:
        """The variants auto-tuning times for ``params`` (dicts of jit choices); ``[{}]``: nothing to tune. A kernel
        that returns more must accept ``kernel_data(params, variant)`` for each of them."""
        return [{}]

    def kernel_data(self, params: Params) -> KernelData:
        """One enqueue of this kernel's template with ``jit_constants``, ``dispatch`` and ``args`` (plus the fused
        ops' jit and extra inputs when the kernel supports fused ops)."""
        jit = self.jit_constants(params)
        args = self.args(params)
        if self.supports_fused_ops:
            jit.update(fused_ops_jit(params.fused_ops))
            args += [Arg("input", i) for op in params.fused_ops for i in op.dep_indices]
        entry, src = self.make_source(jit)
        gws, lws = self.dispatch(params)
        return KernelData(self.name, [ClKernelData(entry, src, gws, lws, args)])

    def __repr__(self) -> str:
        return f"<kernel {self.name} for {self.primitive}>"


COPY_TYPES = frozenset({DataType.f32, DataType.i32, DataType.i8, DataType.u8})
"""The data types a data-movement kernel copies in their own type."""

CL_COPY_TYPES = COPY_TYPES | {DataType.f16}
"""The data types the OpenCL data-movement kernels copy: :data:`COPY_TYPES` and f16 storage (their templates load
and store through the jitter's ``NAME_LOAD`` / ``NAME_STORE``: a half is read as the float it holds and written
back unchanged, so an f16 -> f16 copy is exact)."""


class CopyKernelBase(KernelBase):
    """Base of the OpenCL data-movement kernels (broadcast, crop, gather, pad, permute, reshape, shuffle_channels,
    strided_slice, tile): values are copied in their own type, so any of :data:`CL_COPY_TYPES` (normally the same in
    and out; a float f32 <-> f16 pair converts, rounding to nearest even), any format, padding allowed."""

    def supported_key(self) -> SupportedKey:
        """f32, f16, i32, i8, u8; any format, padding allowed."""
        return SupportedKey(input_dtypes=CL_COPY_TYPES, output_dtypes=CL_COPY_TYPES)

