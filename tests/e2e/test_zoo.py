"""The nine real network graphs of the onnx wheel (cldnn_py.tools.zoo: seeded weights) on cldnn_py vs onnxruntime.

For each model at batch 1 (a subset at batch 4, see BATCH4): load_onnx → Network, the same random input on both
sides; the pre-softmax logits (the input of the final Softmax, requested as an extra output on both sides) must agree to
max|ours - ort| / max|ort| <= 1e-4 with the same top-1 per image, and the graph output (the probabilities) must be
close and finite. The per-case times (model generation, import + build, first run, onnxruntime session + run) are
printed (``-rP`` shows them); with a cold PoCL cache the first run is dominated by PoCL compiling each kernel at
its first launch.
"""

from __future__ import annotations

import time

import numpy as np
import pytest

import cldnn_py as cl
from cldnn_py.frontend import load_onnx
from cldnn_py.tools import zoo
from tests.e2e.onnx_models import ort_session

RTOL = 1e-4
# slowest first (with a cold PoCL cache: DenseNet and Inception-v2 compile ~100 distinct kernels), so that
# pytest-xdist does not start a long case last
ORDER = ("densenet121", "inception_v2", "vgg19", "googlenet", "zfnet512", "resnet50", "alexnet", "shufflenet",
         "squeezenet")
assert sorted(ORDER) == sorted(zoo.MODELS)


# Batch 4 and the forced GPU tier on a subset: each case costs tens of seconds of PoCL compiling on a fresh cache
# (the batch is a jit constant, so batch 4 compiles every kernel again), and the kernels they reach are checked one by
# one under tests/ocl at several batches. The subsets keep every kind of network: grouped and depthwise convolutions
# with the channel shuffle (ShuffleNet), fully connected layers (AlexNet), fire modules and concats
# (SqueezeNet). ResNet-50 (residual sums, 1x1 / 3x3 / 7x7
# convolutions) runs at batch 1 on both tiers' default here and in tests/e2e/test_resnet50.py; its GPU-tier run
# (77 s) and GoogLeNet's (54 s) were left out to keep `make test` under 20 minutes: their GPU-tier kernels are the
# same as SqueezeNet's and AlexNet's, at other shapes, which tests/ocl covers kernel by kernel.
BATCH4 = ("shufflenet",)
GPU_TIER = ("shufflenet", "squeezenet", "alexnet")
GPU_TIER_BATCH4: tuple[str, ...] = ()
# ShuffleNet's GPU tier at batch 4 (43 s) and VGG-19 and ZFNet-512 on the CPU engine (46 s and 20 s: plain stacks
# of convolutions, pooling and fully connected layers, the kernels AlexNet's cases reach on the CPU engine at other
# shapes, each also checked kernel by kernel under tests/cpu) were left out on 2026-11-27 for the same reason.
CPU_ENGINE_SKIP = ("vgg19", "zfnet512")
# AlexNet at batch 4 (15 s on both engines; fully connected layers at batch > 1 are checked kernel by kernel under
# tests/ocl and tests/cpu, and AlexNet runs at batch 1 here, in test_alexnet.py and on the GPU tier) was left out on
# 2026-11-27 too: stop 43 ran 1554 s on CI.


# Built as users build (optimized) on PoCL: four of the five networks of `make bench` (GoogLeNet's kernels are
# SqueezeNet's and ResNet-50's at other shapes: 24 s optimized, since 2026-11-27 unoptimized); the others check the
# same graph passes and kernels with PoCL's optimizer off (-cl-opt-disable, tests/conftest.py), which halves their
# build.
UNOPTIMIZED = ("densenet121", "inception_v2", "vgg19", "zfnet512", "googlenet")


def _case(name: str, batch: int):
    return pytest.param(name, batch, marks=[pytest.mark.unoptimized_build] if name in UNOPTIMIZED else [])


