#!/usr/bin/env bash
# Set up a lent GPU machine (the `device` tool: no package registry, Python 3.12, PyTorch installed) for cldnn_py and
# run a command there:  bash benchmarks/gpu_device.sh python benchmarks/gpu_bench.py --models resnet50
#
# Before the call, here (see docs/gpu.md): download the wheels the machine lacks into .whl/ (git-ignored through
# .git/info/exclude) and name `.whl` in the call's `carry`:
#   python3 -m pip download --no-deps --only-binary=:all: --python-version 3.12 --implementation cp \
#     --platform manylinux_2_28_x86_64 --platform manylinux_2_17_x86_64 -d .whl pyopencl pytools platformdirs siphash24
# This script installs them into /tmp/site, writes NVIDIA's OpenCL ICD file (the driver's libnvidia-opencl.so.1 is
# mounted but containers often lack /etc/OpenCL/vendors/nvidia.icd) into /tmp/ocl and points OCL_ICD_VENDORS there,
# then runs its arguments with the repository on PYTHONPATH.
set -euo pipefail
cd "$(dirname "$0")/.."
if compgen -G ".whl/*.whl" > /dev/null; then
    python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl
fi
export PYTHONPATH="/tmp/site:$PWD${PYTHONPATH:+:$PYTHONPATH}"
if [ -z "${OCL_ICD_VENDORS:-}" ] && ldconfig -p | grep -q libnvidia-opencl.so.1; then
    mkdir -p /tmp/ocl
    echo libnvidia-opencl.so.1 > /tmp/ocl/nvidia.icd
    export OCL_ICD_VENDORS=/tmp/ocl
fi
export PYTHONUNBUFFERED=1
exec "$@"
