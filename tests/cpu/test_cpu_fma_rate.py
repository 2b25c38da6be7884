"""The host's 512-bit FMA rate (kernel_selector.common.cpu_fma_rate) and the channel-vector tile rule it turns on."""

from __future__ import annotations

import pytest

from kernel_selector.common import cpu_fma_rate
from kernel_selector.kernels.convolution import cpu_conv_oc


@pytest.mark.parametrize("name, full", [("znver5", True), ("znver4", False), ("skylake-avx512", True),
                                        ("sapphirerapids", True), ("icelake-client", False), ("tigerlake", False),
                                        ("haswell", False), ("generic", False)])
def test_the_model_table_names_full_rate_cores(monkeypatch: pytest.MonkeyPatch, name: str, full: bool) -> None:
    monkeypatch.delenv("CLDNN_PY_CPU_FULL_512", raising=False)
    assert cpu_fma_rate.full_rate_512(name) is full
    monkeypatch.setenv("NUMBA_CPU_NAME", name)
    assert cpu_fma_rate.host_cpu_name() == name
    assert cpu_fma_rate.full_rate_512() is full


def test_the_host_name_is_llvms_when_numba_is_not_told(monkeypatch: pytest.MonkeyPatch) -> None:
    from llvmlite import binding

    for value in (None, "host"):
        if value is None:
            monkeypatch.delenv("NUMBA_CPU_NAME", raising=False)
        else:
            monkeypatch.setenv("NUMBA_CPU_NAME", value)
        assert cpu_fma_rate.host_cpu_name() == binding.get_host_cpu_name()


def test_the_override_wins_and_bad_values_are_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CLDNN_PY_CPU_FULL_512", "0")
    assert cpu_fma_rate.full_rate_512("znver5") is False
    monkeypatch.setenv("CLDNN_PY_CPU_FULL_512", "1")
    assert cpu_fma_rate.full_rate_512("znver4") is True
    monkeypatch.setenv("CLDNN_PY_CPU_FULL_512", "yes")
    with pytest.raises(ValueError, match="CLDNN_PY_CPU_FULL_512: expected 0 or 1, got 'yes'"):
        cpu_fma_rate.full_rate_512("znver5")


@pytest.mark.parametrize("k, npix, width, half, full", [
    (576, 3136, 56, 1, 1), (147, 12544, 112, 1, 1), (144, 196, 14, 1, 1), (64, 49, 7, 1, 0), (288, 196, 14, 0, 1),
    (4608, 49, 7, 0, 0), (2048, 49, 49, 0, 1)])
def test_the_second_tile_rule_of_each_host(monkeypatch: pytest.MonkeyPatch, k: int, npix: int, width: int, half: int,
                                           full: int) -> None:
    """On a half-rate host (Zen 4: the second tile is 8 × 16) a long reduction at 56×56 or a short one anywhere runs
    it; on a full-rate one (Zen 5: 14 × 32) runs of 14 pixels or more do, whatever K."""
    monkeypatch.setattr(cpu_conv_oc, "ALT_TILE", None)
    for wide, alt_pixels, want in ((False, 8, half), (True, 14, full)):
        monkeypatch.setattr(cpu_conv_oc, "ALT_WIDE", wide)
        monkeypatch.setattr(cpu_conv_oc, "ALT_PIXELS", alt_pixels)
        assert cpu_conv_oc.alt_tile(k, npix, width) == want, (alt_pixels, k, npix, width)
    for forced in (0, 1):
        monkeypatch.setattr(cpu_conv_oc, "ALT_TILE", forced)
        assert cpu_conv_oc.alt_tile(k, npix, width) == forced


def test_the_second_tile_follows_the_host() -> None:
    from kernel_selector.common import cpu_microkernel_oc as mo
    from kernel_selector.common.cpu_microkernel import W

    wide = W == 16 and cpu_fma_rate.full_rate_512()
    want = (14, 2) if wide else (8, 1) if W == 16 else (mo.OC_PIXELS, mo.OC_VECTORS)
    assert (mo.ALT_WIDE, mo.ALT_PIXELS, mo.ALT_VECTORS) == (wide, *want)
