"""Every Python block of the two READMEs (README.md and bindings/python/README.md) and of the
documentation pages (docs/*.md) runs as written, in a fresh interpreter in an empty directory,
and does what its comments say; a docs block marked ``<!-- snippet: PATH -->`` is the file PATH.

- A block that defines ``test_*`` functions is run by pytest (as a user would run it), and
  every test must pass; any other block runs as a script and must exit 0.
- A function the block defines (other than a test) must be called in it: a block that only
  defines ``main()`` does nothing.
- ``print(...)  # TEXT`` states the output: TEXT must be printed.
- A marker on the line before the fence states another outcome:
  ``<!-- python-snippet: raises NAME -->``: the block ends with the exception ``NAME``, and
  the ``# ...`` lines at its end are the exception's message (``…`` stands for any text);
  ``<!-- python-snippet: mypy stubs=FEATURE -->``: a typing example, checked with ``mypy
  --strict`` beside ``python -m reducerkit stubs FEATURE -o FEATURE_types.py``: each
  ``# error: TEXT`` line has a mypy error containing TEXT, and no other line has one.
"""

from __future__ import annotations

import ast
import os
import re
import subprocess
import sys
import sysconfig
from dataclasses import dataclass
from pathlib import Path

import pytest
from conftest import REPO

READMES = [REPO / "README.md", REPO / "bindings" / "python" / "README.md"]
#: The documentation pages (docs/*.md): their Python blocks run like the READMEs', and each
#: block marked ``<!-- snippet: PATH -->`` is the repository's file PATH, verbatim.
DOCS = sorted((REPO / "docs").glob("*.md"))
SNIPPET = re.compile(r"^<!-- snippet: (\S+) -->$")
MARKER = re.compile(r"^<!-- python-snippet: (.+?) -->$")
# Each `print(...)  # expected` line states its output.
_EXPECTED = re.compile(r"print\(.*\)\s+# (?:prints: )?(.+?)(?:  \(.*\))?$", re.M)


@dataclass
class Snippet:
    readme: Path
    line: int      # of the opening fence
    code: str
    outcome: str   # "run", "raises NAME" or "mypy stubs=FEATURE"

    @property
    def id(self) -> str:
        return f"{self.readme.relative_to(REPO)}:{self.line}"


def _snippets() -> list[Snippet]:
    found = []
    for readme in READMES + DOCS:
        lines = readme.read_text().splitlines()
        i = 0
        while i < len(lines):
            if lines[i].strip() != "```python":
                i += 1
                continue
            start = i
            marker = MARKER.match(lines[i - 1].strip()) if i > 0 else None
            i += 1
            body = []
            while i < len(lines) and lines[i].strip() != "```":
                body.append(lines[i])
                i += 1
            assert i < len(lines), f"{readme}:{start + 1}: the block is not closed"
            found.append(Snippet(readme, start + 1, "\n".join(body) + "\n",
                                 marker.group(1) if marker else "run"))
            i += 1
    return found


SNIPPETS = _snippets()


def test_every_readme_has_python_blocks() -> None:
    for readme in READMES:
        assert sum(s.readme == readme for s in SNIPPETS) >= 5, readme


def test_docs_exist_and_quote_files_verbatim() -> None:
    assert REPO / "docs" / "saving-state.md" in DOCS
    for doc in DOCS:
        lines = doc.read_text().splitlines(keepends=True)
        quoted = 0
        for i, line in enumerate(lines):
            m = SNIPPET.match(line.strip())
            if not m:
                continue
            assert lines[i + 1].startswith("```"), f"{doc}:{i + 1}: no block after the marker"
            end = next(j for j in range(i + 2, len(lines)) if lines[j].startswith("```"))
            path = REPO / m.group(1)
            assert path.is_file(), f"{doc}:{i + 1}: {m.group(1)} is not a file of the repository"
            assert "".join(lines[i + 2:end]) == path.read_text(), \
                f"{doc}:{i + 1}: the block is not {m.group(1)} verbatim: copy the file again"
            quoted += 1
        if doc.name == "saving-state.md":
            assert quoted == 3, doc


