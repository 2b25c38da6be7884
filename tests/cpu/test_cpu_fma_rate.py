"""The host's 512-bit FMA rate (kernel_selector.common.cpu_fma_rate) and the tile rule it turns on."""

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


@pytest.mark.parametrize("k, npix, half, full", [(576, 3136, 1, 0), (147, 12544, 1, 0), (144, 196, 1, 0),
                                                  (64, 49, 1, 0), (288, 196, 0, 0)])
def test_the_short_tile_runs_on_half_rate_hosts_only(monkeypatch: pytest.MonkeyPatch, k: int, npix: int, half: int,
                                                      full: int) -> None:
    """A long reduction at 56×56 or a short one anywhere: the 8 × 16 tile on a half-rate host (Zen 4), 7 × 32 on a
    full-rate one (Zen 5)."""
    for rate, want in ((False, half), (True, full)):
        monkeypatch.setattr(cpu_conv_oc, "OC_SHORT_K", cpu_conv_oc.short_k(rate))
        monkeypatch.setattr(cpu_conv_oc, "OC_SHORT_MIN_PIXELS", cpu_conv_oc.short_min_pixels(rate))
        assert cpu_conv_oc.short_tile(k, npix) == want, (rate, k, npix)
