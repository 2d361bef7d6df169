"""python -m reducerkit schema diff: hand-made pairs of schemas, each change listed and the
breaking ones marked; the exit status; inputs that cannot be read; a library as an input."""

from __future__ import annotations

import copy
import io
import json
from pathlib import Path
from typing import Any

import pytest

from reducerkit import Library, features
from reducerkit._schemadiff import diff_features, narrowings
from reducerkit.cli import main

INT = {"type": "integer", "minimum": -9223372036854775808, "maximum": 9223372036854775807}


def _unit(name: str) -> dict[str, Any]:
    return {"anyOf": [{"const": name}, {"type": "object", "properties": {
        name: {"type": ["object", "null"], "maxProperties": 0}}, "required": [name],
        "additionalProperties": False}]}


def _case(name: str, payload: Any) -> dict[str, Any]:
    return {"type": "object", "properties": {name: payload}, "required": [name],
            "additionalProperties": False}


def _feature() -> dict[str, Any]:
    return {
        "name": "board",
        "action_schema": {"oneOf": [
            _unit("reset"),
            _case("score", {"type": "object", "properties": {
                "team": {"type": "string", "enum": ["home", "away"]}, "points": INT},
                "required": ["team", "points"], "additionalProperties": False}),
            _case("rename", {"type": "string"}),
        ]},
        "state_schema": {"type": "object", "properties": {
            "home": INT, "away": INT, "note": {"type": ["string", "null"]}},
            "required": ["home", "away"], "additionalProperties": False},
        "requests": [{"name": "save", "payload_schema": INT,
                      "response_schema": {"type": "string"}}],
        "state_version": 1,
        "schema_hash": "0000000000000001",
    }


def _diff(old: dict[str, Any], new: dict[str, Any]) -> list[tuple[str, str, bool]]:
    return [(c.where, c.what, c.breaking) for c in diff_features([old], [new])
            if c.where != "schema_hash"]


def _breaking(changes: list[tuple[str, str, bool]]) -> list[str]:
    return [f"{where}: {what}" for where, what, breaking in changes if breaking]


def test_the_same_schemas_have_no_changes() -> None:
    assert diff_features([_feature()], [_feature()]) == []


def test_a_removed_action_breaks_and_a_rename_is_guessed() -> None:
    new = _feature()
    new["action_schema"]["oneOf"][2] = _case("retitle", {"type": "string"})
    changes = _diff(_feature(), new)
    assert _breaking(changes) == ["action 'rename': removed (renamed to 'retitle'?)"]
    assert ("action 'retitle'", "added", False) in changes


def test_an_added_action_and_a_widened_payload_are_compatible() -> None:
    new = _feature()
    new["action_schema"]["oneOf"].append(_unit("undo"))
    score = new["action_schema"]["oneOf"][1]["properties"]["score"]
    score["properties"]["team"]["enum"].append("neutral")
    score["properties"]["points"] = {"type": "number"}
    changes = _diff(_feature(), new)
    assert _breaking(changes) == []
    assert ("action 'undo'", "added", False) in changes
    assert ("action 'score'", "payload widened (every old payload is accepted)", False) in changes


@pytest.mark.parametrize(("edit", "reason"), [
    (lambda p: p["properties"].update(points={"type": "string"}),
     "at /points: type integer became string"),
    (lambda p: p["properties"]["team"].update(enum=["home"]), 'at /team: "away" no longer accepted'),
    (lambda p: p["properties"].update(points={**INT, "minimum": 0}),
     "at /points: minimum -9223372036854775808 became 0"),
    (lambda p: (p["properties"].update(bonus=INT), p["required"].append("bonus")),
     "at /bonus: field added, required"),
    (lambda p: p["properties"].pop("points"), "at /points: field removed"),
])
def test_a_narrowed_payload_breaks(edit: Any, reason: str) -> None:
    new = _feature()
    edit(new["action_schema"]["oneOf"][1]["properties"]["score"])
    assert f"action 'score': payload narrowed {reason}" in _breaking(_diff(_feature(), new))


def test_a_state_change_without_a_version_bump_breaks() -> None:
    new = _feature()
    new["state_schema"]["properties"]["period"] = INT
    new["state_schema"]["required"].append("period")
    changes = _diff(_feature(), new)
    assert ("state /period", "field added", False) in changes
    [state] = _breaking(changes)
    assert state.startswith("state: schema changed without a state_version bump "
                            "(state_version 1 -> 1)")
    assert "at /period: field added, required" in state
    new["state_version"] = 2  # with a bump (and its migration), compatible
    changes = _diff(_feature(), new)
    assert _breaking(changes) == []
    assert ("state_version", "1 -> 2", False) in changes


