"""The ``pytest11`` entry point of the reducerkit package: the hooks of
:mod:`reducerkit.testing.plugin`, which collects every ``*.scenario.json`` file as a test.

A module of its own, outside the package, so that a ``reducerkit`` without the plugin found
first on ``sys.path`` (a checkout's ``src`` on ``PYTHONPATH``, say) leaves pytest without
scenario collection instead of stopping it with an import error.
"""

try:
    from reducerkit.testing.plugin import (  # noqa: F401 - pytest finds the hooks by name
        pytest_addoption,
        pytest_collect_file,
    )
except ImportError:  # pragma: no cover - another reducerkit shadows this one
    pass
