#!/usr/bin/env python3
"""Renders the Python package's API docs with pdoc: ``docs-python.py OUTDIR``.

Pages: ``reducerkit``, ``reducerkit.testing`` and ``reducerkit.testing.strategies``. The names
``reducerkit.testing`` imports on first use (``check``, ``InvariantFailure``, ``strategies``:
they need the optional Hypothesis) are imported first, so pdoc finds them in the module and
documents them (pdoc reads a module's attributes; it does not call its ``__getattr__``).
Google-style docstrings; code is written in Markdown fences.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pdoc
import pdoc.render

import reducerkit.testing


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    for name in reducerkit.testing.__all__:
        getattr(reducerkit.testing, name)  # the lazily imported ones too
    pdoc.render.configure(docformat="google")
    pdoc.pdoc("reducerkit", "reducerkit.testing", output_directory=Path(argv[1]))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
