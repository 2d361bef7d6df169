"""The raw layer: discovery order, the ABI check, the function table against the header."""

from __future__ import annotations

import ctypes
import io
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import HEADER, cap

import reducerkit
from reducerkit import _native, cli
from reducerkit.errors import (
    ABIVersionError,
    ActionError,
    InternalError,
    InvalidArgumentError,
    JSONError,
    LibraryNotFoundError,
    MisuseError,
    ReducerKitError,
    ResponseError,
    StateError,
    Status,
    StoreClosedError,
    TimeoutError,
    UnknownFeatureError,
    error_for_status,
)


def _compile(tmp_path: Path, name: str, source: str) -> Path:
    cc = shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")
    if cc is None:
        pytest.skip("no C compiler to build a fake library")
    c_file = tmp_path / f"{name}.c"
    c_file.write_text(source)
    out = tmp_path / f"{name}.so"
    subprocess.run([cc, "-shared", "-fPIC", "-o", str(out), str(c_file)], check=True)
    return out


# ---- the table mirrors the header -----------------------------------------------------

def _header_functions() -> dict[str, int]:
    if not HEADER.exists():
        pytest.skip(f"{HEADER} not found (not a checkout)")
    text = HEADER.read_text()
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    found: dict[str, int] = {}
    for m in re.finditer(r"RK_API\s+[^;(]*?\b(rk_\w+)\s*\(([^)]*)\)\s*;", text, flags=re.S):
        params = m.group(2).strip()
        found[m.group(1)] = 0 if params in ("", "void") else params.count(",") + 1
    return found


def test_table_declares_every_function_of_the_header() -> None:
    header = _header_functions()
    assert set(_native.FUNCTIONS) == set(header)
    for name, arity in header.items():
        argtypes, _ = _native.FUNCTIONS[name]
        assert len(argtypes) == arity, name


def test_status_codes_match_the_header() -> None:
    if not HEADER.exists():
        pytest.skip("no header")
    text = HEADER.read_text()
    codes = {m.group(1): int(m.group(2))
             for m in re.finditer(r"\b(RK_OK|RK_ERR_\w+)\s*=\s*(\d+)", text)}
    assert codes == {("RK_OK" if s is Status.OK else f"RK_ERR_{s.name}"): s.value
                     for s in Status}


def test_owned_strings_are_void_pointers() -> None:
    for name in ("rk_features", "rk_store_state", "rk_store_take_actions",
                 "rk_store_scenario", "rk_store_take_requests"):
        argtypes, _ = _native.FUNCTIONS[name]
        assert ctypes.POINTER(ctypes.c_void_p) in argtypes, name


@pytest.mark.parametrize("status, cls", [
    (Status.INVALID_ARGUMENT, InvalidArgumentError), (Status.JSON, JSONError),
    (Status.ACTION, ActionError), (Status.STATE, StateError),
    (Status.UNKNOWN_FEATURE, UnknownFeatureError), (Status.INVALID_HANDLE, StoreClosedError),
    (Status.TIMEOUT, TimeoutError), (Status.INTERNAL, InternalError),
    (Status.MISUSE, MisuseError), (Status.RESPONSE, ResponseError),
])
def test_status_maps_to_exception(status: Status, cls: type[ReducerKitError]) -> None:
    e = error_for_status(status, "what went wrong", "RK_ERR_X: text")
    assert type(e) is cls and isinstance(e, ReducerKitError)
    assert e.status is status and e.message == "what went wrong" and str(e) == "what went wrong"
    assert e.status_string == "RK_ERR_X: text"


def test_unknown_status_and_empty_message() -> None:
    e = error_for_status(42, "", "unknown status")
    assert type(e) is ReducerKitError and e.status == 42 and e.message == "unknown status"


def test_timeout_error_is_also_the_builtin() -> None:
    assert issubclass(reducerkit.TimeoutError, TimeoutError)
    import builtins
    assert issubclass(reducerkit.TimeoutError, builtins.TimeoutError)


