"""The inspector's page in headless Chromium (Debian's ``chromium`` and ``chromium-driver``,
driven by selenium), checked through its JavaScript API ``window.reducerkit``: every shipped
scenario's steps and states, a divergence, an export that replays in both runners, time travel
by keyboard and permalink, and the screenshot ``docs/inspector.png``.

Skipped, saying why, when the browser or selenium is missing, except under CI (``CI=true``),
where that is a failure: ``make test`` installs them (scripts/install-deps.sh)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest
from conftest import REPO, SCENARIOS, cap, until

import reducerkit.inspect
from reducerkit import Library, Store
from reducerkit.inspect import build_report, render_html, write_report
from reducerkit.inspect.report import KINDS
from reducerkit.testing import load_scenario, run_scenario, scenario_files
from reducerkit.testing.scenarios import StepObserver, _normal_form, _run
from reducerkit.testing.store import TestStore

CHECK = REPO / "build" / "reducerkit-check"
SCREENSHOT = REPO / "docs" / "inspector.png"


def _missing() -> str | None:
    """Why the browser tests cannot run here, or None."""
    try:
        import selenium  # noqa: F401
    except ImportError:
        return "selenium is not installed (pip install selenium)"
    for program in ("chromium", "chromedriver"):
        if shutil.which(program) is None:
            return f"{program} is not on PATH (apt-get install chromium chromium-driver)"
    return None


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """A headless Chromium (one for the module)."""
    why = _missing()
    if why is not None:
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(f"the browser tests must run under CI, but {why}", pytrace=False)
        pytest.skip(f"browser tests skipped: {why}")
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    for argument in ("--headless=new", "--no-sandbox", "--disable-gpu",
                     "--disable-dev-shm-usage", "--window-size=1280,800",
                     "--force-device-scale-factor=1", "--hide-scrollbars"):
        options.add_argument(argument)
    options.binary_location = shutil.which("chromium") or "chromium"
    driver = webdriver.Chrome(options=options,
                              service=Service(shutil.which("chromedriver") or "chromedriver"))
    driver.set_script_timeout(cap(30))
    driver.set_page_load_timeout(cap(60))
    try:
        yield driver
    finally:
        driver.quit()


def open_report(browser: Any, path: Path, step: int | None = None) -> None:
    browser.get(path.as_uri() + (f"#step={step}" if step is not None else ""))
    # Inline scripts have run when get() returns (the load event); the API must be there.
    assert browser.execute_script("return typeof window.reducerkit") == "object"


def api(browser: Any, call: str, *args: Any) -> Any:
    return browser.execute_script(f"return window.reducerkit.{call}", *args)


def kind_of(step: Mapping[str, Any]) -> str:
    """The page's kind of a step of a scenario in its normal form."""
    kind = next(iter(step))
    return "error" if "error" in step else "advance" if kind == "advance_ms" else kind


class _StoreStates(StepObserver):
    """rk_store_get after each step whose store is at the version the step asserted."""

    def __init__(self) -> None:
        self.states: dict[int, Any] = {}

    def step(self, index: int, step: Mapping[str, Any], test_store: TestStore[Any, Any],
             failure: Any) -> None:
        if failure is None and test_store.store.version == test_store._version:
            self.states[index - 1] = json.loads(test_store.store.state_json())


SHIPPED = scenario_files(SCENARIOS)


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: p.name)
def test_each_shipped_scenario(browser: Any, lib: Library, tmp_path: Path, path: Path) -> None:
    report = tmp_path / "report.html"
    write_report(path, report, library=lib)
    open_report(browser, report)
    normal = load_scenario(path, lib)
    steps = api(browser, "steps()")
    assert len(steps) == len(normal["steps"])
    assert [s["kind"] for s in steps] == [kind_of(s) for s in normal["steps"]]
    assert {s["kind"] for s in steps} <= set(KINDS)
    assert [s["index"] for s in steps] == list(range(len(steps)))
    assert not any(s["diverged"] for s in steps)
    for s, given in zip(steps, normal["steps"]):
        if kind_of(given) in ("send", "receive"):
            assert s["action"] == given[next(iter(given))]
    # state() against the library's own state (rk_store_get) at the same version.
    observer = _StoreStates()
    _run(_normal_form(path, lib), lib, 1.0, observer)
    assert observer.states, "no step to compare"
    for index, expected in observer.states.items():
        assert api(browser, "goTo(arguments[0])", index) == index
        assert api(browser, "current()") == index
        assert api(browser, "state()") == expected, f"step {index}"
        assert steps[index]["version"] == api(browser, "steps()")[index]["version"]


