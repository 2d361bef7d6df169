"""The inspector's report (python -m reducerkit inspect): its data, its embedding, its errors.
The page itself is driven in a browser by test_inspect_browser.py."""

from __future__ import annotations

import json
import re
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from conftest import SCENARIOS

from reducerkit import Library
from reducerkit.inspect import build_report, render_html
from reducerkit.inspect.page import embed_json
from reducerkit.testing import load_scenario, scenario_files

Run = Callable[..., "subprocess.CompletedProcess[str]"]
DATA = re.compile(r'<script type="application/json" id="rk-data">(.*?)</script>', re.S)


def report_data(html: str) -> Any:
    """The data a report embeds (what the page parses)."""
    found = DATA.search(html)
    assert found, "the report has no data element"
    return json.loads(found.group(1))


@pytest.fixture
def cli(run_python: Run) -> Run:
    return lambda *args, **kw: run_python("-m", "reducerkit", *args, **kw)


@pytest.mark.parametrize("path", scenario_files(SCENARIOS / "counter_fact.scenario.json",
                                                SCENARIOS / "todos.scenario.json"),
                         ids=lambda p: p.name)
def test_inspect_writes_one_self_contained_file(cli: Run, tmp_path: Path, path: Path) -> None:
    out = tmp_path / "report.html"
    done = cli("inspect", str(path), "-o", str(out))
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(f"wrote {out}: ")
    html = out.read_text(encoding="utf-8")
    # Nothing loaded from elsewhere: no src/href attribute at all, no URL but the CSP's.
    assert not re.search(r"\s(src|href)\s*=", html)
    assert "http://" not in html and "https://" not in html
    data = report_data(html)
    normal = load_scenario(path)
    assert len(data["steps"]) == len(normal["steps"])
    assert data["divergence"] is None and data["not_run"] == 0
    assert "window.reducerkit = Object.freeze" in html  # page.js inlined
    assert "--bg:" in html  # page.css inlined


def test_default_output_is_beside_the_input(cli: Run, tmp_path: Path) -> None:
    source = tmp_path / "mine.scenario.json"
    source.write_bytes((SCENARIOS / "counter_basics.scenario.json").read_bytes())
    done = cli("inspect", str(source))
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "mine.html").is_file()


def test_report_records_versions_patches_and_kinds(lib: Library) -> None:
    path = SCENARIOS / "counter_fact_host.scenario.json"
    data = build_report(path, lib)
    kinds = [s["kind"] for s in data["steps"]]
    assert "request" in kinds and "resolve" in kinds and "receive" in kinds
    state = data["initial"]
    from reducerkit._patch import apply_patch, thaw
    for step, given in zip(data["steps"], load_scenario(path, lib)["steps"], strict=True):
        assert "state" not in step["step"]  # a patch per step, not a state
        assert step["step"] == {k: v for k, v in given.items() if k != "state"}
        state = thaw(apply_patch(state, step["patch"]))
        expected = given.get("state")
        if expected is not None:  # the file's expectation holds on the rebuilt state
            assert state == expected
    versions = [s["version"] for s in data["steps"]]
    assert versions == sorted(versions) and versions[-1] > 0


def test_failing_scenario_marks_the_first_divergent_step(lib: Library) -> None:
    data = build_report(SCENARIOS / "wrong" / "wrong_state.wrong.json", lib)
    divergence = data["divergence"]
    assert divergence is not None and divergence["index"] == 0
    assert data["steps"][0]["diverged"] is True
    assert "expected" in divergence["message"] or "$" in divergence["message"]
    assert divergence["actual"] != divergence["expected"]


def test_final_state_divergence_is_an_end_step(lib: Library) -> None:
    data = build_report(SCENARIOS / "wrong" / "wrong_final_state.wrong.json", lib)
    last = data["steps"][-1]
    assert last["kind"] == "finish" and last.get("synthetic") and last["diverged"]
    assert data["divergence"]["index"] == len(data["steps"]) - 1


def test_hostile_text_is_embedded_inertly(lib: Library) -> None:
    hostile = '</script><script>alert(1)</script><!-- \u2028\u2029 & <b>'
    name = hostile.replace("\u2028\u2029", "")  # a name holds no line separator
    scenario = {"name": name, "feature": "todos",
                "steps": [{"send": {"addTodo": {"title": hostile}}}]}
    html = render_html(build_report(scenario, lib, source=hostile))
    # The only </script> are the page's own two (the data element and the script).
    assert html.count("</script") == 2
    assert "<!--" not in html.split('id="rk-data">', 1)[1].split("</script>", 1)[0]
    assert "\u2028" not in html and "\u2029" not in html
    data = report_data(html)
    assert data["name"] == name and data["source"] == hostile
    assert data["steps"][0]["step"]["send"] == {"addTodo": {"title": hostile}}


