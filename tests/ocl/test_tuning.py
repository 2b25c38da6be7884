"""Auto-tuning and the tuning cache: BuildOptions(tuning="off" | "cache" | "tune") (kernel_selector/tuning_cache.py,
cldnn_py/autotuner.py).

A tuned build must time the variants, store a winner that is one of them, and a later "cache" build must use it;
a stored winner is taken only when it is one of the kernel's own candidates (else ignored with a warning); "off"
ignores the cache; a broken file is ignored with a warning, never a failed build. Results
are checked against the float64 reference with the stored (possibly non-default) variant.
"""

from __future__ import annotations

import json
import logging
import re

import numpy as np
import pytest

import cldnn_py as cl
from kernel_selector import Params
from kernel_selector.kernels.convolution.convolution_kernel_b_fs_yx_fsv16 import ConvolutionKernelBFsYxFsv16
from kernel_selector.tuning_cache import FORMAT_VERSION, TuningCache, device_key, params_key
from tests.helpers import assert_close, cpu_tier, f32
from tests.ocl.networks import conv_relu_topology
from tests.references import conv_ref


@pytest.fixture
def engine(ocl_engine):
    """OpenCL only: these tests are about OpenCL kernels (the CPU engine's are tested in tests/cpu/)."""
    return ocl_engine


FAST = "convolution_b_fs_yx_fsv16"


def jit_value(program: cl.Program, name: str) -> int:
    src = program.node("conv").impl.kernels[0].source
    return int(re.search(rf"#define {name} (\d+)", src).group(1))  # type: ignore[union-attr]


def params_of(program: cl.Program) -> Params:
    from cldnn_py.kernel_params import node_params

    class _B:  # node_params needs .engine, .device_caps and .options only
        engine = program.engine
        device_caps = program.device_caps
        options = program.options

    return node_params(_B, program.node("conv"))  # type: ignore[arg-type]


@pytest.fixture
def case(rng):
    x = f32(rng.standard_normal((1, 20, 6, 13)))
    w = f32(rng.standard_normal((24, 20, 3, 3)))
    b = f32(rng.standard_normal(24))
    return x, w, b, np.maximum(conv_ref(x, w, b, (1, 1), (1, 1), (1, 1), (1, 1), 1), 0)


def test_tune_stores_a_variant_and_cache_mode_uses_it(engine, tmp_path, case):
    x, w, b, expect = case
    path = tmp_path / "tuning.json"
    tuned = cl.Program(engine, conv_relu_topology(x.shape, w, b), cpu_tier(tuning="tune", tuning_cache=path))
    data = json.loads(path.read_text())
    entries = data["devices"][device_key(engine.info)]
    params = params_of(tuned)
    entry = entries[params_key(params)]
    assert entry["kernel"] == FAST and entry["ms"] > 0 and "convolution" in entry["desc"]
    assert entry["variant"] in ConvolutionKernelBFsYxFsv16().tune_variants(params)
    assert jit_value(tuned, "OUT_BLOCK") == entry["variant"]["block"]

    # forge a different winner: a "cache" build must take it, and still compute the right thing
    forged = next(v for v in reversed(ConvolutionKernelBFsYxFsv16().tune_variants(params)) if v != entry["variant"])
    entry["variant"] = forged
    path.write_text(json.dumps(data))
    cached = cl.Program(engine, conv_relu_topology(x.shape, w, b), cpu_tier(tuning="cache", tuning_cache=path))
    assert (jit_value(cached, "OUT_BLOCK"), jit_value(cached, "LOOP_ORDER")) == (forged["block"],
                                                                                  forged["loop_order"])
    net = cl.Network(cached)
    net.poison()
    assert_close(net.run({"x": x})["relu"], expect, rtol=1e-4, atol=1e-4)

    off = cl.Program(engine, conv_relu_topology(x.shape, w, b), cpu_tier(tuning="off", tuning_cache=path))
    # the priority rules' block for the caps "off" compiles with: on a device whose native float vector is 16 wide
    # the register fact differs between modes ("tune" measures it, "off" takes the rule)
    assert jit_value(off, "OUT_BLOCK") == ConvolutionKernelBFsYxFsv16().block(params_of(off))


def test_invalid_stored_winner_falls_back_to_priority_rules(engine, tmp_path, case, caplog):
    caplog.set_level(logging.WARNING, logger="cldnn_py.tuning")
    x, w, b, _ = case
    path = tmp_path / "tuning.json"
    program = cl.Program(engine, conv_relu_topology(x.shape, w, b), cpu_tier(tuning="off"))
    params = params_of(program)
    for bad in ({"kernel": "convolution_ref", "variant": {}},            # does not validate on fsv16 / packed
                {"kernel": FAST, "variant": {"block": 99, "loop_order": 0}},  # not one of its variants
                {"kernel": "no_such_kernel", "variant": {}}):
        path.write_text(json.dumps({"version": FORMAT_VERSION,
                                    "devices": {device_key(engine.info): {params_key(params): bad}}}))
        p = cl.Program(engine, conv_relu_topology(x.shape, w, b), cpu_tier(tuning_cache=path))
        assert p.node("conv").impl.kernel_name == FAST
        assert jit_value(p, "OUT_BLOCK") == ConvolutionKernelBFsYxFsv16().block(params)
        assert "is ignored" in caplog.text
        caplog.clear()


