"""Kernels that write an output padded along features by whole 16-channel slices (``writes_padded_blocks``): the
slice an in-place concatenation gives each of its producers (passes/prepare_buffer_fusing.py).

Each flagged kernel runs on its own (tests/ocl/padded.py: the output's padding holds a sentinel that must survive,
the input's padding NaN) with its output one slice in, two slices before the end, plus y/x padding, against the
float64 reference; the selector must still pick it unforced. Kernels without the flag refuse such an output, and so
does every kernel for such an input.
"""

from __future__ import annotations

import dataclasses
import importlib

import pytest

import cldnn_py as cl
from cldnn_py.layout import DataType, Format, Layout, Padding
from cldnn_py.ops import DeconvolutionAttrs
from cldnn_py.primitives.resize import Resize
from kernel_selector import Params, selector
from tests.helpers import assert_close, f32, typed_attrs
from tests.ocl.padded import run_kernel_padded
from tests.references import conv_ref, deconv_ref, pool_ref, resize_ref

F32, FSV16 = DataType.f32, Format.b_fs_yx_fsv16
SLICES = Padding((0, 16, 1, 0), (0, 32, 0, 2))  # one slice before, two after, and a y/x halo


def _run_sliced(engine, kind, kernel, inputs, output, attrs, arrays):
    """Assert the selector picks ``kernel`` unforced for this sliced output, then run it (padded.py's checks)."""
    params = Params(kind, engine.kind, inputs, output, typed_attrs(kind, attrs), layer_id=kind, device=engine.info,
                    caps=engine.info.caps, kernel_tier="cpu")
    assert selector.select(params)[0].name == kernel
    return run_kernel_padded(engine, kind, inputs, output, attrs, arrays, kernel=kernel)


