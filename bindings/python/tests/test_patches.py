"""State by what changed: JSON Pointers, JSON Patches, store.state kept by patches,
store.get, subscribe(path=), subscribe_patches, states(), and the property test (random
initial states and action sequences on todos and counter)."""

from __future__ import annotations

import asyncio
import copy
import ctypes
import json
from typing import Any

import pytest
from conftest import cap
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import reducerkit
from reducerkit import InvalidArgumentError, Library, Store
from reducerkit._patch import (
    MISSING,
    FrozenDict,
    FrozenList,
    apply_patch,
    escape,
    freeze,
    make_patch,
    parse_pointer,
    render_pointer,
    thaw,
)

# ---- pointers and patches, in Python alone -------------------------------------------------

def test_pointer_escaping() -> None:
    assert escape("a/b~c") == "a~1b~0c"
    assert parse_pointer("/a~1b~0c/0") == ("a/b~c", "0")
    assert parse_pointer("/~01") == ("~1",)  # "~0" then "1": the key "~1", not "/"
    assert parse_pointer("") == ()
    assert parse_pointer("/") == ("",)
    assert render_pointer(["a/b~c", "~1", ""]) == "/a~1b~0c/~01/"
    for bad in ("todos", "/a~2", "/a~"):
        with pytest.raises(ValueError):
            parse_pointer(bad)


def test_apply_shares_unchanged_parts_and_never_changes_the_old_snapshot() -> None:
    old = freeze({"todos": [{"id": i, "done": False} for i in range(5)], "filter": "all"})
    new = apply_patch(old, [{"op": "replace", "path": "/todos/2/done", "value": True}])
    assert old["todos"][2]["done"] is False
    assert new["todos"][2]["done"] is True
    assert new["todos"][1] is old["todos"][1]  # shared
    assert new["todos"] is not old["todos"]
    new2 = apply_patch(new, [{"op": "remove", "path": "/todos/0"},
                             {"op": "add", "path": "/todos/-", "value": {"id": 9}},
                             {"op": "add", "path": "/a~1b", "value": 1}])
    assert [t["id"] for t in new2["todos"]] == [1, 2, 3, 4, 9]
    assert new2["a/b"] == 1 and "a/b" not in new
    with pytest.raises(ValueError):
        apply_patch(old, [{"op": "replace", "path": "/nope", "value": 1}])
    with pytest.raises(ValueError):
        apply_patch(old, [{"op": "move", "from": "/a", "path": "/b"}])


def test_apply_copies_the_containers_on_the_paths_once_and_shares_the_rest() -> None:
    old = freeze({"a": {"x": [1, 2], "y": {"k": 1}}, "b": [{"i": 0}, {"i": 1}, {"i": 2}],
                  "c": {"d": [1]}})
    before = json.dumps(old)
    ops = [{"op": "replace", "path": "/a/x/0", "value": 9},
           {"op": "add", "path": "/a/x/-", "value": {"n": [3]}},
           {"op": "replace", "path": "/a/x/2/n/0", "value": 4},  # inside the value just added
           {"op": "remove", "path": "/b/0"},
           {"op": "replace", "path": "/b/0/i", "value": 5},      # the shifted element
           {"op": "add", "path": "/b/1", "value": 7}]
    new = apply_patch(old, ops)
    assert thaw(new) == {"a": {"x": [9, 2, {"n": [4]}], "y": {"k": 1}},
                         "b": [{"i": 5}, 7, {"i": 2}], "c": {"d": [1]}}
    assert json.dumps(old) == before  # the old snapshot never changes
    assert new["a"]["y"] is old["a"]["y"] and new["c"] is old["c"]  # off the paths: shared
    assert new["b"][2] is old["b"][2]
    assert new["a"] is not old["a"] and new["b"][0] is not old["b"][1]

    def frozen(value: Any) -> bool:
        if isinstance(value, dict):
            return type(value) is FrozenDict and all(frozen(v) for v in value.values())
        if isinstance(value, list):
            return type(value) is FrozenList and all(frozen(v) for v in value)
        return True

    assert frozen(new)
    # The same path again, through the cache of split paths, and an escaped key.
    again = apply_patch(new, [{"op": "replace", "path": "/a/x/0", "value": 1},
                              {"op": "add", "path": "/c/e~1f~0", "value": True}])
    assert again["a"]["x"][0] == 1 and new["a"]["x"][0] == 9
    assert again["c"]["e/f~"] is True and "e/f~" not in new["c"]
    for bad in ("/b/3/i", "/b/01", "/a/x/-/n", "/c/d/0/z"):
        with pytest.raises(ValueError, match="does not apply"):
            apply_patch(new, [{"op": "replace", "path": bad, "value": 0}])