def test_a_step_the_library_refuses_is_the_divergence(lib: Library) -> None:
    scenario = {"name": "refused", "feature": "todos", "exhaustive": False,
                "steps": [{"send": {"addTodo": {"title": "a"}}}, {"send": {"addTodo": "b"}},
                          {"send": "clearCompleted"}]}
    data = build_report(scenario, lib)
    assert [s.get("diverged", False) for s in data["steps"]] == [False, True]
    assert data["divergence"]["index"] == 1 and "RK_ERR_ACTION" in data["divergence"]["message"]
    assert data["not_run"] == 1


def test_embed_json_reads_back_the_same() -> None:
    value = {"a": "</script>", "b": "\u2028", "c": [1, 2.5, None, True], "d": "\U0001f600 &<>"}
    text = embed_json(value)
    assert not set(text) & set("<>&\u2028\u2029")
    assert json.loads(text) == value


@pytest.mark.parametrize("args, message", [
    (["missing.scenario.json"], "missing.scenario.json: cannot read"),
    ([str(SCENARIOS / "wrong" / "malformed_step.wrong.json")], "malformed step at $.steps[0]"),
    ([str(SCENARIOS)], "is a directory"),
    ([str(SCENARIOS / "counter_basics.scenario.json"), "-o", "/nonexistent/dir/x.html"],
     "cannot write /nonexistent/dir/x.html"),
])
def test_bad_input_is_a_clear_error(cli: Run, args: list[str], message: str) -> None:
    done = cli("inspect", *args)
    assert done.returncode == 1, done
    assert message in done.stderr
    assert "Traceback" not in done.stderr and done.stdout == ""


def test_check_html_writes_a_report_per_failing_scenario(cli: Run, tmp_path: Path) -> None:
    wrong = sorted((SCENARIOS / "wrong").glob("*.json"))
    passing = SCENARIOS / "todos.scenario.json"
    target = tmp_path / "reports" / "deeper"
    done = cli("check", *map(str, wrong), str(passing), "--html", str(target))
    assert done.returncode == 1, done.stderr
    lines = done.stdout.splitlines()
    assert lines[-1] == f"1 passed, {len(wrong)} failed"
    reports = [line.split("report: ", 1)[1] for line in lines if line.startswith("    report: ")]
    # Every failing scenario but the two files that are not scenarios gets one.
    assert len(reports) == len(wrong) - 2
    assert sorted(Path(r).name for r in reports) == sorted(p.name for p in target.iterdir())
    for report in reports:
        data = report_data(Path(report).read_text(encoding="utf-8"))
        assert data["divergence"] is not None or data["error"], report
    assert not (target / "todos.html").exists()


def test_check_html_same_names_do_not_overwrite(cli: Run, tmp_path: Path) -> None:
    for d in ("a", "b"):
        (tmp_path / d).mkdir()
        (tmp_path / d / "x.scenario.json").write_bytes(
            (SCENARIOS / "wrong" / "wrong_state.wrong.json").read_bytes())
    done = cli("check", str(tmp_path / "a"), str(tmp_path / "b"), "--html", str(tmp_path / "r"))
    assert done.returncode == 1
    assert sorted(p.name for p in (tmp_path / "r").iterdir()) == ["x-2.html", "x.html"]


def test_check_html_into_a_file_is_a_usage_error(cli: Run, tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("")
    done = cli("check", str(SCENARIOS / "todos.scenario.json"), "--html", str(blocker))
    assert done.returncode == 2 and "--html" in done.stderr and "Traceback" not in done.stderr


@pytest.mark.parametrize("expected, equal", [
    ({"count": 1, "fact": None, "isTimerOn": True}, False),   # true is not 1
    ({"count": 1.0, "fact": None, "isTimerOn": False}, True),  # 1.0 is 1: the library says so
    ({"isTimerOn": False, "fact": None, "count": 1}, True),    # key order
    ({"count": 1, "isTimerOn": False}, True),                   # null is absent
    ({"count": 2, "fact": None, "isTimerOn": False}, False),
])
def test_the_runners_fast_comparison_keeps_the_formats_rule(lib: Library, expected: Any,
                                                            equal: bool) -> None:
    """The scenario runner compares identical values without the library (the inspector's
    speed); every other pair still goes to rk_json_match."""
    from reducerkit.testing import ScenarioFailure, run_scenario
    from reducerkit.testing.scenarios import _identical
    scenario = {"name": "rule", "feature": "counter", "options": {"clock": "test"},
                "steps": [{"send": "increment", "state": expected}]}
    if equal:
        run_scenario(scenario, lib)
    else:
        with pytest.raises(ScenarioFailure):
            run_scenario(scenario, lib)
    actual = {"count": 1, "fact": None, "isTimerOn": False}
    assert _identical(actual, dict(actual)) and not _identical(expected, actual)
    assert not _identical({"a": True}, {"a": 1}) and not _identical({"a": 2**70}, {"a": 2**70})
