"""registers_by_rule (cldnn_py/register_probe.py) and what convolution_b_fs_yx_fsv16 does with its answer: the pip
PoCL (LLVM 14) on an AMD family-25 CPU compiles 256-bit code, so instead of the AVX-512 defaults (float16
accumulators, P = 14, up to 4 slices) the kernel takes its two-float8 form, exactly as on a device whose native
vector is 8 wide. No device needed: DeviceInfo-like objects and cpuinfo text."""

from __future__ import annotations

from dataclasses import replace
from types import SimpleNamespace

import pytest

from cldnn_py.layout import DataType, Format, Layout
from cldnn_py.ops import ConvolutionAttrs
from cldnn_py.register_probe import registers_by_rule
from kernel_selector import Params
from kernel_selector.device_caps import DeviceCaps
from kernel_selector.kernels.convolution.convolution_kernel_b_fs_yx_fsv16 import (
    VEC16_TUNE_BLOCKS,
    ConvolutionKernelBFsYxFsv16,
    vec16,
)

AVX512_CPU = DeviceCaps(device_type="cpu", vendor="AuthenticAMD", name="pthread-AMD EPYC", compute_units=2,
                        native_vector_width_float=16, preferred_vector_width_float=16)
PIP_POCL = "OpenCL 3.0 PoCL 3.0-rc2  Linux, Release, RELOC, LLVM 14.0.6, SLEEF, DISTRO, POCL_DEBUG"
ZEN4 = "processor\t: 0\nvendor_id\t: AuthenticAMD\ncpu family\t: 25\nmodel\t\t: 17\n"
ZEN5 = "processor\t: 0\nvendor_id\t: AuthenticAMD\ncpu family\t: 26\nmodel\t\t: 2\n"
INTEL = "processor\t: 0\nvendor_id\t: GenuineIntel\ncpu family\t: 6\nmodel\t\t: 143\n"


def _info(caps=AVX512_CPU, version=PIP_POCL):
    return SimpleNamespace(caps=caps, platform_version=version, spec="cl:0:0", name=caps.name)


@pytest.mark.parametrize("info, cpuinfo, want", [
    (_info(), ZEN4, "narrow"),                                                      # this project's CI machine
    (_info(), ZEN5, "wide"),
    (_info(), INTEL, "wide"),
    (_info(version="OpenCL 3.0 PoCL 5.0+debian  Linux, None+Asserts, RELOC, LLVM 16.0.6"), ZEN4, "wide"),
    (_info(caps=replace(AVX512_CPU, native_vector_width_float=8)), ZEN4, "wide"),   # no float16 accumulators
    (_info(caps=replace(AVX512_CPU, device_type="gpu")), ZEN4, "wide"),
    (_info(version="OpenCL 3.0 CUDA 13.0.98"), ZEN4, "wide"),
    (_info(), "garbage", "wide"),
])
def test_registers_by_rule(info, cpuinfo, want):
    assert registers_by_rule(info, cpuinfo) == want


def _conv_params(registers: str | None, c=256, oc=64, hw=56, k=1, caps=AVX512_CPU) -> Params:
    f = DataType.f32
    dev = {} if registers is None else {"registers": registers}
    return Params("convolution", "ocl", [Layout(f, Format.b_fs_yx_fsv16, (1, c, hw, hw)),
                                         Layout(f, Format.os_iyx_osv16, (oc, c, k, k)), Layout(f, Format.bfyx, (oc,))],
                  Layout(f, Format.b_fs_yx_fsv16, (1, oc, hw, hw)),
                  ConvolutionAttrs(pad=(k // 2,) * 2, pad_end=(k // 2,) * 2), caps=caps, device_caps=dev,
                  kernel_tier="cpu")


@pytest.mark.parametrize("c, oc, hw, k", [(256, 64, 56, 1), (64, 64, 56, 3), (1024, 256, 14, 1)])
def test_narrow_registers_take_the_two_float8_form(c, oc, hw, k):
    """Wide (or unknown): the AVX-512 defaults (float16 accumulators, a wide P); narrow: the form, defaults, tuning
    variants and jit constants of a device whose native vector is 8 wide."""
    kernel = ConvolutionKernelBFsYxFsv16()
    wide_p = _conv_params(None, c, oc, hw, k)
    wide = kernel.default_variant(wide_p)
    assert vec16(wide_p) and wide == kernel.default_variant(_conv_params("wide", c, oc, hw, k))
    assert wide["block"] > 4
    narrow_p = _conv_params("narrow", c, oc, hw, k)
    as8 = _conv_params("narrow", c, oc, hw, k, caps=replace(AVX512_CPU, native_vector_width_float=8))
    assert not vec16(narrow_p)
    assert kernel.default_variant(narrow_p) == kernel.default_variant(as8)
    assert kernel.default_variant(narrow_p)["oc_blocks"] == 1
    variants = kernel.tune_variants(narrow_p)
    assert variants == kernel.tune_variants(as8)
    assert any(v["block"] not in VEC16_TUNE_BLOCKS for v in variants)  # the two-float8 blocks (3, 5, 7)
    jit = kernel.jit_constants(narrow_p, **kernel.default_variant(narrow_p))
    assert str(jit["VEC16"]) == "0"