# ---- loading --------------------------------------------------------------------------

def test_loaded_library(lib: _native.Library) -> None:
    assert lib.abi_version == _native.ABI_VERSION == 1
    assert re.fullmatch(r"\d+\.\d+\.\d+.*", lib.version)
    assert lib.cdll.rk_abi_version() == 1
    assert "RK_ERR_ACTION" in lib.status_string(Status.ACTION)
    assert lib.status_string(1234) == "unknown status"
    assert "0x" not in repr(lib) and lib.path in repr(lib)


def test_a_missing_explicit_path_is_an_error_not_a_fallback(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path, lib: _native.Library) -> None:
    """A working library in $REDUCERKIT_LIB and in the package must not stand in for it."""
    monkeypatch.setenv("REDUCERKIT_LIB", lib.path)
    package = tmp_path / "package"
    package.mkdir()
    shutil.copy(lib.path, package / _native.library_file_name())
    monkeypatch.setattr(_native, "PACKAGE_DIR", package)
    with pytest.raises(LibraryNotFoundError) as info:
        _native.load(tmp_path / "explicit.so")
    message = str(info.value)
    assert f"the path given, {tmp_path / 'explicit.so'}, does not exist" in message
    assert "never replaced by another copy" in message
    assert info.value.tried == [(f"explicit path: {tmp_path / 'explicit.so'}", "does not exist")]
    assert isinstance(info.value, OSError)
    with pytest.raises(LibraryNotFoundError, match="explicit.so"):
        reducerkit.Store("counter", library=tmp_path / "explicit.so")


def test_a_missing_env_path_is_an_error_not_a_fallback(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path, lib: _native.Library) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("REDUCERKIT_LIB", "relative/missing.so")
    package = tmp_path / "package"
    package.mkdir()
    shutil.copy(lib.path, package / _native.library_file_name())
    monkeypatch.setattr(_native, "PACKAGE_DIR", package)
    with pytest.raises(LibraryNotFoundError) as info:
        _native.load()
    message = str(info.value)
    assert (f"$REDUCERKIT_LIB=relative/missing.so ({tmp_path / 'relative' / 'missing.so'}) "
            f"does not exist") in message
    assert "unset $REDUCERKIT_LIB" in message
    assert [where for where, _ in info.value.tried] == ["$REDUCERKIT_LIB: relative/missing.so"]


def test_a_package_without_the_library_says_how_to_get_it(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("REDUCERKIT_LIB", raising=False)
    monkeypatch.setattr(_native, "PACKAGE_DIR", tmp_path / "package")
    assert _native.find_library() == [
        ("package data", str(tmp_path / "package" / "libreducerkit.so"))]
    with pytest.raises(LibraryNotFoundError) as info:
        _native.load()
    message = str(info.value)
    assert "installed without the library" in message and "make wheel" in message
    assert "REDUCERKIT_LIB" in message


def test_a_relative_path_is_taken_from_the_working_directory(
        monkeypatch: pytest.MonkeyPatch, lib: _native.Library) -> None:
    monkeypatch.chdir(Path(lib.path).parent)
    assert _native.load(Path(lib.path).name) is lib


def test_explicit_path_wins_over_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
                                     lib: _native.Library) -> None:
    monkeypatch.setenv("REDUCERKIT_LIB", str(tmp_path / "missing.so"))
    assert _native.load(lib.path) is lib


def test_env_var_is_used(monkeypatch: pytest.MonkeyPatch, lib: _native.Library) -> None:
    monkeypatch.setenv("REDUCERKIT_LIB", lib.path)
    assert _native.load() is lib


def test_loader_does_not_touch_environ(lib: _native.Library) -> None:
    import os
    before = dict(os.environ)
    _native.load(lib.path)
    reducerkit.load_library(lib.path)
    assert dict(os.environ) == before