@pytest.mark.network
@pytest.mark.parametrize("name, batch", [_case(n, 1) for n in ORDER] + [_case(n, 4) for n in BATCH4])
def test_zoo_model_matches_onnxruntime(engine, rng, name, batch):
    if engine.kind == "cpu" and name in CPU_ENGINE_SKIP:
        pytest.skip(f"{name} runs on the OpenCL engine only here (CPU_ENGINE_SKIP: the suite's time budget)")
    check_zoo_model(engine, rng, name, batch, "auto")


def _gpu_case(name: str, batch: int):
    """ResNet-50's GPU-tier kernels (implicit-GEMM convolutions with __local tiles) build optimized: unoptimized on
    PoCL they run minutes; the other networks build with -cl-opt-disable (faster builds, small run times)."""
    return pytest.param(name, batch, marks=[] if name == "resnet50" else [pytest.mark.unoptimized_build])


@pytest.mark.network
@pytest.mark.parametrize("name, batch", [_gpu_case(n, 1) for n in GPU_TIER] +
                         [_gpu_case(n, 4) for n in GPU_TIER_BATCH4])
def test_zoo_model_gpu_tier_matches_onnxruntime(ocl_engine, rng, name, batch):
    """The GPU tier forced on the OpenCL device (PoCL here): every GPU-tier kernel the zoo selects, end to end."""
    check_zoo_model(ocl_engine, rng, name, batch, "gpu")


def check_zoo_model(engine, rng, name: str, batch: int, tier: str) -> None:
    """Build the zoo model on ``engine`` with ``kernel_tier=tier``, run it on poisoned buffers, compare the logits
    and probabilities with onnxruntime (see the module docstring)."""
    t0 = time.perf_counter()
    model = zoo.make_model(name, seed=int(rng.integers(2**31)), batch=batch, check=False)  # load_onnx checks
    inp, logits_id, out_id = zoo.input_name(name), zoo.logits_name(name), model.graph.output[0].name
    x = rng.standard_normal(zoo.input_shape(name, batch)).astype(np.float32)

    t1 = time.perf_counter()
    topo = load_onnx(model, input_shapes={inp: x.shape})
    net = cl.Network(engine, topo, cl.BuildOptions(outputs=[logits_id], kernel_tier=tier))
    t2 = time.perf_counter()
    net.poison()
    ours = net.run({inp: x})
    t3 = time.perf_counter()
    sess = ort_session(zoo.with_outputs(model, [logits_id]))
    ref_logits, ref_out = sess.run([logits_id, out_id], {inp: x})
    t4 = time.perf_counter()
    print(f"{name} batch {batch} tier {tier}: make {t1 - t0:.1f} s, import+build {t2 - t1:.1f} s, run {t3 - t2:.1f} s, "
          f"onnxruntime {t4 - t3:.1f} s")

    logits, out = ours[logits_id], ours[out_id]
    assert logits.shape == ref_logits.shape and out.shape == ref_out.shape
    assert np.isfinite(logits).all() and np.isfinite(out).all(), "NaN/inf in our output (unwritten poison?)"
    assert 0.2 <= float(ref_logits.std()) <= 5.0, f"zoo weights give logits std {ref_logits.std():.3g}"
    diff = np.abs(logits.astype(np.float64) - ref_logits)
    err = diff.max() / np.abs(ref_logits).max()
    worst = np.unravel_index(int(diff.argmax()), diff.shape)
    assert err <= RTOL, (f"{name} batch {batch}: logits relative error {err:.3g} > {RTOL:g} (worst at {worst}: "
                         f"ours {logits[worst]:.6f}, onnxruntime {ref_logits[worst]:.6f})")
    flat, ref_flat = logits.reshape(batch, -1), ref_logits.reshape(batch, -1)
    for b in range(batch):
        top, ref_top = int(flat[b].argmax()), int(ref_flat[b].argmax())
        # a tie within the tolerance is no disagreement (rare with continuous random data)
        tie = ref_flat[b, ref_top] - ref_flat[b, top] <= RTOL * np.abs(ref_flat).max()
        assert top == ref_top or tie, f"{name} image {b}: top-1 ours {top}, onnxruntime {ref_top}"
    np.testing.assert_allclose(out, ref_out, rtol=1e-3, atol=1e-6 * max(1.0, float(np.abs(ref_out).max())))
