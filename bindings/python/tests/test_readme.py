"""The Python examples of README.md's "Effects the host fulfils" section run as written, and
print what their comments say."""

from __future__ import annotations

import re
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[1] / "README.md"


def _section_blocks(title: str) -> list[str]:
    text = README.read_text()
    start = text.index(f"\n## {title}\n")
    end = text.find("\n## ", start + 1)
    section = text[start:end if end >= 0 else None]
    return re.findall(r"```python\n(.*?)```", section, flags=re.S)


BLOCKS = _section_blocks("Effects the host fulfils")
# Each `print(...)  # expected` line states its output.
_EXPECTED = re.compile(r"print\(.*\)\s+# (?:prints: )?(.+?)(?:  \(.*\))?$", re.M)


def test_the_section_has_examples() -> None:
    assert len(BLOCKS) >= 5


@pytest.mark.parametrize("index", range(len(BLOCKS)))
def test_readme_example_runs(index: int, run_python: Callable[..., subprocess.CompletedProcess[str]]) -> None:
    code = BLOCKS[index]
    runner = code + "\n" + "\n".join(
        f"{name}()" for name in re.findall(r"^def (test_\w+)\(", code, flags=re.M))
    done = run_python(code=runner)
    assert done.returncode == 0, done.stderr
    for expected in _EXPECTED.findall(code):
        assert expected.strip() in done.stdout, (expected, done.stdout)
