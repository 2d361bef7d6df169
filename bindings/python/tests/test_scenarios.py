"""The cross-language scenarios of Tests/scenarios/ (also run by the Swift runner and
reducerkit-check), the format's JSON Schema, ``python -m reducerkit check`` and the pytest
plugin."""

from __future__ import annotations

import copy
import importlib.metadata
import io
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from conftest import REPO, SCENARIOS, cap

from reducerkit import Library
from reducerkit.cli import main
from reducerkit.testing import (
    ScenarioError,
    ScenarioFailure,
    load_scenario,
    run_scenario,
    scenario_files,
    validate_scenario,
)
from reducerkit.testing.scenarios import STEP_KINDS, check_files, json_match

FILES = scenario_files(SCENARIOS) if SCENARIOS.is_dir() else []
WRONG = sorted((SCENARIOS / "wrong").glob("*.wrong.json")) if SCENARIOS.is_dir() else []
# Tests/scenarios/hostile: NAME.pass.json and NAME.fail.json, the verdict every runner gives.
HOSTILE = sorted((SCENARIOS / "hostile").glob("*.json")) if SCENARIOS.is_dir() else []
SCHEMA = SCENARIOS / "scenario.schema.json"
CHECK = REPO / "build" / "reducerkit-check"
# How long the runners' steps wait for running effects (they return once effects are idle).
TIMEOUT_MS = ["--timeout-ms", str(round(cap(10) * 1000))]


def test_there_are_scenarios() -> None:
    if not SCENARIOS.is_dir():
        pytest.skip(f"{SCENARIOS} not found (not a checkout)")
    assert len(FILES) >= 3
    assert all(f.name.endswith(".scenario.json") for f in FILES)
    features = {load_scenario(f)["feature"] for f in FILES}
    assert features >= {"counter", "todos", "search"}
    assert len(WRONG) >= 10


@pytest.mark.parametrize("path", FILES, ids=[f.name for f in FILES])
def test_scenario(lib: Library, path: Path) -> None:
    run_scenario(path, lib)


@pytest.mark.parametrize("path", WRONG, ids=[f.stem for f in WRONG])
def test_a_wrong_scenario_fails(lib: Library, path: Path) -> None:
    with pytest.raises((ScenarioFailure, ScenarioError)):
        run_scenario(path, lib)


# ---- the JSON Schema of the format agrees with the runners ----------------------------------

def _validator() -> Any:
    jsonschema = pytest.importorskip("jsonschema")
    schema = json.loads(SCHEMA.read_text())
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


@pytest.mark.parametrize("path", FILES, ids=[f.name for f in FILES])
def test_the_schema_accepts_every_scenario(path: Path) -> None:
    errors = list(_validator().iter_errors(json.loads(path.read_text())))
    assert not errors, [e.message for e in errors]