def test_broken_cache_file_is_ignored_not_fatal(engine, tmp_path, case, caplog):
    """A truncated user file (a crash mid-write, a full disk) used to fail every build until it was deleted."""
    x, w, b, expect = case
    path = tmp_path / "tuning.json"
    path.write_text('{"version": 2, "devices": {"pthread')
    with caplog.at_level(logging.WARNING, logger="cldnn_py.tuning"):
        p = cl.Program(engine, conv_relu_topology(x.shape, w, b), cpu_tier(tuning_cache=path))
    assert str(path) in caplog.text and p.node("conv").impl.kernel_name == FAST
    net = cl.Network(p)
    net.poison()
    assert_close(net.run({"x": x})["relu"], expect, rtol=1e-4, atol=1e-4)
    with pytest.raises(ValueError, match="tuning must be one of off, cache, tune; got 'fast'"):
        cl.BuildOptions(tuning="fast")


@pytest.mark.parametrize("forged", [
    {"block": 10**30, "loop_order": 0},                   # huge
    {"block": -4, "loop_order": 0},                       # negative
    {"block": 4, "loop_order": 0, "lws": 64},             # a value the kernel does not have
    {"block": 4},                                         # a value missing
])
def test_a_stored_variant_must_be_one_of_the_kernels_own(engine, tmp_path, case, caplog, forged):
    x, w, b, expect = case
    path = tmp_path / "tuning.json"
    program = cl.Program(engine, conv_relu_topology(x.shape, w, b), cpu_tier(tuning="off"))
    params = params_of(program)
    entry = {"kernel": FAST, "variant": forged}
    path.write_text(json.dumps({"version": FORMAT_VERSION,
                                "devices": {device_key(engine.info): {params_key(params): entry}}}))
    with caplog.at_level(logging.WARNING, logger="cldnn_py.tuning"):
        p = cl.Program(engine, conv_relu_topology(x.shape, w, b), cpu_tier(tuning_cache=path))
    assert "ignored" in caplog.text  # at reading (not an int32) or at selection (not one of its variants)
    assert p.node("conv").impl.kernel_name == FAST
    assert jit_value(p, "OUT_BLOCK") == ConvolutionKernelBFsYxFsv16().block(params)
    net = cl.Network(p)
    net.poison()
    assert_close(net.run({"x": x})["relu"], expect, rtol=1e-4, atol=1e-4)


def test_tune_mode_replaces_an_ignored_winner(engine, tmp_path, case, caplog):
    x, w, b, _ = case
    path = tmp_path / "tuning.json"
    params = params_of(cl.Program(engine, conv_relu_topology(x.shape, w, b), cpu_tier(tuning="off")))
    forged = {"kernel": FAST, "variant": {"block": 99, "loop_order": 0}}
    path.write_text(json.dumps({"version": FORMAT_VERSION,
                                "devices": {device_key(engine.info): {params_key(params): forged}}}))
    with caplog.at_level(logging.WARNING, logger="cldnn_py.tuning"):
        tuned = cl.Program(engine, conv_relu_topology(x.shape, w, b), cpu_tier(tuning="tune", tuning_cache=path))
    entry = json.loads(path.read_text())["devices"][device_key(engine.info)][params_key(params)]
    # the variants of the caps the tuner compiled against ("tune" measures the register fact, "off" takes the rule)
    assert "is ignored" in caplog.text
    assert entry["variant"] in ConvolutionKernelBFsYxFsv16().tune_variants(params_of(tuned))


def test_params_key_ignores_the_layer_id_and_sees_shapes(engine, tmp_path, case):
    x, w, b, _ = case
    program = cl.Program(engine, conv_relu_topology(x.shape, w, b), cl.BuildOptions(tuning="off"))
    p = params_of(program)
    renamed = Params(p.kind, p.engine, p.inputs, p.output, p.attrs, p.fused_ops, layer_id="other", device=p.device)
    assert params_key(renamed) == params_key(p)
    wider = Params(p.kind, p.engine, p.inputs, p.output.with_(shape=(1, 24, 6, 14)), p.attrs, p.fused_ops)
    assert params_key(wider) != params_key(p)
    cache = TuningCache(tmp_path / "t.json", shipped=False)
    assert cache.lookup(engine.info, p) is None and cache.save() is None  # nothing stored, nothing written


