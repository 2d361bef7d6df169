"""The binding's shape (issue 22): one checker for status codes, one module per CLI command,
and one keyword-only argument order for Store and TestStore."""

from __future__ import annotations

import ast
import inspect
import io
import pkgutil
from ctypes import byref, c_void_p
from pathlib import Path

import pytest

import reducerkit
import reducerkit.cli
from reducerkit import Library, Store
from reducerkit._native import FUNCTIONS
from reducerkit.testing import TestStore

PACKAGE = Path(reducerkit.__file__).resolve().parent

# Calls of a status-returning function whose status is checked after something that must come
# first (each with the reason); every other call goes through Library.call/check.
_CHECKED_LATER = {
    ("store.py", "rk_store_wait_idle"): "waits in slices; the last slice's status is checked",
    ("_subscriptions.py", "rk_store_unsubscribe"): "the thunk is dropped before the check",
}


def _status_functions() -> set[str]:
    return {name for name, (_, restype) in FUNCTIONS.items()
            if restype is FUNCTIONS["rk_abi_version"][1]}  # rk_status is a C int


def test_every_status_goes_through_library_check() -> None:
    """No module calls a function of the header that returns rk_status and tests the status
    itself: Library.call (or Library.check, for the hot paths' untyped copies) turns it into
    the exception. 0.2.0 repeated `if status: raise lib.error(status)` 23 times."""
    status_functions = _status_functions() - {"rk_abi_version"}
    assert {"rk_store_send", "rk_store_get", "rk_features"} <= status_functions
    direct = []
    for path in sorted(PACKAGE.rglob("*.py")):
        relative = path.relative_to(PACKAGE).as_posix()
        if relative == "_native.py":  # Library itself: call, check, call_out_string
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                    and node.func.attr in status_functions \
                    and (relative, node.func.attr) not in _CHECKED_LATER:
                direct.append(f"{relative}:{node.lineno}: {node.func.attr}(...)")
    assert direct == [], "call these through Library.call / Store._call:\n" + "\n".join(direct)


def test_the_checker_raises_the_mapped_exception_with_the_message(lib: Library) -> None:
    with pytest.raises(reducerkit.UnknownFeatureError, match="countr") as info:
        lib.call(lib.rk_store_create, b"countr", b"{}", byref(c_void_p()), context="create")
    assert info.value.message.startswith("create: ")
    assert info.value.status_string == lib.status_string(reducerkit.Status.UNKNOWN_FEATURE)
    lib.check(0)  # RK_OK: nothing
    pending: list[BaseException] = [KeyError("from a subscriber")]
    with pytest.raises(KeyError) as first:
        lib.check(reducerkit.Status.MISUSE, "call", "its message", pending=pending)
    assert pending == []
    assert any("MisuseError('call: its message'" in note for note in first.value.__notes__)


# ---- one keyword-only order -------------------------------------------------------------

def test_every_argument_after_feature_is_a_keyword() -> None:
    for cls in (Store, TestStore):
        parameters = list(inspect.signature(cls).parameters.values())
        assert parameters[0].name == "feature", cls
        assert parameters[0].kind is inspect.Parameter.POSITIONAL_OR_KEYWORD
        assert [p.name for p in parameters[1:] if p.kind is not p.KEYWORD_ONLY] == [], cls


def test_store_and_test_store_share_one_order() -> None:
    store = list(inspect.signature(Store).parameters)
    test_store = list(inspect.signature(TestStore).parameters)
    shared = [name for name in store if name in test_store]
    assert shared == ["feature", "initial_state", "snapshot", "clock", "provide", "library"]
    assert [name for name in test_store if name in store] == shared


def test_positional_options_are_refused(lib: Library) -> None:
    with pytest.raises(TypeError):
        Store("counter", {"count": 1}, library=lib)  # type: ignore[call-arg]
    with pytest.raises(TypeError):
        TestStore("counter", "test", library=lib)  # type: ignore[call-arg]
    with TestStore("counter", initial_state={"count": 1}, clock="test", library=lib) as ts:
        ts.send("increment", count=2)


# ---- the command line: a module per command ---------------------------------------------

def _command_modules() -> list[str]:
    return sorted(m.name for m in pkgutil.iter_modules(reducerkit.cli.__path__)
                  if not m.name.startswith("_"))


def test_each_command_is_a_module_that_registers_itself() -> None:
    modules = _command_modules()
    assert modules == ["check", "features", "fuzz", "inspect", "record", "run", "schema",
                       "snapshots", "stubs", "version"]
    parser = reducerkit.cli._parser()
    choices = next(a for a in parser._actions if a.dest == "command").choices
    assert choices is not None and sorted(choices) == modules
    for name in modules:
        module = getattr(reducerkit.cli, name)
        assert callable(module.register) and callable(module.execute), name
        assert choices[name].get_default("handler") is module.execute, name


@pytest.mark.parametrize(("command", "args", "status"), [
    ("features", [], 1), ("version", [], 1), ("run", ["counter", "-"], 1),
    ("record", ["counter"], 1), ("stubs", ["counter"], 1), ("inspect", ["x.scenario.json"], 1),
    # The commands that give a verdict: 1 only for a failed check.
    ("check", ["."], 2), ("fuzz", ["counter", "--invariant", "json:loads"], 2),
    ("snapshots", ["check", "."], 2),
])
def test_a_library_that_cannot_be_loaded(command: str, args: list[str], status: int,
                                         tmp_path: Path) -> None:
    err = io.StringIO()
    missing = str(tmp_path / "missing.so")
    assert reducerkit.cli.main([command, *args, "--lib", missing], out=io.StringIO(),
                               err=err) == status, err.getvalue()
    assert "missing.so, does not exist" in err.getvalue()
