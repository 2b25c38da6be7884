"""``CLDNN_PY_DEBUG=1``: the ``cldnn_py`` loggers' debug records go to stderr.

The library logs through ``logging.getLogger("cldnn_py....")`` and prints nothing; with the knob set (read by
``env.debug()``), importing ``cldnn_py`` adds one stderr handler to the ``cldnn_py`` logger and sets it to DEBUG, so
each pass (its time and node count, pass_manager), the kernel chosen for each node (compile_graph) and the build
batches show without configuring logging by hand. Without the knob the logging setup is left to the application.
"""

from __future__ import annotations

import logging

from . import env

HANDLER_NAME = "cldnn_py.debug"


def configure_debug_logging() -> bool:
    """With ``CLDNN_PY_DEBUG`` set: add the stderr handler to the ``cldnn_py`` logger (once per process, however often
    this is called) and set the logger to DEBUG; returns True. Without it: does nothing and returns False."""
    if not env.debug():
        return False
    logger = logging.getLogger("cldnn_py")
    if not any(h.get_name() == HANDLER_NAME for h in logger.handlers):
        handler = logging.StreamHandler()  # sys.stderr
        handler.set_name(HANDLER_NAME)
        handler.setFormatter(logging.Formatter("%(name)s %(levelname)s: %(message)s"))
        logger.addHandler(handler)
    logger.setLevel(logging.DEBUG)
    return True
