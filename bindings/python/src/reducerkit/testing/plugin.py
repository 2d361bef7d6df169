"""The pytest plugin (entry point ``pytest11``, through the module ``pytest_reducerkit``: active
wherever the package is installed):
every ``*.scenario.json`` file under the test paths is a test item, run with
:func:`reducerkit.testing.run_scenario`.

```sh
pytest tests/                         # tests/**/*.scenario.json are collected too
pytest --reducerkit-lib build/libscoreboard.so tests/
```

The library is ``--reducerkit-lib PATH``, else the binding's default (``$REDUCERKIT_LIB``,
then the copy inside the package). A failing scenario reports the step and what differed; a
malformed one reports what is wrong and where.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from .scenarios import SUFFIX, ScenarioError, ScenarioFailure, run_scenario

__all__ = ["ScenarioFile", "ScenarioItem"]


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("reducerkit", "ReducerKit scenarios (*.scenario.json)")
    group.addoption("--reducerkit-lib", metavar="PATH", default=None,
                    help="the library the scenarios run against (default: $REDUCERKIT_LIB, "
                         "then the copy inside the reducerkit package)")
    group.addoption("--reducerkit-timeout", metavar="SECONDS", type=float, default=1.0,
                    help="how long a scenario step waits for effects (default 1)")


def pytest_collect_file(parent: pytest.Collector, file_path: Path) -> pytest.Collector | None:
    if file_path.name.endswith(SUFFIX):
        return ScenarioFile.from_parent(parent, path=file_path)
    return None


class ScenarioFile(pytest.File):
    """A ``*.scenario.json`` file: one test item, named after the scenario."""

    def collect(self) -> Iterator[pytest.Item]:
        yield ScenarioItem.from_parent(self, name=self.path.name[: -len(SUFFIX)])


class ScenarioItem(pytest.Item):
    """One scenario, run against the library."""

    def runtest(self) -> None:
        library = self.config.getoption("--reducerkit-lib")
        timeout = self.config.getoption("--reducerkit-timeout")
        run_scenario(self.path, library, timeout=timeout)

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException],
                     style: Any = None) -> str:
        if isinstance(excinfo.value, (ScenarioFailure, ScenarioError)):
            return str(excinfo.value)
        return str(super().repr_failure(excinfo))

    def reportinfo(self) -> tuple[Path, int, str]:
        return self.path, 0, f"scenario {self.name}"
