"""The ``cldnn-py`` command line (argparse). The library prints nothing; this module does.

    cldnn-py devices            list OpenCL devices with their cl:P:D spec and limits
    cldnn-py version            package, pyopencl and platform versions

``run``, ``benchmark`` and ``dump-graph`` on ONNX models come with the ONNX front end (issue 3).
"""

from __future__ import annotations

import argparse
import sys


def _devices(_: argparse.Namespace) -> int:
    from .device import NO_PLATFORM_HELP, list_devices

    devs = list_devices()
    if not devs:
        print(NO_PLATFORM_HELP, file=sys.stderr)
        return 1
    for d in devs:
        print(f"{d.spec}  {d.name}  [{d.platform_version}]  compute units {d.compute_units}, "
              f"max alloc {d.max_alloc_bytes / 2**20:.0f} MiB, global {d.global_mem_bytes / 2**20:.0f} MiB, "
              f"fp16 {'yes' if d.supports_fp16 else 'no'}, out-of-order queue {'yes' if d.out_of_order else 'no'}")
    return 0


def _version(_: argparse.Namespace) -> int:
    import numpy
    import pyopencl

    from . import __version__

    print(f"cldnn_py {__version__}, pyopencl {pyopencl.VERSION_TEXT}, numpy {numpy.__version__}")
    return 0


def build_parser() -> argparse.ArgumentParser:
    """The argument parser with its sub-commands."""
    p = argparse.ArgumentParser(prog="cldnn-py", description="clDNN-style inference engine on OpenCL")
    sub = p.add_subparsers(dest="command", required=True)
    sub.add_parser("devices", help="list OpenCL devices").set_defaults(func=_devices)
    sub.add_parser("version", help="print versions").set_defaults(func=_version)
    return p


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``cldnn-py`` console script; returns the exit status."""
    args = build_parser().parse_args(argv)
    return int(args.func(args))


if __name__ == "__main__":
    sys.exit(main())
