"""The load-form probe (cldnn_py/device_probe.py): it measures both forms, stores its verdict per device, and the
kernels compile what it chose. The vload form is also checked for correctness in the fsv16 convolution, since a
device where the probe picks it must get the same results."""

from __future__ import annotations

import json
import re

import numpy as np
import pytest

import cldnn_py as cl
from cldnn_py.device_probe import DEFAULT_CAPS, device_caps, probe_load_form, time_load_forms
from cldnn_py.register_probe import registers_by_rule
from kernel_selector.tuning_cache import TuningCache, device_key
from tests.helpers import assert_close, cpu_tier, f32
from tests.ocl.networks import conv_relu_topology
from tests.references import conv_ref


@pytest.fixture
def engine(ocl_engine):
    """OpenCL only: these tests are about OpenCL kernels (the CPU engine's are tested in tests/cpu/)."""
    return ocl_engine


def test_probe_times_both_forms_and_picks_one(engine):
    rates = time_load_forms(engine, runs=2)  # raises if either form computes a wrong result
    assert set(rates) == {"pointer", "vload"} and all(r > 0 for r in rates.values())
    r = probe_load_form(engine)
    assert r["load_form"] in ("pointer", "vload") and set(r["gflops"]) == {"pointer", "vload"}


def test_tune_mode_stores_the_probe_and_cache_mode_reads_it(engine, tmp_path):
    path = tmp_path / "t.json"
    cache = TuningCache(path, shipped=False)
    by_rule = dict(DEFAULT_CAPS, registers=registers_by_rule(engine.info))
    assert device_caps(engine, cache, "cache") == by_rule  # nothing stored, nothing measured
    caps = device_caps(engine, cache, "tune")
    cache.save()
    stored = json.loads(path.read_text())["devices"][device_key(engine.info)]
    assert caps == {"load_form": stored["device:load_form"]["load_form"],
                    "registers": stored["device:registers"]["registers"]}
    assert device_caps(engine, TuningCache(path, shipped=False), "cache") == caps
    assert device_caps(engine, None, "off") == by_rule


def test_convolution_built_with_the_vload_form_is_exact(engine, tmp_path, rng):
    path = tmp_path / "t.json"
    cache = TuningCache(path, shipped=False)
    cache.store_device(engine.info, "load_form", {"load_form": "vload"})
    cache.save()
    x = f32(rng.standard_normal((1, 20, 6, 13)))
    w = f32(rng.standard_normal((24, 20, 3, 3)))
    b = f32(rng.standard_normal(24))
    program = cl.Program(engine, conv_relu_topology(x.shape, w, b), cpu_tier(tuning_cache=path))
    src = program.node("conv").impl.kernels[0].source
    assert re.search(r"#define LOAD_FORM 1\b", src)
    net = cl.Network(program)
    net.poison()
    expect = np.maximum(conv_ref(x, w, b, (1, 1), (1, 1), (1, 1), (1, 1), 1), 0)
    assert_close(net.run({"x": x})["relu"], expect, rtol=1e-4, atol=1e-4)
    default = cl.Program(engine, conv_relu_topology(x.shape, w, b), cpu_tier(tuning="off"))
    assert re.search(r"#define LOAD_FORM 0\b", default.node("conv").impl.kernels[0].source)
