"""python -m reducerkit stubs: the generated Python module imports and types every feature;
the C header escapes strings and names. (scripts/test-stubs.sh runs mypy and cc on them.)"""

from __future__ import annotations

import importlib.util
import io
from pathlib import Path

import pytest

from reducerkit import Library, features
from reducerkit.cli import main
from reducerkit.stubs import _c_string, _snake, c_header, python_stubs


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
    assert "CounterStore: TypeAlias = Store[CounterState, CounterAction]" in text
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
    assert "*/ " not in header.split("#define RK_STUBS_ODD_ONE_H")[1].split("Sends say")[1][:5]
    assert "'say*/'" in python_stubs(odd)


def test_unknown_feature(lib: Library) -> None:
    err = io.StringIO()
    assert main(["--lib", lib.path, "stubs", "countr"], out=io.StringIO(), err=err) == 1
    assert "unknown feature 'countr'" in err.getvalue()
    assert {f["name"] for f in features(lib)} >= {"counter"}