def test_snapshots_are_read_only_and_copies_are_not() -> None:
    snap = freeze({"todos": [{"id": 1}], "n": 1})
    assert isinstance(snap, dict) and isinstance(snap["todos"], list)
    for mutate in (lambda: snap.__setitem__("n", 2), lambda: snap["todos"].append(1),
                   lambda: snap["todos"][0].update(id=2), lambda: snap.pop("n"),
                   lambda: snap["todos"].sort()):
        with pytest.raises(TypeError, match="read-only"):
            mutate()
    mutable = copy.deepcopy(snap)
    mutable["todos"][0]["id"] = 5
    assert type(mutable) is dict and type(mutable["todos"]) is list
    assert snap["todos"][0]["id"] == 1
    assert thaw(snap) == {"todos": [{"id": 1}], "n": 1}
    assert json.loads(json.dumps(snap)) == snap
    assert snap == {"todos": [{"id": 1}], "n": 1}


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-5, 5) | st.text("ab~/", max_size=3),
    lambda children: st.lists(children, max_size=4)
    | st.dictionaries(st.text("ab~/", max_size=3), children, max_size=4),
    max_leaves=12)


@given(json_values, json_values)
def test_make_patch_then_apply_patch_round_trips(a: Any, b: Any) -> None:
    patch = make_patch(a, b)
    assert thaw(apply_patch(freeze(a), patch)) == b
    assert thaw(apply_patch(freeze(a), json.loads(json.dumps(patch)))) == b


# ---- the store -------------------------------------------------------------------------------

TODOS_3 = {"todos": [{"id": 1, "title": "a/b", "isComplete": False},
                     {"id": 2, "title": "~x", "isComplete": True},
                     {"id": 3, "title": "c", "isComplete": False}]}


def test_state_follows_by_patches_with_structural_sharing(lib: Library) -> None:
    with Store("todos", initial_state=TODOS_3, library=lib) as store:
        first = store.state
        assert isinstance(first, FrozenDict) and isinstance(first["todos"], FrozenList)
        assert store.state is first  # nothing changed: the same object
        store.send({"toggle": {"id": 3}})
        second = store.state
        assert first["todos"][2]["isComplete"] is False  # the kept snapshot never changes
        assert second["todos"][2]["isComplete"] is True
        assert second["todos"][0] is first["todos"][0]  # unchanged parts are shared
        store.send({"addTodo": {"title": "d"}})
        store.send({"delete": {"id": 1}})
        third = store.state
        assert [t["id"] for t in third["todos"]] == [2, 3, 4]
        assert third == json.loads(store.state_json())
        with pytest.raises(TypeError):
            third["todos"].append({})


def test_get(lib: Library) -> None:
    with Store("todos", initial_state=TODOS_3, library=lib) as store:
        assert store.get("/todos/1/title") == "~x"
        assert store.get("/todos/0") == {"id": 1, "title": "a/b", "isComplete": False}
        assert store.get("") == store.state
        store.state  # noqa: B018 - up to date: the next get reads the snapshot
        assert store.get("/todos/0") is store.state["todos"][0]
        store.send({"toggle": {"id": 1}})
        assert store.get("/todos/0/isComplete") is True  # from the library (state is stale)
        with pytest.raises(InvalidArgumentError, match=r'no value at "/todos/7" \(of the pointer "/todos/7/title"\): .*3 elements'):
            store.get("/todos/7/title")
        with pytest.raises(InvalidArgumentError, match=r'has no key "to/dos"'):
            store.get("/to~1dos")
        with pytest.raises(InvalidArgumentError):
            store.get("todos")
        with pytest.raises(InvalidArgumentError):
            store.get("/a~2")