def test_the_page_rebuilds_each_patch(browser: Any, lib: Library, tmp_path: Path) -> None:
    report = tmp_path / "todos.html"
    data = write_report(SCENARIOS / "todos.scenario.json", report, library=lib)
    open_report(browser, report)
    for i, step in enumerate(data["steps"]):
        api(browser, "goTo(arguments[0])", i)
        assert api(browser, "patch()") == step["patch"]
    assert any(step["patch"] for step in data["steps"])


@pytest.mark.parametrize("name, index", [("wrong_state.wrong.json", 0),
                                         ("wrong_received.wrong.json", 1),
                                         ("wrong_final_state.wrong.json", 1)])
def test_a_wrong_scenario_is_marked_where_it_diverges(browser: Any, lib: Library,
                                                      tmp_path: Path, name: str,
                                                      index: int) -> None:
    report = tmp_path / "wrong.html"
    write_report(SCENARIOS / "wrong" / name, report, library=lib)
    open_report(browser, report)
    steps = api(browser, "steps()")
    assert [s["index"] for s in steps if s["diverged"]] == [index]
    assert api(browser, "current()") == index  # the page opens at the divergence
    assert browser.execute_script("return document.getElementById('divergence').hidden") is False
    assert "diverges" in browser.execute_script(
        "return document.getElementById('banner').textContent")


@pytest.mark.parametrize("name, first, last", [("todos.scenario.json", 2, 7),
                                               ("counter_fact_host.scenario.json", 5, 9),
                                               ("search_host_cancel.scenario.json", 0, 15)])
def test_an_exported_range_replays_in_both_runners(browser: Any, lib: Library, tmp_path: Path,
                                                   name: str, first: int, last: int) -> None:
    report = tmp_path / "report.html"
    write_report(SCENARIOS / name, report, library=lib)
    open_report(browser, report)
    scenario = api(browser, "exportRange(arguments[0], arguments[1])", first, last)
    assert len(scenario["steps"]) == last - first + 1
    api(browser, "goTo(arguments[0])", first - 1 if first else 0)
    before = api(browser, "state()") if first else None
    if before is not None:
        assert scenario["options"]["initial_state"] == before
    target = tmp_path / "range.scenario.json"
    target.write_text(json.dumps(scenario), encoding="utf-8")
    run_scenario(target, lib)  # the Python runner
    if not CHECK.exists():
        pytest.fail(f"{CHECK} is not built (make build/reducerkit-check)", pytrace=False)
    done = subprocess.run([str(CHECK), "--lib", lib.path, str(target)], capture_output=True,
                          text=True, timeout=cap(60))
    assert done.returncode == 0, done.stdout + done.stderr
    assert "1 passed, 0 failed" in done.stdout


def test_export_refuses_a_bad_range(browser: Any, lib: Library, tmp_path: Path) -> None:
    report = tmp_path / "report.html"
    write_report(SCENARIOS / "todos.scenario.json", report, library=lib)
    open_report(browser, report)
    for a, b in ((3, 2), (-1, 2), (0, 99), (0.5, 2)):
        message = browser.execute_script(
            "try { window.reducerkit.exportRange(arguments[0], arguments[1]); return null; }"
            " catch (e) { return String(e.message); }", a, b)
        assert message and "exportRange takes two step indices" in message