def test_a_removed_or_renamed_state_field_breaks_even_with_a_bump() -> None:
    new = _feature()
    props = new["state_schema"]["properties"]
    props["homeScore"] = props.pop("home")
    new["state_schema"]["required"] = ["homeScore", "away"]
    new["state_version"] = 2
    assert _breaking(_diff(_feature(), new)) == [
        "state /home: field removed (renamed to '/homeScore'?)"]


def test_a_state_version_that_goes_down_breaks() -> None:
    old = _feature()
    old["state_version"] = 3
    assert _breaking(_diff(old, _feature())) == [
        "state_version: 3 -> 1: it went down, snapshots of the old library will not restore"]


def test_endpoints() -> None:
    new = _feature()
    new["requests"][0]["response_schema"] = {"type": "string", "enum": ["ok"]}
    new["requests"][0]["payload_schema"] = {"type": "number"}
    new["requests"].append({"name": "load", "payload_schema": {}, "response_schema": {}})
    changes = _diff(_feature(), new)
    assert _breaking(changes) == [
        "endpoint 'save': response narrowed at /: only [\"ok\"] are accepted now",
        "endpoint 'save': payload widened (hosts receive what they did not before): "
        "at /: type number became integer"]
    assert ("endpoint 'load'", "added", False) in changes
    gone = _feature()
    gone["requests"] = []
    assert _breaking(_diff(_feature(), gone)) == [
        "endpoint 'save': removed (a host that provides it is refused)"]


def test_features_removed_and_added() -> None:
    other = {**_feature(), "name": "other"}
    changes = diff_features([_feature()], [other])
    assert [(c.feature, c.what, c.breaking) for c in changes] == [
        ("board", "feature removed", True), ("other", "feature added", False)]


def test_narrowings_of_any_of_branches() -> None:
    assert narrowings({"type": ["string", "null"]}, {"type": "string"}) == [
        "at /: type null|string became string"]
    assert narrowings({"type": "integer"}, {"anyOf": [{"type": "string"}, {"type": "number"}]}) \
        == []


# ---- the command ---------------------------------------------------------------------------

def _cli(*args: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    return main(list(args), out=out, err=err), out.getvalue(), err.getvalue()


def _write(path: Path, value: Any) -> str:
    path.write_text(json.dumps(value), encoding="utf-8")
    return str(path)


def test_the_command_exit_statuses(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # No library is loaded for JSON inputs: a missing one does not matter.
    monkeypatch.setenv("REDUCERKIT_LIB", str(tmp_path / "missing.so"))
    old = _write(tmp_path / "old.json", [_feature()])
    same = _write(tmp_path / "same.json", _feature())  # one feature's object
    status, out, err = _cli("schema", "diff", old, same)
    assert (status, out, err) == (0, "no changes\n0 breaking change(s), 0 compatible\n", "")
    broken = copy.deepcopy(_feature())
    broken["action_schema"]["oneOf"].pop(0)
    status, out, _ = _cli("schema", "diff", old, _write(tmp_path / "new.json", [broken]))
    assert status == 1
    assert out.splitlines()[:2] == ["feature 'board':", "  BREAKING  action 'reset': removed"]
    assert out.endswith("1 breaking change(s), 0 compatible\n")
    for bad, needle in [(str(tmp_path / "none.json"), "cannot be read"),
                        (_write(tmp_path / "num.json", 7), "expected rk_features() JSON"),
                        (_write(tmp_path / "names.json", [{"title": "x"}]), "expected rk_features"),
                        (str(tmp_path / "text.json"), "neither a library nor JSON")]:
        if bad.endswith("text.json"):
            Path(bad).write_text("{not json", encoding="utf-8")
        status, _, err = _cli("schema", "diff", old, bad)
        assert status == 2 and needle in err, err
    assert _cli("schema")[0] == 2
    assert _cli("schema", "diff", old)[0] == 2


def test_a_library_as_an_input(lib: Library, tmp_path: Path) -> None:
    listing = _write(tmp_path / "now.json", features(lib))
    status, out, _ = _cli("schema", "diff", listing, lib.path)
    assert (status, out) == (0, "no changes\n0 breaking change(s), 0 compatible\n")
    older = features(lib)
    counter = next(f for f in older if f["name"] == "counter")
    counter["action_schema"]["oneOf"].append(_unit("double"))
    status, out, _ = _cli("schema", "diff", _write(tmp_path / "older.json", older), lib.path)
    assert status == 1 and "BREAKING  action 'double': removed" in out