def test_get_quotes_a_huge_pointer_bounded(lib: Library) -> None:
    """The library cuts pointers in its messages; the binding put the whole of it before them
    (an 8 MB pointer made an 8 MB message)."""
    with Store("todos", initial_state=TODOS_3, library=lib) as store:
        for pointer in ("/" + "a" * (8 << 20), "x" * (8 << 20), "/~" + "a" * (8 << 20),
                        "/\x00" + "a" * (8 << 20)):
            with pytest.raises(InvalidArgumentError) as info:
                store.get(pointer)
            assert len(info.value.message) < 1000


def test_subscribe_path_calls_only_when_the_part_changed(lib: Library) -> None:
    with Store("counter", library=lib) as store:
        counts: list[Any] = []
        facts: list[Any] = []
        store.subscribe(counts.append, path="/count")
        store.subscribe(facts.append, path="/fact")
        store.send("increment")
        store.send({"setCount": 1})  # no change: no call
        store.send("increment")
        store.send("toggleTimer")  # another part: no call
        store.send("toggleTimer")
        assert counts == [1, 2]
        assert facts == []
        with pytest.raises(InvalidArgumentError):
            store.subscribe(counts.append, path="/nope")


def test_subscribe_path_follows_index_shifts_and_removal(lib: Library) -> None:
    with Store("todos", initial_state=TODOS_3, library=lib) as store:
        titles: list[Any] = []
        token = store.subscribe(titles.append, path="/todos/1/title")
        store.send({"toggle": {"id": 2}})  # below the watched part's parent, not it: no call
        store.send({"delete": {"id": 1}})  # /todos/1 is now "c"
        store.send({"delete": {"id": 2}})  # /todos/1 stops existing
        store.send({"addTodo": {"title": "new"}})  # and exists again
        assert titles == ["c", MISSING, "new"]
        store.unsubscribe(token)
        store.send({"addTodo": {"title": "more"}})
        assert titles == ["c", MISSING, "new"]


def test_subscribe_path_with_version_and_whole_state(lib: Library) -> None:
    with Store("counter", library=lib) as store:
        seen: list[Any] = []
        store.subscribe(lambda state, version: seen.append((state["count"], version)), path="",
                        with_version=True)
        store.send("increment")
        store.send("increment")
        assert seen == [(1, 1), (2, 2)]


def test_subscribe_patches(lib: Library) -> None:
    with Store("todos", initial_state=TODOS_3, library=lib) as store:
        patches: list[Any] = []
        store.subscribe_patches(lambda ops, version: patches.append((ops, version)))
        store.send({"toggle": {"id": 1}})
        store.send({"toggle": {"id": 99}})  # nothing changes: no call
        store.send({"setFilter": "active"})
        assert patches == [
            ([{"op": "replace", "path": "/todos/0/isComplete", "value": True}], 1),
            ([{"op": "replace", "path": "/filter", "value": "active"}], 3),
        ]


def test_subscribe_patches_with_a_one_argument_callback(lib: Library) -> None:
    with Store("todos", initial_state=TODOS_3, library=lib) as store:
        patches: list[Any] = []
        store.subscribe_patches(patches.append)  # a builtin method: called with the patch alone
        store.subscribe_patches(lambda ops: patches.append(("lambda", ops)))

        class Collector:
            def __call__(self, ops: Any, version: int = 0) -> None:  # accepts two: gets two
                patches.append(("both", version))

        store.subscribe_patches(Collector())
        store.send({"toggle": {"id": 1}})
        op = [{"op": "replace", "path": "/todos/0/isComplete", "value": True}]
        assert patches == [op, ("lambda", op), ("both", 1)]


def test_an_exception_in_a_patch_subscriber_is_reraised(lib: Library) -> None:
    with Store("counter", library=lib) as store:
        def boom(_value: Any) -> None:
            raise ValueError("boom")
        store.subscribe(boom, path="/count")
        with pytest.raises(ValueError, match="boom"):
            store.send("increment")
        assert store.state["count"] == 1


def test_states_yields_each_change(lib: Library) -> None:
    async def main() -> list[int]:
        with Store("counter", library=lib) as store:
            seen: list[int] = []

            async def consume() -> None:
                async for state in store.states():
                    seen.append(state["count"])
                    if len(seen) == 3:
                        return

            task = asyncio.create_task(consume())
            await asyncio.sleep(0.01)
            store.send("increment")
            store.send({"setCount": 1})  # no change
            store.send("increment")
            await asyncio.wait_for(task, cap(10))
            return seen

    assert asyncio.run(main()) == [0, 1, 2]


