"""wg_dispatch (no device needed): gws a multiple of lws covering the shape, lws within the device's limits."""

from __future__ import annotations

import pytest

from kernel_selector.common.gpu_dispatch import wg_dispatch, wg_validate
from kernel_selector.device_caps import GPU_LIKE, DeviceCaps

SMALL = DeviceCaps(device_type="gpu", max_work_group_size=64, max_work_item_sizes=(8, 8, 8))


@pytest.mark.parametrize("caps", [GPU_LIKE, SMALL, DeviceCaps(max_work_group_size=1, max_work_item_sizes=(1, 1, 1))])
@pytest.mark.parametrize("shape", [(1, 1, 1), (7, 5, 3), (224, 224, 3), (1, 1, 1000), (1000,), (13, 1), (56, 56, 24)])
def test_wg_dispatch_covers_and_fits(caps, shape):
    gws, lws = wg_dispatch(shape, caps)
    assert len(gws) == len(lws) == len(shape)
    assert all(g % lw == 0 and g >= n and g - n < lw for g, lw, n in zip(gws, lws, shape))
    assert wg_validate(lws, caps) is None


def test_wg_dispatch_groups_of_64_to_256_x_first():
    assert wg_dispatch((56, 56, 24), GPU_LIKE)[1] == (64, 4, 1)
    assert wg_dispatch((3, 1, 1), GPU_LIKE)[1] == (64, 1, 1)
    assert wg_dispatch((1, 1, 1000), GPU_LIKE)[1] == (1, 1, 256)
    assert "exceeds" in (wg_validate((32, 32, 2), GPU_LIKE) or "")
