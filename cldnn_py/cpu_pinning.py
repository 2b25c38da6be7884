"""CPU pinning of PoCL's worker threads (OpenVINO's ``ENABLE_CPU_PINNING`` for the OpenCL CPU device).

PoCL's pthread device runs one worker thread per core. Unpinned, the workers sleep when a network goes idle, and
Linux often wakes both on the same core at the next run, so the first kernels of that run get half the machine:
on a 2-core VM, SqueezeNet batch 1 after a 20 ms pause took 6.8 ms unpinned and 5.2 ms pinned (back to back both
3.7 ms), its convolutions running 1.6-1.9x slower until the scheduler spreads the workers again
(``benchmarks/bench.py`` vs onnxruntime: SqueezeNet 1.37-1.57x -> 1.00-1.02x, the DBNet-style head 1.79-1.89x ->
1.14-1.16x). PoCL pins its workers, one per core, when ``POCL_AFFINITY=1`` is set before its platform starts.

``CLDNN_PY_CPU_PINNING`` (``1`` by default, ``0`` off) decides whether cldnn_py sets ``POCL_AFFINITY=1``; a
``POCL_AFFINITY`` the user set is never changed. Turn pinning off when other busy processes share the cores:
a pinned worker cannot move away from a core someone else is using. PoCL pins worker i to core i; where the process
may not use that core (a cpuset), the pinning call fails and the worker stays unpinned, as without the variable.
"""

from __future__ import annotations

import os

from . import env


def configure_cpu_pinning() -> bool:
    """Set ``POCL_AFFINITY=1`` unless the user set ``POCL_AFFINITY`` or turned pinning off
    (``CLDNN_PY_CPU_PINNING=0``). Called before cldnn_py first lists the OpenCL platforms (PoCL reads the variable
    once, when its platform starts). Returns True when PoCL's workers will be pinned."""
    if "POCL_AFFINITY" in os.environ:
        return os.environ["POCL_AFFINITY"].strip() not in ("", "0")
    if not env.cpu_pinning():
        return False
    os.environ["POCL_AFFINITY"] = "1"
    return True