MALFORMED = [
    {"name": "x", "feature": "counter", "steps": [{"send": "increment", "receive": "increment"}]},
    {"name": "x", "feature": "counter", "clock": "test", "steps": []},
    {"name": "x", "feature": "counter", "options": {"clok": "test"}, "steps": []},
    {"name": "x", "feature": "counter", "options": {"clock": "fast"}, "steps": []},
    {"name": "x", "feature": "counter", "options": {"initial_state": 5}, "steps": []},
    {"name": "x", "feature": "counter", "options": {"provide": "numberFact"}, "steps": []},
    {"name": "x", "feature": "counter", "exhaustive": "no", "steps": []},
    {"name": "x", "feature": "counter"},
    {"feature": "counter", "steps": []},
    {"name": "x", "feature": "counter", "steps": [{"advance_ms": -1}]},
    {"name": "x", "feature": "counter", "steps": [{"advance_ms": 1.5}]},
    {"name": "x", "feature": "counter", "steps": [{"resolve": 1}]},
    {"name": "x", "feature": "counter", "steps": [{"resolve": 0, "response": 1}]},
    {"name": "x", "feature": "counter", "steps": [{"fail": 1}]},
    {"name": "x", "feature": "counter", "steps": [{"request": {"name": "numberFact"}}]},
    {"name": "x", "feature": "counter", "steps": [{"request": {"name": "n", "payload": 1, "x": 1}}]},
    {"name": "x", "feature": "counter", "steps": [{"finish": False}]},
    {"name": "x", "feature": "counter", "steps": [{"receive": "x", "error": {"status": "RK_ERR_ACTION"}}]},
    {"name": "x", "feature": "counter", "steps": [{"send": "x", "error": {"status": "ACTION"}}]},
    {"name": "x", "feature": "counter", "steps": [{"send": "x", "error": {"message": "m"}}]},
    {"name": "x", "feature": "counter", "steps": [{"send": "x", "state": {}, "error": {"status": "RK_ERR_ACTION"}}]},
    {"name": "x", "feature": "counter", "steps": [{"advance_ms": 1, "state": {}}]},
    {"name": "x", "feature": "counter", "steps": [{"cancelled": "1"}]},
    # The strings of the format itself hold no U+0000; name and feature are not empty.
    {"name": "", "feature": "counter", "steps": []},
    {"name": "x", "feature": "counter\u0000garbage", "steps": []},
    {"name": "x\u0000", "feature": "counter", "steps": []},
    {"name": "x", "feature": "counter", "steps": [{"advance_ms\u0000": 1}]},
    {"name": "x", "feature": "counter", "steps": [{"send\u0000x": "increment"}]},
    {"name": "x", "feature": "counter", "steps": [{"fail": 1, "message": "a\u0000b"}]},
    {"name": "x", "feature": "counter", "steps": [{"request": {"name": "n\u0000", "payload": 1}}]},
    {"name": "x", "feature": "counter", "options": {"provide": ["numberFact\u0000"]}, "steps": []},
    {"name": "x", "feature": "counter",
     "steps": [{"send": "x", "error": {"status": "RK_ERR_ACTION", "message": "\u0000"}}]},
    # Integers in their C type's range.
    {"name": "x", "feature": "counter", "steps": [{"advance_ms": 2**63}]},
    {"name": "x", "feature": "counter", "steps": [{"resolve": 2**64, "response": 1}]},
    {"name": "x", "feature": "counter", "steps": [{"cancelled": 0}]},
    {"name": "x", "feature": "counter", "steps": [{"request": {"id": 2**64 + 1, "name": "n", "payload": 1}}]},
    {"name": "x", "feature": "counter", "options": {"provide": ["numberFact", "numberFact"]}, "steps": []},
]


@pytest.mark.parametrize("scenario", MALFORMED, ids=range(len(MALFORMED)))
def test_the_schema_and_the_runners_reject_the_same_malformed_scenarios(
        lib: Library, scenario: dict[str, Any], tmp_path: Path) -> None:
    assert list(_validator().iter_errors(scenario)), "the schema accepts it"
    with pytest.raises(ScenarioError):
        validate_scenario(scenario)
    if CHECK.exists():  # reducerkit-check says the same
        path = tmp_path / "bad.scenario.json"
        path.write_text(json.dumps(scenario))
        done = subprocess.run([str(CHECK), *TIMEOUT_MS, "--lib", lib.path, str(path)],
                              capture_output=True, text=True, timeout=cap(60))
        assert done.returncode == 1, done.stdout + done.stderr
        assert "0 passed, 1 failed" in done.stdout


def test_wrong_scenarios_are_valid_except_the_malformed_ones() -> None:
    validator = _validator()
    for path in WRONG:
        errors = list(validator.iter_errors(json.loads(path.read_text())))
        assert bool(errors) == (path.stem.split(".")[0] in ("malformed_step", "old_format")), path


