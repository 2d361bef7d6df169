"""The command line's commands beyond ``features``/``run``/``check``/``version`` (see
:mod:`reducerkit.cli`): each adds a subparser and registers its handler in
``cli._EXTRA_COMMANDS``."""

from __future__ import annotations

import argparse
from typing import Any

__all__ = ["add_commands"]


def add_commands(sub: Any) -> None:
    """Adds the commands to the ``python -m reducerkit`` subparsers ``sub``."""
    from . import cli
    for name, (add, run) in _COMMANDS.items():
        add(sub)
        cli._EXTRA_COMMANDS[name] = run


_COMMANDS: dict[str, tuple[Any, Any]] = {}
_ = argparse  # the commands' parsers are argparse subparsers
