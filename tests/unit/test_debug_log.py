"""CLDNN_PY_DEBUG: the cldnn_py loggers' debug records go to stderr through one handler."""

from __future__ import annotations

import logging

from cldnn_py.debug_log import HANDLER_NAME, configure_debug_logging


def _ours(logger: logging.Logger) -> list[logging.Handler]:
    return [h for h in logger.handlers if h.get_name() == HANDLER_NAME]


def test_debug_knob_adds_one_stderr_handler(monkeypatch, capsys):
    logger = logging.getLogger("cldnn_py")
    before = _ours(logger)
    level = logger.level
    for h in before:
        logger.removeHandler(h)
    monkeypatch.setenv("CLDNN_PY_DEBUG", "1")
    try:
        assert configure_debug_logging() and configure_debug_logging()
        assert len(_ours(logger)) == 1
        logging.getLogger("cldnn_py.pass_manager").debug("pass %s: %.2f ms", "mark_nodes", 0.5)
        assert "cldnn_py.pass_manager DEBUG: pass mark_nodes: 0.50 ms" in capsys.readouterr().err
    finally:
        for h in _ours(logger):
            logger.removeHandler(h)
        for h in before:
            logger.addHandler(h)
        logger.setLevel(level)


def test_without_the_knob_nothing_is_configured(monkeypatch):
    monkeypatch.delenv("CLDNN_PY_DEBUG", raising=False)
    logger = logging.getLogger("cldnn_py")
    n = len(logger.handlers)
    assert configure_debug_logging() is False
    assert len(logger.handlers) == n
    monkeypatch.setenv("CLDNN_PY_DEBUG", "0")
    assert configure_debug_logging() is False
