"""The Python stubs of hostile_features.json (scripts/test-stubs.sh): mypy --strict accepts the
actions below, written with the fixture's names verbatim, and running this program (argument:
the fixture) checks that each module's FEATURE, case names, keys and literals are the fixture's,
character for character, and that its aliases are reducerkit's Store and TestStore."""
import json
import sys
import types
import typing
from pathlib import Path
from typing import Any

import hostile_0_types as h
import hostile_1_types
import hostile_2_types
import hostile_3_types
import hostile_4_types
from reducerkit import Store
from reducerkit.testing import TestStore

actions: list[h.HNXUe9IncludeXAction] = [
    'say "hi" \\ */ ??= é\n#x', "x", "asm",
    {"setX": -42}, {"set_x": "*/"}, {"set-x": True}, {"send_x": "a_b"},
    {"keys": {
        "b": "b", "asm": 1, "typeof": False, "int": 2.5, "bool": "bool", "store": 3, "rk_b": 4,
        "rk_json": "rk_json", "linux": 5, "unix": 6, "size_t": 7, "__x": 8, "_X": 9, "a-b": "a-b",
        "a_b": "a_b", "é": "é", "日本": "日本", '"q"': '"q"', "back\\slash": "\\",
        "new\nline": "\n", "*/ int injected = 42; /*": 10, "#include <stdio.h>": "#include",
        "class": "class", "None": True, "match": "match", "nul\x00key": "nul\x00", "emoji😀": False,
        "": "", "raw": [1, {"a": None}], "raw_json": "raw_json", "??=": "??=",
        "h-n-x-ue9-include-x-keys-pick": "keys-pick", "pick": "#include"}},
    {"pick": "*/\n#error INJECTED by an enum value\n/*"}, {"pick": "*/ enum { INJECTED = 42 }; /*"},
    {"pick": "nul\x00x"}, {"pick": "\u2028"}, {"pick": "\\\n"}, {"pick": "{v}"},
    {"tuple": ("x*/y", "*/", 11)},
    {"action": 12}, {"store": "store"}, {"state": False}, {"testStore": 13}, {"default": -0.5},
    {'"""\\N{BULLET}': '"""'},
]
state: h.HNXUe9IncludeXState = {'"""': "q", "\\N{x}": 1, "nested */": {"a-b": "", "a_b": None},
                                "TypedDict": 'x"""'}
others: list[hostile_1_types.RkStubsAction | hostile_2_types.TypedAction
             | hostile_3_types.TestAction | hostile_4_types.FAction] = [
    {"raw": "buf"}, {"buf": 14}, "send", {"dict": 15}, "store", {"EATURE": "F"}]
store_type: type[hostile_3_types.TestStore] | None = None  # this feature's Store, not TestStore
test_store_type: type[hostile_3_types.TestTestStore] | None = None


def case_names(schema: dict[str, Any]) -> list[str]:
    """The fixture's case names: unit cases, then the others (the stubs' order)."""
    unit = [o["anyOf"][0]["const"] for o in schema["oneOf"] if "anyOf" in o]
    return unit + [next(iter(o["properties"])) for o in schema["oneOf"] if "anyOf" not in o]


def stub_names(action: Any) -> list[str]:
    """The case names an Action alias of the stubs accepts, in its order."""
    names: list[str] = []
    union = typing.get_origin(action) in (typing.Union, types.UnionType)
    for member in typing.get_args(action) if union else (action,):
        if typing.get_origin(member) is typing.Literal:
            names.extend(typing.get_args(member))
        else:
            names.extend(member.__annotations__)
    return names


def main() -> None:
    fixture = json.loads(Path(sys.argv[1]).read_text(encoding="utf-8"))
    modules = [h, hostile_1_types, hostile_2_types, hostile_3_types, hostile_4_types]
    aliases = [h.HNXUe9IncludeXAction, hostile_1_types.RkStubsAction,
               hostile_2_types.TypedAction, hostile_3_types.TestAction, hostile_4_types.FAction]
    assert len(fixture) == len(modules)
    for module, alias, feature in zip(modules, aliases, fixture):
        assert module.FEATURE == feature["name"], (module.FEATURE, feature["name"])
        assert stub_names(alias) == case_names(feature["action_schema"]), module.__name__
    cases = {next(iter(o["properties"])): o["properties"]
             for o in fixture[0]["action_schema"]["oneOf"] if "anyOf" not in o}
    keys = cases["keys"]["keys"]["properties"]
    assert list(h.HNXUe9IncludeXKeysPayload.__annotations__) == list(keys)
    pick = typing.get_args(h.HNXUe9IncludeXPick.__annotations__["pick"])
    assert list(pick) == cases["pick"]["pick"]["enum"], pick
    state_schema = fixture[0]["state_schema"]
    assert list(h.HNXUe9IncludeXState.__annotations__) == list(state_schema["properties"])
    assert h.HNXUe9IncludeXState.__required_keys__ == frozenset(state_schema["required"])
    assert issubclass(hostile_3_types.TestStore, Store)
    assert issubclass(hostile_3_types.TestTestStore, TestStore)
    assert hostile_2_types.TypedDict2.__annotations__ == {"dict": int}
    assert hostile_4_types.FEATURE2.__annotations__ == {"EATURE": str}
    print(f"hostile Python stubs: {len(modules)} modules, {len(actions) + len(others)} typed "
          "actions, every name the fixture's")


if __name__ == "__main__":
    main()