def test_params_key_ignores_an_in_place_concatenations_feature_slices(engine, case):
    """A producer's output padded along features by whole slices (its slice of an in-place concatenation) keeps
    the key of its unpadded output; y/x padding still changes it."""
    x, w, b, _ = case
    p = params_of(cl.Program(engine, conv_relu_topology(x.shape, w, b), cl.BuildOptions(tuning="off")))
    fsv16 = p.output.with_(format=cl.Format.b_fs_yx_fsv16, padding=cl.Padding())

    def key(out):
        return params_key(Params(p.kind, p.engine, p.inputs, out, p.attrs, p.fused_ops, device=p.device))

    sliced = fsv16.with_(padding=cl.Padding((0, 16, 0, 0), (0, 32, 0, 0)))
    assert key(sliced) == key(fsv16)
    assert key(fsv16.with_(padding=cl.Padding((0, 16, 1, 0), (0, 32, 0, 0)))) != key(fsv16)


def test_params_key_survives_a_new_attribute_at_its_default(engine, case):
    """A new attribute with a default (as ConvolutionAttrs.block_diagonal once was) leaves the key alone, a
    non-default value of it changes the key, and an existing attribute off its default changes it too."""
    import dataclasses

    from cldnn_py.ops import ConvolutionAttrs

    @dataclasses.dataclass(frozen=True)
    class Later(ConvolutionAttrs):
        new_hint: int = 1

    x, w, b, _ = case
    p = params_of(cl.Program(engine, conv_relu_topology(x.shape, w, b), cl.BuildOptions(tuning="off")))
    a = p.attrs
    assert isinstance(a, ConvolutionAttrs)
    later = Later(**{f.name: getattr(a, f.name) for f in dataclasses.fields(a)})

    def key(attrs):
        return params_key(Params(p.kind, p.engine, p.inputs, p.output, attrs, p.fused_ops, device=p.device))

    assert key(later) == params_key(p)
    assert key(dataclasses.replace(later, new_hint=2)) != params_key(p)
    assert key(dataclasses.replace(a, dilation=(2, 2))) != params_key(p)


def test_a_version_1_file_is_ignored_with_a_warning(engine, tmp_path, case, caplog):
    """Version 1 keyed entries by every attribute: its keys are not this formula's, so the file is ignored, with a
    warning that says to tune again, and the build takes the priority rules."""
    x, w, b, expect = case
    program = cl.Program(engine, conv_relu_topology(x.shape, w, b), cl.BuildOptions(tuning="off"))
    params = params_of(program)
    path = tmp_path / "old.json"
    path.write_text(json.dumps({"version": 1, "devices": {device_key(engine.info): {params_key(params): {
        "kernel": FAST, "variant": {"block": 3, "loop_order": 1}, "ms": 1.0}}}}))
    with caplog.at_level(logging.WARNING, logger="cldnn_py.tuning"):
        cached = cl.Program(engine, conv_relu_topology(x.shape, w, b), cpu_tier(tuning_cache=path))
    assert "older formula" in caplog.text
    assert cached.node("conv").impl.variant == {}
    net = cl.Network(cached)
    net.poison()
    assert_close(net.run({"x": x})["relu"], expect, rtol=1e-4, atol=1e-4)


@pytest.mark.network
def test_the_shipped_cache_covers_the_zoo_resnet50(engine):
    """The shipped file holds winners for the zoo's ResNet-50 at batch 1 (and AlexNet, GoogLeNet, SqueezeNet; batch
    1 and 8): every convolution and gemm of a fresh build must find its params key there (under any device key, so
    the check does not depend on this machine's CPU). A change to the key formula or to the graph passes that
    orphans the shipped entries fails here: in 2026-11 a new convolution attribute did exactly that, silently, for
    three days."""
    from cldnn_py.kernel_params import node_params
    from cldnn_py.tools import zoo
    from kernel_selector.tuning_cache import _read, shipped_files

    program = cl.Program(engine, cl.load_onnx(zoo.make_model("resnet50", seed=0, batch=1, check=False)),
                         cl.BuildOptions(tuning="off"))

    class _B:
        engine = program.engine
        device_caps = program.device_caps
        options = program.options

    shipped = {key for f in shipped_files() for entries in _read(f).values() for key in entries}
    tuned = [n for n in program.order if n.kind in ("convolution", "gemm") and n.impl is not None]
    missing = [n.id for n in tuned if params_key(node_params(_B, n)) not in shipped]  # type: ignore[arg-type]
    assert len(tuned) >= 50, [n.id for n in tuned]
    assert not missing, f"{len(missing)} of {len(tuned)} nodes have no shipped entry: {missing[:5]}"