def test_a_file_that_is_not_a_library(tmp_path: Path) -> None:
    bogus = tmp_path / "libreducerkit.so"
    bogus.write_text("not an ELF file")
    with pytest.raises(LibraryNotFoundError, match="cannot be loaded"):
        _native.load(bogus)


def test_refuses_another_abi_version(tmp_path: Path) -> None:
    so = _compile(tmp_path, "abi2", "int rk_abi_version(void) { return 2; }\n")
    with pytest.raises(ABIVersionError) as info:
        _native.load(so)
    assert "ABI version 2" in str(info.value) and "only ABI version 1" in str(info.value)


def test_refuses_a_library_without_abi_version(tmp_path: Path) -> None:
    so = _compile(tmp_path, "other", "int something_else(void) { return 1; }\n")
    with pytest.raises(ABIVersionError, match="does not export rk_abi_version"):
        _native.load(so)


def test_refuses_a_library_missing_functions(tmp_path: Path) -> None:
    so = _compile(tmp_path, "partial", "int rk_abi_version(void) { return 1; }\n")
    with pytest.raises(ABIVersionError, match="lacks functions of reducerkit.h: rk_version"):
        _native.load(so)


def test_package_data_is_found(tmp_path: Path, lib: _native.Library,
                               child_env: dict[str, str]) -> None:
    """A copy of the library inside the installed package is found without $REDUCERKIT_LIB."""
    package = Path(reducerkit.__file__).resolve().parent
    target = tmp_path / "site" / "reducerkit"
    shutil.copytree(package, target, ignore=shutil.ignore_patterns("__pycache__", "*.so"))
    shutil.copy(lib.path, target / _native.library_file_name())
    env = dict(child_env)
    env.pop("REDUCERKIT_LIB")
    env["PYTHONPATH"] = str(tmp_path / "site")
    code = ("import reducerkit\n"
            "with reducerkit.Store('counter') as s:\n"
            "    s.send('increment'); print(s.state['count'], s.library.path)\n")
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                          text=True, timeout=cap(60))
    assert done.returncode == 0, done.stderr
    count, path = done.stdout.split()
    assert count == "1" and path == str(target / _native.library_file_name())


def test_raw_calls(lib: _native.Library) -> None:
    """The raw layer alone: create, send, read, destroy."""
    handle = ctypes.c_void_p()
    assert lib.rk_store_create(b"counter", None, ctypes.byref(handle)) == 0
    try:
        assert lib.rk_store_send(handle, b'"increment"') == 0
        assert lib.rk_store_send_n(handle, b'{"setCount": 7}xxx', 15) == 0
        state = lib.call_out_string(lib.rk_store_state, handle)
        assert reducerkit._json.loads(state)["count"] == 7
        assert lib.rk_store_send(handle, b'"nope"') == Status.ACTION
        assert "expected one of" in lib.last_error()
    finally:
        lib.rk_store_destroy(handle)
    assert lib.rk_store_send(handle, b'"increment"') == Status.INVALID_HANDLE
    lib.rk_store_destroy(handle)  # a destroyed handle is ignored
    lib.rk_store_destroy(None)    # NULL is a no-op
    features = reducerkit._json.loads(lib.features_json())
    assert {f["name"] for f in features} >= {"counter", "todos", "search"}


# ---- a library that reports ABI 1 but does not keep to it ------------------------------