def test_import_does_not_import_asyncio() -> None:
    """Nor orjson (issue 25: `import reducerkit` <= 20 ms; orjson alone costs ~10 ms: the JSON
    backend is chosen on first use) nor traceback (printing an unraised error needs it)."""
    import subprocess
    import sys
    code = ("import sys, reducerkit; "
            "print(sorted(m for m in ('asyncio', 'logging', 'inspect', 'orjson', 'traceback', "
            "'shlex') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, env={**__import__("os").environ,
                                          "PYTHONPATH": reducerkit.__path__[0] + "/.."})
    assert out.stdout.strip() == "[]"


# ---- the property test ------------------------------------------------------------------------

def _raw_patch(store: Store, since: int) -> tuple[list[Any], int]:
    lib = store.library
    out, length, version = ctypes.c_void_p(), ctypes.c_size_t(), ctypes.c_uint64()
    lib.check(lib.rk_store_patch(store.handle, since, out, length, version))
    return json.loads(lib.take_string(out, length)), version.value


def _raw_get(store: Store) -> tuple[Any, int]:
    lib = store.library
    out, length, version = ctypes.c_void_p(), ctypes.c_size_t(), ctypes.c_uint64()
    lib.check(lib.rk_store_get(store.handle, None, out, length, version))
    return json.loads(lib.take_string(out, length)), version.value


titles = st.sampled_from(["Milk", "a/b", "~0", "~1 x", 'q"uote', "é", "", "\u2603"])
todo_actions = st.one_of(
    st.builds(lambda t: {"addTodo": {"title": t}}, titles),
    st.builds(lambda i: {"toggle": {"id": i}}, st.integers(0, 12)),
    st.builds(lambda i: {"delete": {"id": i}}, st.integers(0, 12)),
    st.builds(lambda f: {"setFilter": f}, st.sampled_from(["all", "active", "completed"])),
    st.just("clearCompleted"))
todo_states = st.builds(
    lambda todos, f: {"todos": [{"id": i, "title": t, "isComplete": c}
                                for i, (t, c) in enumerate(todos)], "filter": f},
    st.lists(st.tuples(titles, st.booleans()), max_size=8),
    st.sampled_from(["all", "active"]))
counter_actions = st.one_of(
    st.sampled_from(["increment", "decrement", "factButtonTapped"]),
    st.builds(lambda n: {"setCount": n}, st.integers(-2, 2)),
    st.builds(lambda t: {"factResponse": t}, titles))
counter_states = st.builds(lambda n, f: {"count": n, "fact": f}, st.integers(-3, 3),
                           st.none() | titles)


def _check_sequence(lib: Library, feature: str, initial: dict[str, Any],
                    actions: list[Any]) -> None:
    with Store(feature, initial_state=initial, clock="test", library=lib) as store:
        first, v0 = _raw_get(store)
        delivered: list[tuple[list[Any], int]] = []
        store.subscribe_patches(lambda ops, version: delivered.append((ops, version)))
        snapshots = [(first, v0)]
        for action in actions:
            store.send(action)
            store.wait_idle(cap(10))
            current, version = _raw_get(store)
            # Every delivered patch, applied to the first state, gives rk_store_get's state.
            followed = freeze(first)
            for ops, _ in delivered:
                followed = apply_patch(followed, ops)
            assert thaw(followed) == current
            assert not delivered or delivered[-1][1] <= version
            # rk_store_patch from every earlier version agrees.
            for state, since in snapshots:
                ops, to = _raw_patch(store, since)
                assert to == version
                assert thaw(apply_patch(freeze(state), ops)) == current
            # The binding's own snapshot and get agree too.
            assert store.state == current
            assert store.get("") == current
            snapshots.append((current, version))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(initial=todo_states, actions=st.lists(todo_actions, max_size=12))
def test_property_todos(lib: Library, initial: dict[str, Any], actions: list[Any]) -> None:
    _check_sequence(lib, "todos", initial, actions)
    _check_sequence(lib, "todos_untracked", initial, actions)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(initial=counter_states, actions=st.lists(counter_actions, max_size=10))
def test_property_counter(lib: Library, initial: dict[str, Any], actions: list[Any]) -> None:
    _check_sequence(lib, "counter", initial, actions)
