"""The blocked convolution with a channel shuffle fused into its stores (passes/fuse_shuffle_into_stores.py,
SHUFFLE_GROUP) under Oclgrind: 60 output channels in 3 groups (a channel tail; lanes scattered over four slices),
batch 2, an output padded for the depthwise layer after it. Clean log (no write outside the buffer, no race between
work-items that share a destination slice) and correct results."""

from __future__ import annotations

import importlib

import numpy as np
import pytest

import cldnn_py as cl
from tests.helpers import assert_close, f32
from tests.passes.test_fold_channel_shuffle import shuffle_ref
from tests.references import conv_ref

pytestmark = pytest.mark.oclgrind


def test_shuffled_stores_are_oclgrind_clean(oclgrind_engine, oclgrind_log, rng, monkeypatch):
    monkeypatch.setattr(importlib.import_module("cldnn_py.passes.fuse_shuffle_into_stores"), "PERMUTE_MAX_C", 0)
    x = f32(rng.standard_normal((2, 24, 3, 5)))
    w, b = f32(rng.standard_normal((60, 8, 1, 1)) * 0.3), f32(rng.standard_normal(60))
    wd = f32(rng.standard_normal((60, 1, 3, 3)) * 0.3)
    topo = cl.Topology(cl.InputLayout("x", cl.Layout(cl.DataType.f32, cl.Format.bfyx, x.shape)), cl.Data("w", w),
                       cl.Data("b", b), cl.Data("wd", wd), cl.Convolution("c", "x", weights="w", bias="b", groups=3),
                       cl.Activation("r", "c", "relu"), cl.ShuffleChannels("sh", "r", group=3),
                       cl.Convolution("dw", "sh", weights="wd", pad=(1, 1), groups=60))
    net = cl.Network(cl.Program(oclgrind_engine, topo, cl.BuildOptions(kernel_tier="cpu", tuning="off")))
    status = {p.id: p.kernel for p in net.get_profiling_info() if p.status == "FUSED"}
    assert status.get("sh") == "fused into c", status
    net.poison()
    got = net.run({"x": x})["dw"]
    oclgrind_log.assert_clean()
    y = np.maximum(conv_ref(x, w, b, (1, 1), (1, 1), (0, 0), (0, 0), 3), 0)
    want = conv_ref(shuffle_ref(y, 3), wd, None, (1, 1), (1, 1), (1, 1), (1, 1), 60)
    assert_close(got, want, rtol=1e-4, atol=1e-4)