def _off_abi_library(tmp_path: Path, name: str, *, version: str = '"9.9.9"',
                     features: str = '"[]"', state: str = '"{}"', patch: str = '"[]"') -> Path:
    """A fake library with every function of the table, ABI 1, returning the given texts
    (C string literals) from rk_version, rk_features, rk_store_get and rk_store_patch."""
    special = {"rk_abi_version", "rk_version", "rk_features", "rk_store_create", "rk_store_get",
               "rk_store_patch", "rk_store_version", "rk_free", "rk_status_string",
               "rk_last_error", "rk_store_destroy"}
    others = "".join(f"int {fn}(void) {{ return 0; }}\n" for fn in _native.FUNCTIONS
                     if fn not in special)
    source = f"""
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
static int out(const char *text, char **json, size_t *len) {{
    size_t n = strlen(text);
    *json = malloc(n + 1);
    memcpy(*json, text, n + 1);
    if (len) *len = n;
    return 0;
}}
static int store;
int rk_abi_version(void) {{ return 1; }}
const char *rk_version(void) {{ return {version}; }}
const char *rk_status_string(int status) {{ (void)status; return NULL; }}
const char *rk_last_error(void) {{ return NULL; }}
void rk_free(void *p) {{ free(p); }}
int rk_features(char **json, size_t *len) {{ return out({features}, json, len); }}
int rk_store_create(const char *f, const char *o, void **s) {{ (void)f; (void)o; *s = &store; return 0; }}
void rk_store_destroy(void *s) {{ (void)s; }}
int rk_store_version(void *s, uint64_t *v) {{ (void)s; *v = 1; return 0; }}
int rk_store_get(void *s, const char *p, char **json, size_t *len, uint64_t *v) {{
    (void)s; (void)p; *v = 1; return out({state}, json, len); }}
int rk_store_patch(void *s, uint64_t since, char **json, size_t *len, uint64_t *v) {{
    (void)s; (void)since; *v = 1; return out({patch}, json, len); }}
{others}"""
    return _compile(tmp_path, name, source)


@pytest.mark.parametrize("features,problem", [
    ('"not json"', "rk_features() returned text that is not JSON"),
    ('"{\\"name\\": \\"counter\\"}"', "rk_features() returned a JSON dict, not a list"),
    ('"[\\"counter\\"]"', "item 0 is not an object with a \"name\" string"),
])
def test_features_of_a_library_off_the_abi(tmp_path: Path, features: str, problem: str) -> None:
    """0.2.0 raised json.JSONDecodeError, or AttributeError in `python -m reducerkit
    features`: now the binding's own error, naming the library and the function."""
    so = _off_abi_library(tmp_path, "offabi", features=features)
    lib = _native.load(so)
    with pytest.raises(reducerkit.LibraryABIError) as raised:
        reducerkit.features(lib)
    assert isinstance(raised.value, reducerkit.ABIVersionError)
    assert str(so) in str(raised.value) and problem in str(raised.value)
    out, err = io.StringIO(), io.StringIO()
    assert cli.main(["--lib", str(so), "features"], out=out, err=err) == 1
    assert str(so) in err.getvalue() and problem in err.getvalue(), err.getvalue()


def test_a_library_without_a_version_string(tmp_path: Path) -> None:
    """0.2.0: AttributeError ('NoneType' object has no attribute 'decode')."""
    so = _off_abi_library(tmp_path, "noversion", version="NULL")
    with pytest.raises(reducerkit.LibraryABIError, match=r"rk_version\(\) returned NULL") as raised:
        _native.load(so)
    assert str(so) in str(raised.value)


@pytest.mark.parametrize("state,patch,function", [
    ('"{not json"', '"[]"', "rk_store_get() returned text that is not JSON"),
    ('"{}"', '"[{\\"op\\": \\"replace\\"}]"', "rk_store_patch() returned a patch that is not"),
    ('"{}"', '"nope"', "rk_store_patch() returned a patch that is not"),
])
def test_a_state_off_the_abi(tmp_path: Path, state: str, patch: str, function: str) -> None:
    so = _off_abi_library(tmp_path, "offstate", state=state, patch=patch)
    with reducerkit.Store("counter", library=so) as store:
        with pytest.raises(reducerkit.LibraryABIError) as raised:
            store.state
    assert str(so) in str(raised.value) and function in str(raised.value), raised.value


def test_a_null_status_string_does_not_hide_the_error(tmp_path: Path) -> None:
    lib = _native.load(_off_abi_library(tmp_path, "nostatus"))
    error = lib.error(int(Status.ACTION))
    assert isinstance(error, ActionError) and "status 3" in str(error)