# A scenario with every kind of step and every optional member: each mutation of it is
# accepted by both the schema and the library (rk_scenario_parse), or refused by both.
_FULL: dict[str, Any] = {
    "name": "every member", "feature": "counter",
    "options": {"clock": "test", "initial_state": {"count": 1}, "provide": ["numberFact"]},
    "exhaustive": True,
    "steps": [
        {"send": "increment", "state": {"count": 2}},
        {"send": "x", "error": {"status": "RK_ERR_ACTION", "message": "m"}},
        {"receive": "y", "state": {}},
        {"advance_ms": 5},
        {"request": {"id": 1, "name": "numberFact", "payload": 1}},
        {"resolve": 1, "response": "r", "error": {"status": "RK_ERR_RESPONSE"}},
        {"fail": 2, "message": "m", "error": {"status": "RK_ERR_INVALID_ARGUMENT", "message": "f"}},
        {"cancelled": 3},
        {"finish": True},
    ],
    "final_state": {"count": 2},
}
# What a mutation puts in place of a member: every JSON type, the edges of the integer ranges
# (1.0 and 1e3 are integers to JSON Schema, and to the format), U+0000 in a string.
_VALUES: list[Any] = [None, True, False, 0, -1, 1, 1.0, 1.5, -0.0, 1e3, 2**63 - 1, 2**63,
                      2**64 - 1, 2**64, "", "x", "a\u0000b", "test", "live", "RK_ERR_ACTION",
                      "RK_OK", [], ["numberFact"], ["a", "a"], [1], {}, {"status": "RK_ERR_JSON"}]