def test_keyboard_filter_permalink_and_theme(browser: Any, lib: Library, tmp_path: Path) -> None:
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    report = tmp_path / "report.html"
    data = write_report(SCENARIOS / "todos.scenario.json", report, library=lib)
    last = len(data["steps"]) - 1
    open_report(browser, report, step=3)
    assert api(browser, "current()") == 3  # the permalink
    body = browser.find_element(By.TAG_NAME, "body")
    ActionChains(browser).move_to_element(body).perform()
    ActionChains(browser).send_keys(Keys.ARROW_RIGHT).perform()
    assert api(browser, "current()") == 4
    assert browser.execute_script("return location.hash") == "#step=4"
    ActionChains(browser).send_keys(Keys.ARROW_LEFT, Keys.ARROW_LEFT).perform()
    assert api(browser, "current()") == 2
    ActionChains(browser).send_keys(Keys.END).perform()
    assert api(browser, "current()") == last
    ActionChains(browser).send_keys(Keys.HOME).perform()
    assert api(browser, "current()") == 0
    # A filter by path: the arrows move between the steps that touched it.
    touching = [i for i, s in enumerate(data["steps"])
                if any(op["path"] == "/filter" or op["path"].startswith("/filter/")
                       for op in s["patch"])]
    assert touching, "todos.scenario.json changes /filter"
    field = browser.find_element(By.ID, "filter")
    field.send_keys("/filter")
    body.click()
    ActionChains(browser).send_keys(Keys.HOME).perform()
    assert api(browser, "current()") == touching[0]
    ActionChains(browser).send_keys(Keys.END).perform()
    assert api(browser, "current()") == touching[-1]
    theme = browser.execute_script("return document.documentElement.dataset.theme")
    browser.find_element(By.ID, "theme").click()
    assert browser.execute_script("return document.documentElement.dataset.theme") != theme


def test_copy_as_json(browser: Any, lib: Library, tmp_path: Path) -> None:
    report = tmp_path / "report.html"
    write_report(SCENARIOS / "todos.scenario.json", report, library=lib)
    open_report(browser, report, step=2)
    browser.execute_script(
        "window.copied = []; Object.defineProperty(navigator, 'clipboard', {configurable: true,"
        " value: {writeText: function (t) { window.copied.push(t); return Promise.resolve(); }}});")
    state = api(browser, "state()")
    browser.execute_script(
        "document.querySelector('#tree [data-path=\"/todos/0\"] .node-copy').click();"
        "document.querySelector('button.copy[data-copy=\"state\"]').click();"
        "document.querySelector('button.copy[data-copy=\"patch\"]').click();")
    copied = browser.execute_script("return window.copied")
    assert [json.loads(text) for text in copied] == [state["todos"][0], state,
                                                     api(browser, "patch()")]


def test_a_long_recording_goes_through_checkpoints(browser: Any, lib: Library,
                                                   tmp_path: Path) -> None:
    """A recording longer than the page's checkpoint interval (64): state() at any step,
    in any order, is the store's state (rk_store_get) at that step."""
    states = []
    with Store("todos", clock="test", record=True, library=lib) as store:
        for i in range(300):
            if i % 7 == 6:
                store.send("clearCompleted")
            elif i % 3 == 2:
                store.send({"toggle": {"id": store.state["todos"][-1]["id"]}})
            else:
                store.send({"addTodo": {"title": f"todo {i} </script>\u2028"}})
            states.append(json.loads(store.state_json()))
        scenario = store.scenario("long")
    source = tmp_path / "long.scenario.json"
    source.write_text(json.dumps(scenario), encoding="utf-8")
    report = tmp_path / "long.html"
    data = write_report(source, report, library=lib)
    sends = [i for i, s in enumerate(data["steps"]) if s["kind"] == "send"]
    assert len(sends) == 300
    open_report(browser, report)
    order = [299, 0, 63, 64, 65, *range(300)]  # back and forth, then every step
    seen = browser.execute_script(
        "return arguments[0].map(function (i) { window.reducerkit.goTo(i);"
        " return window.reducerkit.state(); })", [sends[n] for n in order])
    for n, state in zip(order, seen):
        assert state == states[n], f"send {n}"


