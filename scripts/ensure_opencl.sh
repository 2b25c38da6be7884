#!/usr/bin/env bash
# Make sure some OpenCL device other than a simulator (Oclgrind is a test dependency and builds everywhere) can
# build a kernel; called by the Makefile after the venv install.
#
# The pip PoCL (pocl-binary-distribution 3.0, LLVM 14) cannot compile for CPUs newer than LLVM 14 knows: on an
# AMD Zen 5 every build fails with "unknown target CPU 'generic'". When no device builds the probe kernel and this
# is a Debian/Ubuntu machine where we are root, install Debian's PoCL (pocl-opencl-icd, PoCL 3.1 with LLVM 15,
# which falls back to a known CPU model); pyopencl's ICD loader then lists it before the pip one, and Engine()
# picks the first device that builds (cldnn_py.device.build_problem). Otherwise print what to do and go on: the
# CPU (numba) engine still works, and the OpenCL tests will say why they fail.
set -u
PY="${1:-python3}"
probe() {
  "$PY" - <<'PYEOF'
import sys
from cldnn_py.device import build_problem, list_devices
ok = []
for d in list_devices():
    p, i = (int(x) for x in d.spec.split(":")[1:])
    why = build_problem(p, i)
    sim = " (a simulator: does not count)" if d.caps.simulator else ""
    print(f"  {d.spec} {d.name}: {'builds' if why is None else why}{sim}")
    ok.append(why is None and not d.caps.simulator)
sys.exit(0 if any(ok) else 1)
PYEOF
}
echo "OpenCL devices:"
if probe; then exit 0; fi
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "no OpenCL device builds a kernel: installing Debian's PoCL (pocl-opencl-icd)"
  (apt-get install -y -qq pocl-opencl-icd >/dev/null 2>&1 \
    || { apt-get update -qq >/dev/null 2>&1 && apt-get install -y -qq pocl-opencl-icd >/dev/null 2>&1; }) \
    || echo "warning: apt-get install pocl-opencl-icd failed"
  probe && exit 0
fi
echo "warning: no OpenCL device builds a kernel; install a system OpenCL driver (e.g. 'apt-get install" \
     "pocl-opencl-icd'); Engine('cpu') works without one" >&2
exit 0