def _functions_never_called(code: str) -> list[str]:
    """Top-level functions that are neither tests nor used anywhere in the block."""
    tree = ast.parse(code)
    defined = [node.name for node in tree.body
               if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
               and not node.name.startswith("test_")]
    used = {node.id for node in ast.walk(tree) if isinstance(node, ast.Name)}
    return [name for name in defined if name not in used]


def _env(child_env: dict[str, str]) -> dict[str, str]:
    env = dict(child_env)
    package_root = env["PYTHONPATH"].split(os.pathsep)[0]  # the package under test
    installed = {sysconfig.get_paths()[key] for key in ("purelib", "platlib")}
    if package_root not in installed:  # mypy finds an installed package by itself
        env["MYPYPATH"] = package_root  # (and refuses site-packages in MYPYPATH)
    return env


@pytest.mark.parametrize("snippet", SNIPPETS, ids=[s.id for s in SNIPPETS])
def test_readme_python_block(snippet: Snippet, tmp_path: Path,
                             child_env: dict[str, str]) -> None:
    env = _env(child_env)
    code = snippet.code
    where = f"{snippet.id}:\n{code}"

    def run(*argv: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, *argv], cwd=tmp_path, env=env,
                              capture_output=True, text=True, timeout=300)

    if snippet.outcome.startswith("mypy stubs="):
        feature = snippet.outcome.split("=", 1)[1]
        done = run("-m", "reducerkit", "stubs", feature, "-o", f"{feature}_types.py")
        assert done.returncode == 0, done.stderr
        (tmp_path / "snippet.py").write_text(code)
        done = run("-m", "mypy", "--strict", "--no-error-summary", "snippet.py")
        assert done.returncode in (0, 1) and not done.stderr, (done.stdout, done.stderr)
        errors: dict[int, list[str]] = {}
        for m in re.finditer(r"^snippet\.py:(\d+): error: (.*)$", done.stdout, re.M):
            errors.setdefault(int(m.group(1)), []).append(m.group(2))
        for number, line in enumerate(code.splitlines(), start=1):
            said = re.search(r"# error: (.*)$", line)
            if said:
                assert any(said.group(1) in e for e in errors.get(number, [])), \
                    (where, number, said.group(1), done.stdout)
            else:
                assert number not in errors, (where, number, errors[number])
        return

    unused = _functions_never_called(code)
    assert not unused, f"{where}\ndefines {unused} but never calls them: it does nothing"
    tests = re.findall(r"^def (test_\w+)\(", code, flags=re.M)
    if tests:
        (tmp_path / "test_snippet.py").write_text(code)
        done = run("-m", "pytest", "-q", "-p", "no:cacheprovider", "test_snippet.py")
        assert done.returncode == 0, (where, done.stdout, done.stderr)
        assert f"{len(tests)} passed" in done.stdout, (where, done.stdout)
    else:
        (tmp_path / "snippet.py").write_text(code)
        done = run("snippet.py")
    if snippet.outcome.startswith("raises "):
        name = snippet.outcome.split(" ", 1)[1]
        assert done.returncode != 0, (where, done.stdout)
        said = re.search(r"(?:^# .*\n)+\Z", code, flags=re.M)
        assert said is not None, f"{where}\nstates no message (# lines at its end)"
        first, *rest = [line[2:] for line in said.group(0).splitlines()]
        assert first.startswith(f"{name}: "), (where, first)
        patterns = [rf"(\w+\.)*{_wildcards(first)}", *map(_wildcards, rest)]
        for pattern in patterns:
            assert re.search(rf"^{pattern}$", done.stderr, re.M), (where, pattern, done.stderr)
        return
    assert done.returncode == 0, (where, done.stdout, done.stderr)
    for expected in _EXPECTED.findall(code):
        assert expected.strip() in done.stdout, (where, expected, done.stdout)


def _wildcards(text: str) -> str:
    """A regex of ``text`` in which ``…`` stands for any text."""
    return ".*".join(re.escape(part) for part in text.split("…"))


def test_a_block_that_only_defines_main_is_caught() -> None:
    assert _functions_never_called("async def main():\n    pass\n") == ["main"]
    assert _functions_never_called("def main():\n    pass\nmain()\n") == []
    assert _functions_never_called("def test_x():\n    pass\n") == []