def _objects(doc: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """The paths of the format's own objects in _FULL (not of the values they carry)."""
    found = [path]
    for key, value in (doc.items() if isinstance(doc, dict) else []):
        if key in ("options", "request", "error") and isinstance(value, dict):
            found += _objects(value, path + (key,))
        elif key == "steps":
            for i, step in enumerate(value):
                found += _objects(step, path + (key, i))
    return found


def _at(doc: Any, path: tuple[Any, ...]) -> Any:
    for part in path:
        doc = doc[part]
    return doc


def _mutations() -> list[Any]:
    out: list[Any] = []
    for path in _objects(_FULL):
        for key in list(_at(_FULL, path)):
            removed = copy.deepcopy(_FULL)
            del _at(removed, path)[key]
            out.append(removed)
            for value in _VALUES:
                changed = copy.deepcopy(_FULL)
                _at(changed, path)[key] = value
                out.append(changed)
        for extra in ("x", "send", "state", "error", "message", "response", "id", "clock"):
            added = copy.deepcopy(_FULL)
            if extra not in _at(added, path):
                _at(added, path)[extra] = 1
                out.append(added)
    for value in _VALUES:  # a step that is not an object, or a document that is not one
        changed = copy.deepcopy(_FULL)
        changed["steps"][0] = value
        out += [changed, value]
    return out


def test_the_schema_and_the_library_agree_on_every_mutation(lib: Library) -> None:
    validator = _validator()
    disagree = []
    mutations = _mutations()
    assert len(mutations) > 1000
    for doc in mutations:
        schema_ok = validator.is_valid(doc)
        try:
            validate_scenario(doc, lib)
            library_ok = True
        except ScenarioError as e:
            library_ok = False
            assert len(str(e)) < 1000 and "\u0000" not in str(e), str(e)
        if schema_ok != library_ok:
            disagree.append((json.dumps(doc)[:300], schema_ok, library_ok))
    assert not disagree, disagree[:5]


def test_the_normal_form(lib: Library, tmp_path: Path) -> None:
    normal = load_scenario(SCENARIOS / "counter_basics.scenario.json", lib)
    assert normal["options"] == {"clock": "test", "initial_state": None, "provide": []}
    assert normal["exhaustive"] is True
    assert all(next(iter(step)) in STEP_KINDS for step in normal["steps"])
    text = json.dumps({"name": "n", "feature": "counter", "options": {"clock": "live"},
                       "steps": [{"state": None, "send": "increment"},
                                 {"message": "m", "fail": 1.0},
                                 {"request": {"payload": 1, "id": 1e3, "name": "n"}},
                                 {"advance_ms": 2**63 - 1}, {"resolve": 2**64 - 1, "response": 1}],
                       "final_state": None})
    path = tmp_path / "normal.scenario.json"
    path.write_text(text)
    normal = load_scenario(path, lib)
    assert normal == {
        "name": "n", "feature": "counter",
        "options": {"clock": "live", "initial_state": None, "provide": []}, "exhaustive": True,
        "steps": [{"send": "increment"}, {"fail": 1, "message": "m"},
                  {"request": {"name": "n", "payload": 1, "id": 1000}},
                  {"advance_ms": 2**63 - 1}, {"resolve": 2**64 - 1, "response": 1}]}
    assert [list(step) for step in normal["steps"]][1] == ["fail", "message"]


# ---- the format's comparison (rk_json_match) --------------------------------------------------

@pytest.mark.parametrize(("expected", "actual", "difference"), [
    ({"total": 500}, {"total": 500, "coupon": None}, None),  # the request payload
    ({"total": 500, "coupon": None}, {"total": 500}, None),
    ({"b": 1, "a": [1, 2.0]}, {"a": [1.0, 2], "b": 1.0}, None),
    (2**63, 2**63 - 1, "$: expected 9223372036854775808, actual 9223372036854775807"),
    (2**64 + 1, 2**64 + 1, None),
    (True, 1, "$: expected true, actual 1"),
    ({"a": None}, {"a": 0}, "$.a: expected null, actual 0"),
    ([1], [1, 2], "$[1]: expected (missing), actual 2"),
    ({"odd key": {"x": "é"}}, {"odd key": {"x": "e\u0301"}},
     "$['odd key'].x: expected \"é\", actual \"e\u0301\""),
    ({"n": "a\u0000"}, {"n": "a"}, '$.n: expected "a\\u0000", actual "a"'),
])
def test_json_match(lib: Library, expected: Any, actual: Any, difference: str | None) -> None:
    assert json_match(expected, actual, lib) == difference


def test_json_match_bounds_its_description(lib: Library) -> None:
    difference = json_match({str(i): "x" * 500 for i in range(30)}, {}, lib)
    assert difference is not None
    lines = difference.splitlines()
    assert len(lines) == 11 and lines[-1] == "(more differences not shown)"
    assert all(len(line) < 200 for line in lines)
    with pytest.raises(Exception, match="expected: "):
        json_match(b"{", b"1", lib)


# ---- hostile files: every runner gives each the verdict its name says ------------------------

@pytest.mark.parametrize("path", HOSTILE, ids=[f.name for f in HOSTILE])
def test_a_hostile_file_gets_its_verdict(lib: Library, path: Path) -> None:
    if path.name.endswith(".pass.json"):
        run_scenario(path, lib)
    else:
        with pytest.raises((ScenarioFailure, ScenarioError)):
            run_scenario(path, lib)


def _blocks(output: str) -> dict[str, list[str]]:
    """reducerkit-check's output by file: its line, then what failed."""
    blocks: dict[str, list[str]] = {}
    current: list[str] = []
    for line in output.splitlines():
        if line.startswith(("ok     ", "FAILED ")):
            current = [line]
            blocks[line.split(" ", 1)[1].lstrip().split(": ", 1)[0]] = current
        elif line.startswith(" "):
            current.append(line)
    return blocks


@pytest.mark.skipif(not CHECK.exists(), reason="build/reducerkit-check not built (make)")
def test_reducerkit_check_and_python_agree_on_hostile_files(lib: Library) -> None:
    """The same verdict, and the same kind of message: the library's own message for a file
    that is not a scenario, the same differences for values that differ."""
    assert len(HOSTILE) >= 15 and any(f.name.endswith(".pass.json") for f in HOSTILE)
    paths = [os.path.relpath(f, REPO) for f in HOSTILE]
    c = subprocess.run([str(CHECK), "--lib", lib.path, *paths], capture_output=True,
                       text=True, cwd=REPO, timeout=120)
    cwd = os.getcwd()
    os.chdir(REPO)
    try:
        status, out, _ = _check(lib, *paths)
    finally:
        os.chdir(cwd)
    assert status == c.returncode == 1
    python, native = _blocks(out), _blocks(c.stdout)
    assert list(python) == list(native) == paths
    for path in paths:
        want_pass = path.endswith(".pass.json")
        assert python[path][0].startswith("ok ") == want_pass, python[path]
        assert python[path][0] == native[path][0]
        if not want_pass and not native[path][1].startswith("    step "):
            assert python[path][1] == native[path][1]  # the library's message, verbatim
        assert ([line for line in python[path] if line.startswith("      $")]
                == [line for line in native[path] if line.startswith("      $")])
    passed = sum(f.name.endswith(".pass.json") for f in HOSTILE)
    assert out.splitlines()[-1] == c.stdout.splitlines()[-1] == \
        f"{passed} passed, {len(HOSTILE) - passed} failed"


def test_a_directory_run_reports_every_file_and_does_not_follow_directory_links(
        lib: Library, tmp_path: Path) -> None:
    """One bad file never stops the run (the C runner stopped at a NUL key, Python at a file
    nested 1000 deep), and a link to a directory is not followed (a link to itself ran each
    file again and again, two never returned)."""
    for f in HOSTILE:
        (tmp_path / (f.name[: -len(".json")] + ".scenario.json")).write_bytes(f.read_bytes())
    sub = tmp_path / "sub"
    sub.mkdir()
    (sub / "z_last.scenario.json").write_bytes(FILES[0].read_bytes())
    (tmp_path / "self").symlink_to(".")
    (sub / "up").symlink_to("..")
    (sub / "loop").symlink_to(".")
    (tmp_path / "linked.scenario.json").symlink_to(FILES[0])
    count = len(HOSTILE) + 2
    passed = sum(f.name.endswith(".pass.json") for f in HOSTILE) + 2
    summary = f"{passed} passed, {count - passed} failed"
    files = scenario_files(tmp_path)
    assert len(files) == count
    out = io.StringIO()
    assert check_files(files, out=out, library=lib) == 1
    lines = out.getvalue().splitlines()
    assert lines[-1] == summary
    assert "Traceback" not in out.getvalue() and "RecursionError" not in out.getvalue()
    assert any(line.startswith("ok     ") and "z_last" in line for line in lines)
    if CHECK.exists():
        c = subprocess.run([str(CHECK), "--lib", lib.path, str(tmp_path)], capture_output=True,
                           text=True, timeout=120)
        assert c.returncode == 1, c.stderr
        assert c.stdout.splitlines()[-1] == summary
        heads = [line for line in c.stdout.splitlines() if not line.startswith(" ")]
        assert heads == [line for line in lines if not line.startswith(" ")]


def test_check_reports_a_deep_file_and_goes_on(lib: Library, tmp_path: Path) -> None:
    deep = tmp_path / "deep.scenario.json"
    deep.write_text('{"name": "deep", "feature": "counter", "steps": [{"send": '
                    + "[" * 2000 + "]" * 2000 + "}]}")
    status, out, _ = _check(lib, str(deep), str(FILES[0]))
    assert status == 1
    lines = out.splitlines()
    assert lines[0] == f"FAILED {deep}: (no name)"
    assert "nested deeper than 516 levels" in lines[1]
    assert lines[-1] == "1 passed, 1 failed"


# ---- failures say where and what ------------------------------------------------------------

def test_a_failing_scenario_names_the_step(lib: Library) -> None:
    scenario = {"name": "wrong", "feature": "counter",
                "steps": [{"send": "increment", "state": {"count": 1, "fact": None,
                                                          "isTimerOn": False}},
                          {"send": "increment", "state": {"count": 3, "fact": None,
                                                          "isTimerOn": False}}]}
    with pytest.raises(ScenarioFailure) as info:
        run_scenario(scenario, lib)
    assert info.value.step == 2
    message = str(info.value)
    assert "scenario 'wrong', step 2" in message
    assert "$.count: expected 3, actual 2" in message


def test_a_step_without_state_expects_no_change(lib: Library) -> None:
    scenario = {"name": "no state", "feature": "counter", "steps": [{"send": "increment"}]}
    with pytest.raises(AssertionError, match=r"\$\.count: expected 0, actual 1"):
        run_scenario(scenario, lib)


def test_a_null_member_equals_an_absent_one(lib: Library) -> None:
    run_scenario({"name": "optional", "feature": "counter",
                  "steps": [{"send": "increment", "state": {"count": 1, "isTimerOn": False}}],
                  "final_state": {"count": 1, "isTimerOn": False}}, lib)


def test_malformed_step(lib: Library) -> None:
    with pytest.raises(ScenarioError, match=r"\$\.steps\[0\].*exactly one of"):
        run_scenario({"name": "bad", "feature": "counter",
                      "steps": [{"send": "increment", "receive": "increment"}]}, lib)


# ---- python -m reducerkit check: the same output and exit status as reducerkit-check ------

def _check(lib: Library, *args: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    status = main(["--lib", lib.path, "check", *TIMEOUT_MS, *args], out=out, err=err)
    return status, out.getvalue(), err.getvalue()


def test_check_passes_the_scenarios(lib: Library) -> None:
    status, out, _ = _check(lib, str(SCENARIOS))
    assert status == 0, out
    assert out.splitlines()[-1] == f"{len(FILES)} passed, 0 failed"
    assert out.startswith("ok     ")


@pytest.mark.skipif(not CHECK.exists(), reason="build/reducerkit-check not built (make)")
def test_check_prints_what_reducerkit_check_prints(lib: Library) -> None:
    paths = [os.path.relpath(f, REPO) for f in FILES]
    c = subprocess.run([str(CHECK), "--lib", lib.path, *TIMEOUT_MS, *paths], capture_output=True,
                       text=True, cwd=REPO, timeout=cap(120))
    cwd = os.getcwd()
    os.chdir(REPO)
    try:
        status, out, _ = _check(lib, *paths)
    finally:
        os.chdir(cwd)
    assert (status, out) == (c.returncode, c.stdout)
    # On failures: the same lines per scenario, the same summary and status.
    wrong = [os.path.relpath(f, REPO) for f in WRONG]
    c = subprocess.run([str(CHECK), "--lib", lib.path, *TIMEOUT_MS, *wrong], capture_output=True,
                       text=True, cwd=REPO, timeout=cap(120))
    os.chdir(REPO)
    try:
        status, out, _ = _check(lib, *wrong)
    finally:
        os.chdir(cwd)
    assert status == c.returncode == 1
    heads = [line for line in out.splitlines() if not line.startswith(" ")]
    c_heads = [line for line in c.stdout.splitlines() if not line.startswith(" ")]
    assert heads == c_heads
    assert heads[-1] == f"0 passed, {len(WRONG)} failed"


def test_check_usage_errors(lib: Library, tmp_path: Path) -> None:
    status, _, err = _check(lib, str(tmp_path / "missing.scenario.json"))
    assert status == 2 and "no such file" in err
    status, _, err = _check(lib, str(tmp_path))
    assert status == 2 and "holds no *.scenario.json" in err


def test_run_given_a_scenario_says_use_check(lib: Library) -> None:
    out, err = io.StringIO(), io.StringIO()
    status = main(["--lib", lib.path, "run", "counter", str(FILES[0])], out=out, err=err)
    assert status == 1
    assert "this is a scenario: use `check`" in err.getvalue()
    assert "invalid JSON" not in err.getvalue()


# ---- the pytest plugin ---------------------------------------------------------------------

def _plugin_args() -> list[str]:
    """-p for the plugin when the package is not installed (its entry point then is not)."""
    installed = any(ep.value == "pytest_reducerkit"
                    for ep in importlib.metadata.entry_points(group="pytest11"))
    return [] if installed else ["-p", "reducerkit.testing.plugin"]


def test_the_pytest_plugin_collects_scenario_files(pytester: pytest.Pytester,
                                                   lib: Library) -> None:
    good = json.loads(FILES[0].read_text())
    pytester.makefile(".scenario.json", good_one=json.dumps(good))
    wrong = json.loads((SCENARIOS / "wrong" / "wrong_state.wrong.json").read_text())
    sub = pytester.mkdir("sub")
    (sub / "bad_one.scenario.json").write_text(json.dumps(wrong))
    (sub / "ignored.json").write_text("{}")
    result = pytester.runpytest("--reducerkit-lib", lib.path, "--reducerkit-timeout",
                                str(cap(10)), *_plugin_args(), "-v")
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(["*good_one.scenario.json::good_one PASSED*",
                                 "*bad_one.scenario.json::bad_one FAILED*",
                                 "*step 1*", "*$.count: expected 2, actual 1*"])


def _limit_memory() -> None:
    """In a runner's process: at most 4 GiB of address space, so that a runner reading
    /dev/zero fails there instead of taking the machine's memory."""
    import resource
    resource.setrlimit(resource.RLIMIT_AS, (4 << 30, 4 << 30))


@pytest.mark.parametrize("runner", ["python", "c"])
def test_a_fifo_or_a_device_is_refused_without_reading_it(
        lib: Library, tmp_path: Path, runner: str) -> None:
    """A FIFO (opening it blocked for ever without a writer) or a link to /dev/zero (read
    until memory ran out) is reported as not a regular file, and the run goes on."""
    if runner == "c" and not CHECK.exists():
        pytest.skip("build/reducerkit-check not built (make)")
    os.mkfifo(tmp_path / "a_fifo.scenario.json")
    (tmp_path / "b_zero.scenario.json").symlink_to("/dev/zero")
    (tmp_path / "c_good.scenario.json").write_bytes(FILES[0].read_bytes())
    command = ([str(CHECK), "--lib", lib.path] if runner == "c"
               else [sys.executable, "-m", "reducerkit", "--lib", lib.path, "check"])
    done = subprocess.run([*command, *TIMEOUT_MS, str(tmp_path)], capture_output=True,
                          text=True, timeout=cap(120), preexec_fn=_limit_memory)
    lines = done.stdout.splitlines()
    assert lines[:4] == [
        f"FAILED {tmp_path / 'a_fifo.scenario.json'}: (no name)",
        "    cannot read the file: not a regular file (a FIFO)",
        f"FAILED {tmp_path / 'b_zero.scenario.json'}: (no name)",
        "    cannot read the file: not a regular file (a character device)",
    ], done.stdout + done.stderr
    assert lines[-1] == "1 passed, 2 failed"
    assert done.returncode == 1


@pytest.mark.parametrize("runner", ["python", "c"])
def test_unasserted_actions_are_listed_up_to_twenty(
        lib: Library, tmp_path: Path, runner: str) -> None:
    """A timer over a long advance leaves one unasserted action per tick: the runners listed
    every one (100,000 lines for a file of 150 bytes); now 20, then how many more."""
    if runner == "c" and not CHECK.exists():
        pytest.skip("build/reducerkit-check not built (make)")
    path = tmp_path / "ticks.scenario.json"
    path.write_text(json.dumps({
        "name": "ticks", "feature": "counter",
        "steps": [{"send": "toggleTimer", "state": {"count": 0, "fact": None, "isTimerOn": True}},
                  {"advance_ms": 100000}]}))
    command = ([str(CHECK), "--lib", lib.path] if runner == "c"
               else [sys.executable, "-m", "reducerkit", "--lib", lib.path, "check"])
    done = subprocess.run([*command, *TIMEOUT_MS, str(path)], capture_output=True, text=True,
                          timeout=cap(120))
    lines = done.stdout.splitlines()
    assert done.returncode == 1, done.stdout + done.stderr
    assert lines[1] == "    100 received action(s) were not asserted:", done.stdout
    listed = [line for line in lines if line.lstrip().split(". ")[-1] == '"timerTick"']
    assert len(listed) == 20
    assert lines[22].strip() == "(80 more not shown)", done.stdout
    assert lines[-1] == "0 passed, 1 failed"
