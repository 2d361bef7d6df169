"""A CI gate for saved state: :func:`check_snapshots` restores every snapshot kept in a
directory with the current library.

```python
from reducerkit.testing import check_snapshots

def test_saved_states_still_restore() -> None:
    check_snapshots("snapshots")        # one file per released state version
```

The snapshot files of a directory are its ``*.json`` files (not those under its
subdirectories, and not ``*.scenario.json`` files), each a document
:meth:`reducerkit.Store.snapshot` returned (``rk_store_snapshot``), written as it was, e.g.
``snapshots/scoreboard-v1.json``. A ``*.json`` file there that is not a snapshot document is
a failure too: a gate must not skip a file it was meant to check.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .. import _json
from .._files import read_file
from .._lifecycle import resolve_library
from .._native import Library
from ..errors import ReducerKitError

__all__ = ["check_snapshots", "snapshot_files", "SnapshotFailure", "SnapshotProblem"]

#: What a snapshot document holds at least (rk_store_snapshot writes also "schema_hash").
REQUIRED_KEYS = ("feature", "state_version", "version", "state")


@dataclass(frozen=True)
class SnapshotProblem:
    """One snapshot file that does not restore."""

    path: Path
    feature: str | None
    state_version: int | None
    message: str

    def __str__(self) -> str:
        if self.feature is None:
            return f"{self.path}: {self.message}"
        version = "?" if self.state_version is None else str(self.state_version)
        return (f"{self.path}: the snapshot of {self.feature!r} at state_version {version} "
                f"does not restore: {self.message}")


class SnapshotFailure(AssertionError):
    """Snapshot files that no longer restore with the current library (an
    ``AssertionError``: pytest shows the message). :attr:`problems` has one entry per file."""

    def __init__(self, problems: list[SnapshotProblem], checked: int) -> None:
        self.problems = problems
        self.checked = checked
        lines = "\n".join(f"  {p}" for p in problems)
        super().__init__(f"{len(problems)} of {checked} snapshot file(s) do not restore with "
                         f"the current library:\n{lines}")


def snapshot_files(directory: str | os.PathLike[str]) -> list[Path]:
    """The snapshot files of ``directory``: its ``*.json`` files, except ``*.scenario.json``,
    sorted by name.

    Raises:
        FileNotFoundError: ``directory`` is not a directory.
    """
    folder = Path(directory)
    if not folder.is_dir():
        raise FileNotFoundError(f"{folder}: not a directory of snapshot files")
    return sorted(p for p in folder.iterdir()
                  if p.is_file() and p.name.endswith(".json")
                  and not p.name.endswith(".scenario.json"))


def _check_file(path: Path, lib: Library) -> SnapshotProblem | None:
    """``None`` when the snapshot in ``path`` restores, else what is wrong."""
    from ..store import Store

    try:
        data = read_file(path)
    except OSError as e:
        return SnapshotProblem(path, None, None, f"cannot be read: {e.strerror or e}")
    try:
        document: Any = _json.loads(data)
    except ValueError as e:
        return SnapshotProblem(path, None, None, f"is not JSON: {e}")
    if not isinstance(document, dict):
        return SnapshotProblem(path, None, None,
                               f"is not a snapshot document (a JSON object), but a "
                               f"{type(document).__name__}")
    missing = [key for key in REQUIRED_KEYS if key not in document]
    feature = document.get("feature")
    if missing or not isinstance(feature, str):
        return SnapshotProblem(
            path, None, None,
            f"is not a snapshot document: no {', '.join(repr(k) for k in missing) or 'feature'} "
            f"(a snapshot has {', '.join(REQUIRED_KEYS)} and schema_hash)")
    raw_version = document.get("state_version")
    state_version = raw_version if type(raw_version) is int else None
    try:
        store: Store[Any, Any] = Store(feature, snapshot=document, clock="test", library=lib)
    except ReducerKitError as e:
        return SnapshotProblem(path, feature, state_version, e.message)
    store.close()
    return None


def check_snapshots(directory: str | os.PathLike[str], *,
                    library: Library | str | os.PathLike[str] | None = None) -> list[Path]:
    """Restores every snapshot file of ``directory`` (see :func:`snapshot_files`) with the
    current library: each must be a snapshot of a feature the library has, of a state version
    it migrates from, whose migrated state the feature decodes. Returns the files checked.

    Raises:
        SnapshotFailure: some files do not restore; the message names each file, its feature
            and state version, and the library's reason (which migration failed, and the JSON
            Pointer of the offending value).
        FileNotFoundError: ``directory`` is not a directory, or holds no snapshot file (a
            gate that checks nothing is a mistake).
    """
    lib = resolve_library(library)
    files = snapshot_files(directory)
    if not files:
        raise FileNotFoundError(f"{directory}: holds no snapshot file (*.json)")
    problems = [p for p in (_check_file(path, lib) for path in files) if p is not None]
    if problems:
        raise SnapshotFailure(problems, len(files))
    return files
