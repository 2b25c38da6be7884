"""Kernel tiers (no device needed): the CPU-shaped OpenCL kernels step aside for the GPU tier with a reason, reference
kernels fit both tiers, and the tier follows BuildOptions(kernel_tier=...) / the device type."""

from __future__ import annotations

import dataclasses

import pytest

import cldnn_py as cl
from cldnn_py.layout import DataType, Format, Layout
from cldnn_py.ops import ConvolutionAttrs
from kernel_selector import Params, selector
from kernel_selector.device_caps import GPU_LIKE, DeviceCaps

F = DataType.f32


def _conv_params(caps: DeviceCaps, tier: str, blocked: bool = True) -> Params:
    fmt, wfmt = (Format.b_fs_yx_fsv16, Format.os_iyx_osv16) if blocked else (Format.bfyx, Format.oiyx)
    x = Layout(F, fmt, (1, 32, 8, 8))
    w = Layout(F, wfmt, (32, 32, 3, 3))
    out = Layout(F, fmt, (1, 32, 6, 6))
    return Params("convolution", "ocl", [x, w], out, ConvolutionAttrs(), caps=caps, kernel_tier=tier)


def test_cpu_tier_picks_the_register_tiled_kernel():
    assert selector.select(_conv_params(DeviceCaps(), "cpu"))[0].name == "convolution_b_fs_yx_fsv16"


def test_gpu_tier_rejects_cpu_shaped_kernels_with_a_reason():
    verdicts = {v.kernel: v for v in selector.explain(_conv_params(GPU_LIKE, "gpu"))}
    reason = verdicts["convolution_b_fs_yx_fsv16"].reason
    assert reason is not None and "device type gpu" in reason and "work-groups of one" in reason
    plain = {v.kernel: v for v in selector.explain(_conv_params(GPU_LIKE, "gpu", blocked=False))}
    assert plain["convolution_ref"].reason is None  # references have no tier


@pytest.mark.parametrize("option,device_type,want", [("auto", "gpu", "gpu"), ("auto", "cpu", "cpu"),
                                                     ("gpu", "cpu", "gpu"), ("cpu", "gpu", "cpu")])
def test_tier_resolution(option, device_type, want):
    assert cl.BuildOptions(kernel_tier=option).resolved_tier(device_type) == want


def test_tier_option_checks_and_env(monkeypatch):
    with pytest.raises(ValueError, match="kernel_tier must be one of auto, cpu, gpu"):
        cl.BuildOptions(kernel_tier="npu")
    monkeypatch.setenv("CLDNN_PY_KERNEL_TIER", "gpu")
    assert cl.BuildOptions().kernel_tier == "gpu"
    assert cl.BuildOptions(kernel_tier="cpu").kernel_tier == "cpu"


def test_described_gpu_is_a_gpu():
    assert GPU_LIKE.is_gpu and GPU_LIKE.default_tier() == "gpu" and DeviceCaps().default_tier() == "cpu"
    assert dataclasses.replace(GPU_LIKE, device_type="cpu").default_tier() == "cpu"


def test_emulate_subgroups_option_and_environment(monkeypatch):
    """BuildOptions(emulate_subgroups) defaults to CLDNN_PY_EMULATE_SUBGROUPS; DeviceCaps says why a sub-group
    kernel cannot run, and stops saying it with native sub-groups or the emulation."""
    import dataclasses

    import cldnn_py as cl
    from kernel_selector.device_caps import GPU_LIKE

    monkeypatch.delenv("CLDNN_PY_EMULATE_SUBGROUPS", raising=False)
    assert cl.BuildOptions().emulate_subgroups is False
    monkeypatch.setenv("CLDNN_PY_EMULATE_SUBGROUPS", "1")
    assert cl.BuildOptions().emulate_subgroups is True
    assert cl.BuildOptions(emulate_subgroups=False).emulate_subgroups is False
    assert "no sub-groups" in (GPU_LIKE.subgroup_reason() or "")
    assert dataclasses.replace(GPU_LIKE, subgroups=True).subgroup_reason() is None
    assert dataclasses.replace(GPU_LIKE, intel_subgroups=True).native_subgroups
    assert dataclasses.replace(GPU_LIKE, subgroup_emulation=True).subgroup_reason() is None
