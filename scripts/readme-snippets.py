#!/usr/bin/env python3
"""Writes the README's marked code blocks to files, so tests use them verbatim.

A block is marked by an HTML comment (invisible on the rendered page) on the line before its
opening fence:

    <!-- snippet: user-package/Package.swift -->
    ```swift
    ...
    ```

``readme-snippets.py README.md OUTDIR PREFIX`` writes every block whose name starts with
``PREFIX/`` to ``OUTDIR/<rest of the name>``. A marker without a fenced block after it, a
name given twice, or no block with the prefix at all is an error: the test would otherwise
run against nothing.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

MARKER = re.compile(r"^<!-- snippet: (\S+) -->\s*$")
FENCE = re.compile(r"^(```+|~~~+)")


def snippets(text: str) -> dict[str, str]:
    """Every marked block of ``text``: name -> content (lines between the fences)."""
    lines = text.splitlines(keepends=True)
    found: dict[str, str] = {}
    i = 0
    while i < len(lines):
        m = MARKER.match(lines[i])
        i += 1
        if not m:
            continue
        name = m.group(1)
        fence = FENCE.match(lines[i]) if i < len(lines) else None
        if fence is None:
            raise SystemExit(f"readme-snippets: the marker for {name} is not followed by a fenced block")
        body: list[str] = []
        i += 1
        while i < len(lines) and not lines[i].startswith(fence.group(1)):
            body.append(lines[i])
            i += 1
        if i == len(lines):
            raise SystemExit(f"readme-snippets: the block {name} is not closed")
        if name in found:
            raise SystemExit(f"readme-snippets: {name} is marked twice")
        found[name] = "".join(body)
        i += 1
    return found


def main(argv: list[str]) -> int:
    if len(argv) != 4:
        print(__doc__, file=sys.stderr)
        return 2
    readme, outdir, prefix = Path(argv[1]), Path(argv[2]), argv[3].rstrip("/") + "/"
    chosen = {name[len(prefix):]: body for name, body in snippets(readme.read_text()).items()
              if name.startswith(prefix)}
    if not chosen:
        raise SystemExit(f"readme-snippets: {readme} has no block marked {prefix}...")
    for name, body in chosen.items():
        target = outdir / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(body)
        print(f"{readme}: {prefix}{name} -> {target}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