@pytest.mark.parametrize("k,stride,pad", [(1, 1, 0), (3, 1, 1), (3, 2, 1)], ids=["1x1-flat", "3x3", "3x3-s2"])
def test_convolution_writes_its_slice(ocl_engine, rng, k, stride, pad):
    x = f32(rng.standard_normal((2, 32, 9, 13)))
    w = f32(rng.standard_normal((32, 32, k, k)) * 0.2)
    b = f32(rng.standard_normal(32))
    ref = conv_ref(x, w, b, (stride,) * 2, (1, 1), (pad,) * 2, (pad,) * 2, 1)
    attrs = {"stride": (stride,) * 2, "dilation": (1, 1), "pad": (pad,) * 2, "pad_end": (pad,) * 2, "groups": 1}
    inputs = [Layout(F32, FSV16, x.shape), Layout(F32, Format.os_iyx_osv16, w.shape), Layout(F32, Format.bfyx, (32,))]
    out = Layout(F32, FSV16, ref.shape, SLICES)
    got = _run_sliced(ocl_engine, "convolution", "convolution_b_fs_yx_fsv16", inputs, out, attrs, [x, w, b])
    assert_close(got, ref, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("mode", ["max", "average"])
def test_pooling_writes_its_slice(ocl_engine, rng, mode):
    x = f32(rng.standard_normal((2, 16, 11, 10)))
    prim = cl.Pooling("p", "x", mode=mode, kernel=(3, 3), stride=(2, 2), pad=(1, 1))
    lin = Layout(F32, FSV16, x.shape)
    out = prim.calc_output_layout([lin]).with_(padding=SLICES)
    got = _run_sliced(ocl_engine, "pooling", "pooling_b_fs_yx_fsv16", [lin], out, prim.attrs(), [x])
    assert_close(got, pool_ref(x, mode, (3, 3), (2, 2), (1, 1), (1, 1)), rtol=1e-5, atol=1e-6)


def test_resize_writes_its_slice(ocl_engine, rng):
    x = f32(rng.standard_normal((1, 32, 5, 6)))
    prim = Resize("r", "x", sizes=(1, 32, 10, 12), mode="nearest", coordinate_transformation_mode="asymmetric",
                  nearest_mode="floor")
    lin = Layout(F32, FSV16, x.shape)
    out = prim.calc_output_layout([lin]).with_(padding=SLICES)
    got = _run_sliced(ocl_engine, "resize", "resize_b_fs_yx_fsv16", [lin], out, prim.attrs(), [x])
    assert_close(got, resize_ref(x, (1, 32, 10, 12), ctm="asymmetric", nearest_mode="floor"), rtol=1e-6, atol=0)


def test_deconvolution_writes_its_slice(ocl_engine, rng):
    x = f32(rng.standard_normal((1, 16, 5, 7)))
    w = f32(rng.standard_normal((16, 16, 2, 2)))
    b = f32(rng.standard_normal(16))
    ref = deconv_ref(x, w, b, (2, 2), (1, 1), (0, 0), (0, 0), (0, 0), 1)
    attrs = dataclasses.asdict(DeconvolutionAttrs(stride=(2, 2), pad=(0, 0), pad_end=(0, 0)))
    inputs = [Layout(F32, FSV16, x.shape), Layout(F32, Format.bfyx, w.shape), Layout(F32, Format.bfyx, (16,))]
    out = Layout(F32, FSV16, ref.shape, SLICES)
    got = _run_sliced(ocl_engine, "deconvolution", "deconvolution_b_fs_yx_fsv16", inputs, out, attrs, [x, w, b])
    assert_close(got, ref, rtol=1e-4, atol=1e-4)


# winograd_output_b_fs_yx_fsv16 writes its slice inside a Program (its input is a Winograd product):
# tests/passes/test_prepare_buffer_fusing.py::test_fsv16_concat_of_whole_slices_runs_no_kernel_and_matches
@pytest.mark.parametrize("k,stride,pad", [(1, 1, 0), (3, 1, 1), (3, 2, 1)], ids=["1x1", "3x3", "3x3-s2"])
def test_cpu_channel_vector_convolution_writes_its_slice(rng, k, stride, pad):
    """The CPU engine's convolution_cpu_oc_blocked (tests/cpu/conv_harness.run_direct: a NaN-poisoned output whose
    padding, the slices of the other producers, must stay NaN)."""
    from tests.cpu.conv_harness import run_direct

    x = f32(rng.standard_normal((2, 32, 9, 17)))  # 17 wide: 9 output pixels per row at stride 2
    w = f32(rng.standard_normal((32, 32, k, k)) * 0.2)
    b = f32(rng.standard_normal(32))
    got, chosen = run_direct("convolution_cpu_oc_blocked", x, w, b, (stride,) * 2, (1, 1), (pad,) * 2, (pad,) * 2,
                             1, xfmt=FSV16, wfmt=Format.os_iyx_osv16, ofmt=FSV16, opad=SLICES)
    assert chosen == "convolution_cpu_oc_blocked"
    assert_close(got, conv_ref(x, w, b, (stride,) * 2, (1, 1), (pad,) * 2, (pad,) * 2, 1), rtol=1e-4, atol=1e-4)


COVERED = {"convolution_b_fs_yx_fsv16", "pooling_b_fs_yx_fsv16", "resize_b_fs_yx_fsv16",
           "deconvolution_b_fs_yx_fsv16", "winograd_output_b_fs_yx_fsv16", "convolution_cpu_oc_blocked"}


def test_every_kernel_that_says_it_writes_slices_is_tested_here():
    module = importlib.import_module("kernel_selector.selector")  # the package's `selector` is the instance
    module.candidates("convolution")  # loads every kernel module (of every engine)
    flagged = {k.name for ks in module._REGISTRY.values() for k in ks if k.writes_padded_blocks}
    assert flagged == COVERED, "a kernel with writes_padded_blocks needs a case in this file"


def _refusals(engine, kind, inputs, output, attrs, sliced_input=None, sliced_output=None) -> dict[str, str | None]:
    """For every kernel that takes the unsliced problem: its verdict on the sliced one."""
    def verdicts(ins, out):
        return {v.kernel: v.reason for v in selector.explain(
            Params(kind, "ocl", ins, out, typed_attrs(kind, attrs), device=engine.info, caps=engine.info.caps))}
    usable = [k for k, r in verdicts(inputs, output).items() if r is None]
    after = verdicts([sliced_input or inputs[0]] + inputs[1:], sliced_output or output)
    assert usable
    return {k: after[k] for k in usable}


def test_a_kernel_without_the_flag_refuses_a_sliced_output(ocl_engine):
    lay = Layout(F32, FSV16, (1, 16, 4, 4))
    got = _refusals(ocl_engine, "activation", [lay], lay, cl.Activation("a", "x", "relu").attrs(),
                    sliced_output=lay.with_(padding=Padding((0, 16, 0, 0), (0, 0, 0, 0))))
    assert all("output f32:b_fs_yx_fsv16:1x16x4x4 pad(0, 16, 0, 0)/(0, 0, 0, 0) is padded along its blocked "
               "dimension 'f'" in (r or "") for r in got.values())


def test_every_kernel_refuses_a_sliced_input(ocl_engine):
    lay = Layout(F32, FSV16, (1, 16, 6, 6))
    prim = cl.Pooling("p", "x", mode="max", kernel=(2, 2), stride=(2, 2))
    got = _refusals(ocl_engine, "pooling", [lay], prim.calc_output_layout([lay]), prim.attrs(),
                    sliced_input=lay.with_(padding=Padding((0, 16, 0, 0), (0, 0, 0, 0))))
    assert "pooling_b_fs_yx_fsv16" in got
    assert all("input 0" in (r or "") and "blocked dimension 'f'" in (r or "") for r in got.values())
