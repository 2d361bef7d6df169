"""python -m reducerkit stubs: the generated Python module imports and types every feature;
the C header escapes strings and names. (scripts/test-stubs.sh runs mypy and cc on them.)"""

from __future__ import annotations

import importlib.util
import io
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from conftest import REPO, cap

import reducerkit
from reducerkit import Library, Store, features
from reducerkit.cli import main
from reducerkit.stubs import _c_string, _snake, c_header, python_stubs
from reducerkit.testing import TestStore


@pytest.mark.parametrize("feature", ["counter", "todos", "search"])
def test_the_python_module_imports(lib: Library, feature: str, tmp_path: Path) -> None:
    out = io.StringIO()
    assert main(["--lib", lib.path, "stubs", feature], out=out, err=io.StringIO()) == 0
    path = tmp_path / f"{feature}_types.py"
    path.write_text(out.getvalue())
    spec = importlib.util.spec_from_file_location(f"{feature}_types", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    prefix = feature.capitalize()
    assert module.FEATURE == feature
    with getattr(module, f"{prefix}Store")(feature, clock="test") as store:  # a real Store
        assert isinstance(store.state, dict)


def test_the_counter_types() -> None:
    counter = {"name": "counter", "action_schema": {"oneOf": [
        {"anyOf": [{"const": "increment"}, {"type": "object"}]},
        {"type": "object", "properties": {"setCount": {"type": "integer"}},
         "required": ["setCount"]}]},
        "state_schema": {"type": "object", "properties": {
            "count": {"type": "integer"}, "fact": {"type": ["string", "null"]}},
            "required": ["count"]}}
    text = python_stubs(counter)
    assert "'count': int," in text and "'fact': NotRequired[str | None]," in text
    assert "CounterAction: TypeAlias = Literal['increment'] | CounterSetCount" in text
    assert "class CounterStore(_Store[CounterState, CounterAction]):" in text
    assert "SCHEMA_HASH: str | None = None" in text  # a description without a hash
    header = c_header(counter)
    assert "static inline rk_status counter_send_increment(rk_store *store)" in header
    assert "static inline rk_status counter_send_set_count(rk_store *store, int64_t value)" in header


def test_c_names_and_strings_are_escaped() -> None:
    assert _snake("setCount") == "set_count" and _snake("factButtonTapped") == "fact_button_tapped"
    assert _c_string('a"b\\c\n') == '"a\\"b\\\\c\\012"'
    assert _c_string("é") == '"\\303\\251"'
    odd = {"name": "odd-one", "action_schema": {"oneOf": [
        {"type": "object", "properties": {"say*/": {"type": "object", "properties": {
            "default": {"type": "string"}, "int": {"type": "boolean"}}}}}]},
        "state_schema": {"type": "object", "properties": {}}}
    header = c_header(odd)
    assert "odd_one_send_say(rk_store *store, const char *default_, bool int_)" in header
    assert '/** Sends "say*\\/" with its payload:' in header
    assert "'say*/'" in python_stubs(odd)


def test_unknown_feature(lib: Library) -> None:
    err = io.StringIO()
    assert main(["--lib", lib.path, "stubs", "countr"], out=io.StringIO(), err=err) == 1
    assert "unknown feature 'countr'" in err.getvalue()
    assert {f["name"] for f in features(lib)} >= {"counter"}


# ---- Schema text is data, never code (issue 21 §4) ----------------------------------------
# Tests/stubs/hostile_features.json is the full fixture: `make test-stubs` compiles its headers
# with gcc and clang (-std=c99, gnu17, c2x), runs them and type-checks its Python stubs. These
# tests pin each way out that the generator once left open, without a compiler where possible.

HOSTILE = REPO / "Tests" / "stubs" / "hostile_features.json"


def _feature(actions: list[Any], state: dict[str, Any] | None = None,
             name: str = "f") -> dict[str, Any]:
    return {"name": name, "action_schema": {"oneOf": actions},
            "state_schema": state or {"type": "object", "properties": {}}}


def _case(name: str, payload: Any) -> dict[str, Any]:
    return {"type": "object", "properties": {name: payload}, "required": [name]}


def _unit(name: str) -> dict[str, Any]:
    return {"anyOf": [{"const": name}, _case(name, {"type": ["object", "null"],
                                                    "maxProperties": 0})]}


def _c_code(header: str) -> str:
    """The header without its comments, and its string and character literals emptied: the
    code a compiler reads."""
    out: list[str] = []
    i, n = 0, len(header)
    while i < n:
        if header.startswith("/*", i):
            end = header.find("*/", i + 2)
            assert end >= 0, f"a comment does not end: {header[i:i + 80]!r}"
            i = end + 2
            out.append(" ")
        elif header.startswith("//", i):
            end = header.find("\n", i)
            i = n if end < 0 else end
        elif header[i] in "\"'":
            quote, i = header[i], i + 1
            while header[i] != quote:
                assert header[i] != "\n", "a literal runs on past its line"
                i += 2 if header[i] == "\\" else 1
            i += 1
            out.append(quote * 2)
        else:
            out.append(header[i])
            i += 1
    return "".join(out)


def _c_literals(header: str) -> list[bytes]:
    """The bytes of every string literal of the header outside comments (C escapes decoded)."""
    literals: list[bytes] = []
    for match in re.finditer(r'/\*.*?\*/|"((?:[^"\\\n]|\\.)*)"', header, re.S):
        if match.group(1) is None:
            continue
        raw, out, i = match.group(1), bytearray(), 0
        while i < len(raw):
            if raw[i] != "\\":
                out += raw[i].encode("utf-8")
                i += 1
            elif raw[i + 1] in "01234567":
                digits = re.match(r"[0-7]{1,3}", raw[i + 1:])
                assert digits is not None
                out.append(int(digits.group(), 8))
                i += 1 + len(digits.group())
            else:
                out += {"n": b"\n", "t": b"\t", "r": b"\r", "0": b"\0"}.get(
                    raw[i + 1], raw[i + 1].encode())
                i += 2
        literals.append(bytes(out))
    return literals


def test_an_enum_value_cannot_end_a_comment_and_become_code() -> None:
    value = "*/ enum { INJECTED = 42 }; /*"
    feature = _feature([_case("pick", {"type": "string", "enum": [value, "*/\n#error x\n/*"]})])
    header = c_header(feature)
    code = _c_code(header)
    assert re.search(r"\bINJECTED\b", code) is None and "#error" not in code
    assert _c_string(json.dumps(value)).encode() in header.encode()  # as JSON, in a literal


def test_no_schema_text_reaches_the_code_of_the_hostile_fixture() -> None:
    features = json.loads(HOSTILE.read_text(encoding="utf-8"))
    for feature in features:
        header = c_header(feature)
        code = _c_code(header)  # also: every comment ends where the generator ends it
        for needle in (r"\bINJECTED\b", r"\binjected\b", "#error", "#include <x>", r"\?\?"):
            assert re.search(needle, code) is None, (feature["name"], needle)
        assert header.isascii()
        for literal in _c_literals(header):
            assert len(literal) <= 4095  # what C99 compilers must support (-pedantic)


def test_c_identifiers_avoid_keywords_locals_and_each_other() -> None:
    keys = {k: {"type": "integer"} for k in ("b", "asm", "typeof", "bool", "linux", "store",
                                            "rk_b", "size_t", "__x", "_X")}
    feature = _feature([_case("setX", {"type": "integer"}), _case("set_x", {"type": "string"}),
                        _case("keys", {"type": "object", "properties": keys}),
                        _case("e", {"type": "string", "enum": ["a-b", "a_b"]}), _unit("x"),
                        _case("send_x", {"type": "string", "enum": ["v"]})])
    header = c_header(feature)
    assert "static inline rk_status f_send_set_x(rk_store *store, int64_t value)" in header
    assert "static inline rk_status f_send_set_x_2(rk_store *store, const char *value)" in header
    assert ("f_send_keys(rk_store *store, int64_t b, int64_t asm_, int64_t typeof_, "
            "int64_t bool_, int64_t linux_, int64_t store_2, int64_t rk_b_2, int64_t size_t_, "
            "int64_t x, int64_t x_2)") in header
    assert "    F_E_A_B,\n    F_E_A_B_2\n} f_e;" in header
    assert "static inline rk_status f_send_x(rk_store *store)" in header
    assert "typedef enum f_send_x_2 {" in header  # the enum of send_x is not the sender of x
    defined = re.findall(r"^static inline \S+ \*?(\w+)\(", header, re.M)
    assert len(defined) == len(set(defined))


def test_a_unit_case_sends_valid_json_for_any_name() -> None:
    names = ['say "hi"', "back\\slash", "new\nline", "nul\0", "??=", "é😀", "*/"]
    header = c_header(_feature([_unit(n) for n in names]))
    sent = re.findall(r'return rk_store_send\(store, ("(?:[^"\\]|\\.)*")\);', header)
    assert [json.loads(_c_literals(s)[0]) for s in sent] == names


def test_python_stubs_of_a_hostile_feature_name_compile_and_keep_it() -> None:
    name = 'f """ \\N{x} \\ */ é\n'
    text = python_stubs(_feature([_case('"""\\N{BULLET}', {"type": "string"})], name=name))
    namespace: dict[str, Any] = {}
    exec(compile(text, "f_types.py", "exec"), namespace)
    assert namespace["FEATURE"] == name
    assert namespace["__doc__"].startswith(f"Types of the ReducerKit feature {name!r}:")
    case = namespace["FNXUe9NBULLET"]
    assert list(case.__annotations__) == ['"""\\N{BULLET}']


@pytest.mark.parametrize("feature, names", [
    ("test", ["TestStore", "TestTestStore"]),   # the feature's Store is not reducerkit's TestStore
    ("typed", ["TypedDict2"]),                 # the case "dict" is not typing.TypedDict
    ("F", ["FEATURE2"]),                       # the case "EATURE" is not FEATURE
])
def test_python_names_never_shadow_what_the_module_uses(feature: str, names: list[str]) -> None:
    case = {"test": "store", "typed": "dict", "F": "EATURE"}[feature]
    text = python_stubs(_feature([_case(case, {"type": "integer"})], name=feature))
    namespace: dict[str, Any] = {}
    exec(compile(text, f"{feature}_types.py", "exec"), namespace)
    assert namespace["FEATURE"] == feature
    for n in names:
        assert n in namespace
    if feature == "test":
        assert issubclass(namespace["TestStore"], Store)
        assert issubclass(namespace["TestTestStore"], TestStore)


def test_generated_output_is_the_same_bytes_whatever_the_hash_seed() -> None:
    code = ("import json, sys; from reducerkit.stubs import c_header, python_stubs; "
            f"fs = json.load(open({str(HOSTILE)!r}, encoding='utf-8')); "
            "sys.stdout.buffer.write(b''.join((c_header(f) + python_stubs(f)).encode() "
            "for f in fs))")
    env = dict(os.environ)
    env["PYTHONPATH"] = str(Path(reducerkit.__file__).resolve().parents[1])
    outputs = {subprocess.run([sys.executable, "-c", code], capture_output=True, check=True,
                              env={**env, "PYTHONHASHSEED": seed}, timeout=cap(60)).stdout
               for seed in ("0", "1", "4242")}
    assert len(outputs) == 1
    features = json.loads(HOSTILE.read_text(encoding="utf-8"))
    assert outputs == {"".join(c_header(f) + python_stubs(f) for f in features).encode()}


def test_long_names_are_split_or_refused() -> None:
    keys = {"k" * 3000 + str(i): {"type": "integer"} for i in range(3)}
    header = c_header(_feature([_case("long", {"type": "object", "properties": keys})]))
    literals = _c_literals(header)
    assert max(len(lit) for lit in literals) <= 4095
    assert all(("k" * 3000 + str(i)).encode() in b"".join(literals) for i in range(3))
    with pytest.raises(ValueError, match=r"is 5002 bytes as JSON; the C header's string "
                                         r"literals hold at most 4087"):
        c_header(_feature([_unit("x" * 5000)]))
    assert "'" + "x" * 5000 + "'" in python_stubs(_feature([_unit("x" * 5000)]))


def test_text_that_is_not_unicode_is_refused_clearly() -> None:
    feature = _feature([_unit("ok"), _case("k", {"type": "object",
                                                 "properties": {"a\ud800": {}}})])
    for generate in (c_header, python_stubs):
        with pytest.raises(ValueError, match=r"stubs: feature\['action_schema'\]\['oneOf'\]\[1\]"
                                             r"\['properties'\]\['k'\]\['properties'\]: "
                                             r"'a\\ud800' is not Unicode text"):
            generate(feature)
    with pytest.raises(ValueError, match="no string 'name'"):
        c_header({"name": 3})


def test_the_command_reports_a_description_it_cannot_write(
        lib: Library, monkeypatch: pytest.MonkeyPatch) -> None:
    import reducerkit.testing.strategies as strategies
    monkeypatch.setattr(strategies, "feature_description",
                        lambda name, library: _feature([_unit("\ud800")], name=name))
    err = io.StringIO()
    assert main(["--lib", lib.path, "stubs", "--lang", "c", "counter"], out=io.StringIO(),
                err=err) == 1
    assert "is not Unicode text" in err.getvalue() and err.getvalue().count("\n") == 1


# ---- the schema contract: stubs carry the schema hash they were generated from ------------

def _counter_description(lib: Library, schema_hash: str | None) -> dict[str, Any]:
    description = next(f for f in features(lib) if f["name"] == "counter")
    assert len(description["schema_hash"]) == 16
    if schema_hash is not None:
        description["schema_hash"] = schema_hash
    return description


def _import(text: str, path: Path) -> Any:
    path.write_text(text, encoding="utf-8")
    spec = importlib.util.spec_from_file_location(path.stem, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_a_typed_store_of_another_schema_fails_at_creation(lib: Library, tmp_path: Path) -> None:
    from reducerkit import SchemaMismatchError, store as store_module
    actual = _counter_description(lib, None)["schema_hash"]
    same = _import(python_stubs(_counter_description(lib, None)), tmp_path / "same_types.py")
    assert same.SCHEMA_HASH == actual
    with same.CounterStore("counter", clock="test", library=lib) as store:
        store.send("increment")
    with same.CounterTestStore("counter", library=lib) as ts:
        ts.send("increment", count=1)
    other = _import(python_stubs(_counter_description(lib, "0123456789abcdef")),
                    tmp_path / "other_types.py")
    live = len(store_module._live_cores)
    for cls in (other.CounterStore, other.CounterTestStore):
        with pytest.raises(SchemaMismatchError) as raised:
            cls("counter", library=lib)
        message = str(raised.value)
        assert (f"generated from schema 0123456789abcdef, library has {actual}: regenerate with "
                f"python -m reducerkit stubs counter --lib {lib.path}") in message
        assert raised.value.status == reducerkit.Status.MISUSE
        assert isinstance(raised.value, reducerkit.MisuseError)
    assert len(store_module._live_cores) == live  # no store was made


def test_a_hostile_schema_hash_stays_data(lib: Library, tmp_path: Path) -> None:
    hostile = "x'\"\"\"\n*/ #include <x> ??= \\"
    module = _import(python_stubs(_counter_description(lib, hostile)), tmp_path / "h_types.py")
    assert module.SCHEMA_HASH == hostile
    header = c_header(_counter_description(lib, hostile))
    assert f"#define COUNTER_SCHEMA_HASH {_c_string(hostile)}\n" in header
    if shutil.which("cc"):  # the literal reads back as the text, and nothing else became code
        (tmp_path / "counter_actions.h").write_text(header)
        (tmp_path / "p.c").write_text('#include <stdio.h>\n#include "counter_actions.h"\n'
                                      "int main(void) { fputs(COUNTER_SCHEMA_HASH, stdout); "
                                      "return 0; }\n")
        subprocess.run(["cc", "-std=c99", "-Wall", "-Wextra", "-pedantic", "-Werror",
                        f"-I{REPO / 'include'}", f"-I{tmp_path}", str(tmp_path / "p.c"), "-o",
                        str(tmp_path / "p")], check=True, timeout=cap(120))
        shown = subprocess.run([str(tmp_path / "p")], capture_output=True, timeout=cap(60),
                               check=True).stdout
        assert shown.decode() == hostile
    with pytest.raises(ValueError, match="schema_hash is a int"):
        python_stubs({**_counter_description(lib, None), "schema_hash": 7})


_C_PROGRAM = r"""
#include <stdio.h>
#include "counter_actions.h"
int main(void) {
    rk_store *store = (rk_store *)1;
    char message[512];
    rk_status status = counter_store_create("{\"clock\":\"test\"}", &store, message, sizeof message);
    if (status == RK_OK) {
        status = counter_send_increment(store);
        rk_store_destroy(store);
        printf("created %d\n", (int)status);
        return 0;
    }
    printf("status %d store %s: %s\n", (int)status, store == NULL ? "NULL" : "set", message);
    return 3;
}
"""


@pytest.mark.skipif(not shutil.which("cc"), reason="no C compiler")
@pytest.mark.parametrize("mismatch", [False, True])
def test_the_c_create_function_checks_the_schema_hash(lib: Library, tmp_path: Path,
                                                      mismatch: bool) -> None:
    actual = _counter_description(lib, None)["schema_hash"]
    wanted = "0123456789abcdef" if mismatch else None
    (tmp_path / "counter_actions.h").write_text(c_header(_counter_description(lib, wanted)))
    (tmp_path / "main.c").write_text(_C_PROGRAM)
    libdir = os.path.dirname(lib.path)
    subprocess.run(["cc", "-std=c99", "-Wall", "-Wextra", "-pedantic", "-Werror",
                    f"-I{REPO / 'include'}", f"-I{tmp_path}", str(tmp_path / "main.c"), "-o",
                    str(tmp_path / "main"), f"-L{libdir}", f"-l:{os.path.basename(lib.path)}",
                    f"-Wl,-rpath,{libdir}"], check=True, timeout=cap(120))
    run = subprocess.run([str(tmp_path / "main")], capture_output=True, text=True,
                         timeout=cap(60))
    if not mismatch:
        assert (run.returncode, run.stdout) == (0, "created 0\n"), run.stderr
        return
    assert run.returncode == 3, run.stdout + run.stderr
    assert run.stdout == (
        f'status 9 store NULL: stubs of feature "counter": generated from schema '
        f"0123456789abcdef, library has {actual}: regenerate with python -m reducerkit stubs "
        f"--lang c counter\n")


def test_the_c_scanner_finds_the_features_own_name_only(tmp_path: Path) -> None:
    # A "name" inside a schema or an endpoint, or another feature's entry, is not the feature.
    if not shutil.which("cc"):
        pytest.skip("no C compiler")
    listing = json.dumps([
        {"name": "a", "requests": [{"name": "counter"}], "schema_hash": "1111111111111111"},
        {"name": "b\"counter", "state_schema": {"properties": {"name": {"const": "counter"}}},
         "schema_hash": "2222222222222222"},
        {"schema_hash": "3333333333333333", "name": "counter", "x": [{"name": "q"}]},
        {"name": "nohash"},
    ])
    program = r"""
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "counter_actions.h"
int main(int argc, char **argv) {
    char out[64];
    int i;
    for (i = 2; i < argc; i++) {
        int found = rk_stubs_schema_hash(argv[1], argv[i], out, sizeof out);
        printf("%s %d [%s]\n", argv[i], found, out);
    }
    return 0;
}
"""
    (tmp_path / "counter_actions.h").write_text(
        c_header({"name": "counter", "action_schema": {}, "state_schema": {}}))
    (tmp_path / "scan.c").write_text(program)
    subprocess.run(["cc", "-std=c99", "-Wall", "-Wextra", "-pedantic", "-Werror", "-c",
                    f"-I{REPO / 'include'}", f"-I{tmp_path}", str(tmp_path / "scan.c"), "-o",
                    str(tmp_path / "scan.o")], check=True, timeout=cap(120))
    # Linked without the library: the scanner calls nothing of it.
    subprocess.run(["cc", str(tmp_path / "scan.o"), "-o", str(tmp_path / "scan"),
                    "-Wl,--unresolved-symbols=ignore-all"], check=True, timeout=cap(120))
    run = subprocess.run([str(tmp_path / "scan"), listing, '"counter"', '"nohash"', '"zz"',
                          '"a"'], capture_output=True, text=True, timeout=cap(60), check=True)
    assert run.stdout.splitlines() == ['"counter" 1 [3333333333333333]', '"nohash" 1 []',
                                       '"zz" 0 []', '"a" 1 [1111111111111111]']