def test_screenshot(browser: Any, lib: Library) -> None:
    """Takes docs/inspector.png (shown in the README): a step that changed the state."""
    path = "Tests/scenarios/search_host_cancel.scenario.json"
    data = build_report(REPO / path, lib, source=path)
    report = SCREENSHOT.parent / ".inspector-screenshot.html"
    SCREENSHOT.parent.mkdir(exist_ok=True)
    report.write_text(render_html(data), encoding="utf-8")
    changed = [i for i, s in enumerate(data["steps"]) if s["kind"] == "receive" and s["patch"]]
    size = browser.get_window_size()
    try:
        browser.set_window_size(1280, 900)
        open_report(browser, report)
        browser.execute_script("localStorage.clear(); document.documentElement.dataset.theme ="
                               " 'light'")
        api(browser, "goTo(arguments[0])", changed[-1])
        highlighted = browser.execute_script(
            "return document.querySelectorAll('#tree .changed').length")
        assert highlighted > 0
        assert browser.save_screenshot(str(SCREENSHOT))
    finally:
        report.unlink()
        browser.set_window_size(size["width"], size["height"])
    assert SCREENSHOT.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_a_live_page_receives_new_steps_as_python_sends(browser: Any, lib: Library) -> None:
    from selenium.webdriver.support.ui import WebDriverWait

    with Store("todos", library=lib) as store:
        store.send({"addTodo": {"title": "before the inspector"}})
        url = store.inspect(port=0)
        assert url.startswith("http://127.0.0.1:") and store.inspect() == url
        assert reducerkit.inspect.serve(store, port=0) == url
        assert store._inspector._server.server_address[0] == "127.0.0.1"
        assert not store._core.subs  # no page: no subscription
        store.send({"addTodo": {"title": "before the page"}})
        browser.get(url)
        wait = WebDriverWait(browser, cap(30), poll_frequency=0.02)
        # The change made before the page opened is one step; the page subscribes on connect.
        wait.until(lambda b: api(b, "steps().length") == 1)
        assert until(lambda: len(store._core.subs) == 1)
        for i in range(5):
            store.send({"addTodo": {"title": f"live {i} </script>"}})
            wait.until(lambda b, n=i + 2: api(b, "steps().length") == n)
            assert api(browser, "current()") == i + 1  # the page follows the newest step
            assert api(browser, "state()") == json.loads(store.state_json())
        steps = api(browser, "steps()")
        assert [s["kind"] for s in steps] == ["send"] * 6
        assert [s["version"] for s in steps] == list(range(2, 8))
        api(browser, "goTo(0)")
        assert api(browser, "state()")["todos"][-1]["title"] == "before the page"
        # A page that goes away: the store is unsubscribed again.
        browser.get("about:blank")
        assert until(lambda: not store._core.subs)
        store.send({"toggle": {"id": 1}})  # while no page is open: one step when one opens
        browser.get(url)
        wait.until(lambda b: api(b, "steps().length") == 7)
        assert api(browser, "state()") == json.loads(store.state_json())
    # Closing the store stops the server: the page says so, the port refuses.
    wait.until(lambda b: b.execute_script(
        "return document.getElementById('live').textContent") == "ended")
    assert until(lambda: _refused(url))


def _refused(url: str) -> bool:
    import urllib.error
    import urllib.request
    try:
        urllib.request.urlopen(url, timeout=cap(5)).close()
    except (urllib.error.URLError, OSError):
        return True
    return False


def test_the_live_server_answers_only_its_own_address(lib: Library) -> None:
    import http.client
    with Store("counter", library=lib) as store:
        url = store.inspect()
        port = int(url.rsplit(":", 1)[1].strip("/"))
        for host, status in ((f"127.0.0.1:{port}", 200), (f"localhost:{port}", 200),
                             (f"evil.example:{port}", 403), ("", 403)):
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=cap(10))
            connection.putrequest("GET", "/", skip_host=True)
            if host:
                connection.putheader("Host", host)
            connection.endheaders()
            response = connection.getresponse()
            assert response.status == status, host
            response.read()
            connection.close()
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=cap(10))
        connection.request("GET", "/nothing")
        assert connection.getresponse().status == 404
        connection.close()


def test_closing_the_store_closes_idle_connections(lib: Library) -> None:
    """A connection that never sends a request kept its server thread (blocked reading) after
    the store closed; closing the store closes it."""
    import socket
    import threading

    def handlers() -> list[threading.Thread]:
        return [t for t in threading.enumerate() if "process_request" in t.name]

    before = set(handlers())
    with Store("counter", library=lib) as store:
        port = int(store.inspect().rsplit(":", 1)[1].strip("/"))
        idle = [socket.create_connection(("127.0.0.1", port), timeout=cap(10)) for _ in range(3)]
        assert until(lambda: len(set(handlers()) - before) == 3)
    try:
        assert until(lambda: not set(handlers()) - before), [t.name for t in handlers()]
        for connection in idle:  # the server closed its end
            assert connection.recv(1) == b""
    finally:
        for connection in idle:
            connection.close()
