"""The published JSON Schemas and the library agree on every input.

For every shipped feature, actions and states are generated from the feature's schemas
(``reducerkit.features()``): valid ones, and near-valid ones made by one mutation (an extra
key, a missing key, a wrong type, an out-of-range integer, an alternate form, ...). Each is
validated with a Draft 2020-12 validator and given to the library (actions with
``Store.send``, states with the ``initial_state`` option); both must accept or both reject.

``initial_state`` is merged over the feature's default state, so a state is checked against
the schema after the same merge (object keys merge recursively; anything else replaces).
"""

from __future__ import annotations

import copy
import random
from typing import Any

import jsonschema  # scripts/install-deps.sh installs it: a missing validator fails, not skips
import pytest

from reducerkit import ActionError, JSONError, Library, StateError, Store, features

SEED = 20261123
ACTIONS_PER_FEATURE = 1500
STATES_PER_FEATURE = 400
INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1


# ---- generating valid values from a schema -------------------------------------------------

def _random_string(rng: random.Random) -> str:
    alphabet = ["a", "b", "z", "é", "€", "😀", " ", "\n", '"', "\\", "\x00", "\x1f", "_0"]
    return "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 6)))


def _random_int(rng: random.Random, schema: dict[str, Any]) -> int:
    low = schema.get("minimum", INT64_MIN)
    high = schema.get("maximum", INT64_MAX)
    return rng.choice([low, high, 0, 1, -1, 42, rng.randint(low, high)])


def generate(schema: Any, rng: random.Random, depth: int = 0) -> Any:
    """A random value valid for `schema` (the subset of JSON Schema the library publishes)."""
    if not isinstance(schema, dict) or not schema:
        return rng.choice([None, 1, "x", [], {}])
    if "const" in schema:
        return copy.deepcopy(schema["const"])
    if "enum" in schema:
        return copy.deepcopy(rng.choice(schema["enum"]))
    for key in ("oneOf", "anyOf"):
        if key in schema:
            return generate(rng.choice(schema[key]), rng, depth + 1)
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = rng.choice(kind)
    if kind == "null":
        return None
    if kind == "boolean":
        return rng.choice([True, False])
    if kind == "integer":
        return _random_int(rng, schema)
    if kind == "number":
        return rng.choice([0, 1.5, -2.25, 10**6])
    if kind == "string":
        return _random_string(rng)
    if kind == "array":
        if "prefixItems" in schema:
            return [generate(item, rng, depth + 1) for item in schema["prefixItems"]]
        count = rng.randint(0, 3) if depth < 6 else 0
        return [generate(schema.get("items", {}), rng, depth + 1) for _ in range(count)]
    if kind == "object":
        if schema.get("maxProperties") == 0:
            return {}
        value: dict[str, Any] = {}
        required = set(schema.get("required", []))
        for name, sub in schema.get("properties", {}).items():
            if name in required or rng.random() < 0.5:
                value[name] = generate(sub, rng, depth + 1)
        extra = schema.get("additionalProperties")
        if isinstance(extra, dict) and depth < 6:
            for _ in range(rng.randint(0, 2)):
                value[_random_string(rng) or "k"] = generate(extra, rng, depth + 1)
        return value
    return None


# ---- near-valid values ---------------------------------------------------------------------

OTHER_VALUES: list[Any] = [
    None, True, False, 0, -1, 5.0, 1.5, 1e20, 2**63, -(2**63) - 1, 2**64, INT64_MAX, INT64_MIN,
    "", "x", "increment", [], [1], ["a"], [[]], {}, {"a": 1}, {"_0": 5}, {"title": "t"},
]


def _near_key(rng: random.Random, key: str) -> str:
    """A typo of `key` (or another key)."""
    if not key or rng.random() < 0.2:
        return rng.choice(["x", "_0", "extra", "id", "title", "count"])
    i = rng.randrange(len(key))
    edit = rng.choice(["drop", "swap", "change", "upper", "add"])
    if edit == "drop":
        return key[:i] + key[i + 1:] or "x"
    if edit == "swap" and len(key) > 1:
        i = min(i, len(key) - 2)
        return key[:i] + key[i + 1] + key[i] + key[i + 2:]
    if edit == "upper":
        return key[:i] + key[i].swapcase() + key[i + 1:]
    if edit == "add":
        return key[:i] + "x" + key[i:]
    return key[:i] + "q" + key[i + 1:]


def _locations(value: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Paths of every value inside `value` (the root included)."""
    found = [path]
    if isinstance(value, dict):
        for key, sub in value.items():
            found += _locations(sub, path + (key,))
    elif isinstance(value, list):
        for i, sub in enumerate(value):
            found += _locations(sub, path + (i,))
    return found


def _get(value: Any, path: tuple[Any, ...]) -> Any:
    for step in path:
        value = value[step]
    return value


def _set(root: Any, path: tuple[Any, ...], new: Any) -> Any:
    if not path:
        return new
    parent = _get(root, path[:-1])
    parent[path[-1]] = new
    return root


def mutate(value: Any, rng: random.Random, keep_root_object: bool) -> Any:
    """`value` with one random change."""
    root = copy.deepcopy(value)
    places = _locations(root)
    if keep_root_object:
        places = [p for p in places if p] or [()]
    path = rng.choice(places)
    target = _get(root, path)
    choice = rng.random()
    if isinstance(target, dict) and choice < 0.45:
        options = ["add", "add_near", "remove", "second_root"]
        kind = rng.choice(options)
        if kind in ("add", "second_root") or not target:
            target[rng.choice(["x", "_0", "extra", "increment", "setCount", "id"])] = rng.choice(OTHER_VALUES)
        elif kind == "add_near":
            key = rng.choice(list(target))
            target[_near_key(rng, key)] = copy.deepcopy(target[key])
        else:
            del target[rng.choice(list(target))]
        return root
    if isinstance(target, list) and choice < 0.45:
        kind = rng.choice(["append", "pop", "wrap"])
        if kind == "append":
            target.append(rng.choice(OTHER_VALUES))
        elif kind == "pop" and target:
            target.pop()
        else:
            return _set(root, path, [copy.deepcopy(target)])
        return root
    if isinstance(target, str) and choice < 0.5:
        # alternate forms of a bare case: {"case": {}}, {"case": null}, a typo
        form = rng.choice([{target: {}}, {target: None}, {target: {"a": 1}}, {target: []},
                           _near_key(rng, target), target.upper()])
        return _set(root, path, form)
    if isinstance(target, dict) and len(target) == 1 and choice < 0.6:
        (key, payload), = target.items()
        return _set(root, path, rng.choice([key, {key: {"_0": payload}}, {key: [payload]},
                                            {_near_key(rng, key): payload}]))
    if isinstance(target, bool) or not isinstance(target, int):
        return _set(root, path, copy.deepcopy(rng.choice(OTHER_VALUES)))
    # integers: out of range, fractions, floats with integral values, other types
    return _set(root, path, rng.choice([2**63, -(2**63) - 1, 2**64, 10**30, 1.5, float(target % 1000),
                                        1e20, str(target), None, True, INT64_MAX, INT64_MIN]))


def merge(base: Any, overlay: Any) -> Any:
    """`initial_state`'s merge over the default state."""
    if isinstance(base, dict) and isinstance(overlay, dict):
        merged = dict(base)
        for key, value in overlay.items():
            merged[key] = merge(base[key], value) if key in base else value
        return merged
    return overlay


# ---- the test ------------------------------------------------------------------------------

def _cases(schema: Any, rng: random.Random, count: int, keep_root_object: bool) -> list[Any]:
    cases = []
    for i in range(count):
        value = generate(schema, rng)
        if i % 4 != 0:  # three in four are near-valid
            value = mutate(value, rng, keep_root_object)
        cases.append(value)
    return cases


@pytest.mark.parametrize("feature", ["counter", "todos", "search"])
def test_schema_and_library_agree(lib: Library, feature: str) -> None:
    description = next(f for f in features(lib) if f["name"] == feature)
    validator_cls = jsonschema.Draft202012Validator
    action_validator = validator_cls(description["action_schema"])
    state_validator = validator_cls(description["state_schema"])
    validator_cls.check_schema(description["action_schema"])
    validator_cls.check_schema(description["state_schema"])
    rng = random.Random(f"{SEED}-{feature}")
    disagreements: list[str] = []
    counts = {"accepted": 0, "rejected": 0}

    with Store(feature, clock="test", library=lib) as store:
        for action in _cases(description["action_schema"], rng, ACTIONS_PER_FEATURE, False):
            valid = action_validator.is_valid(action)
            try:
                store.send(action)
                accepted, message = True, ""
            except (ActionError, JSONError) as e:
                accepted, message = False, str(e)
            counts["accepted" if accepted else "rejected"] += 1
            if valid != accepted:
                disagreements.append(f"action {action!r}: schema {'accepts' if valid else 'rejects'}, "
                                     f"library {'accepts' if accepted else 'rejects: ' + message}")

    default = description["initial_state"]
    for state in _cases(description["state_schema"], rng, STATES_PER_FEATURE, True):
        valid = isinstance(state, dict) and state_validator.is_valid(merge(default, state))
        try:
            Store(feature, initial_state=state, clock="test", library=lib).close()
            accepted, message = True, ""
        except (StateError, JSONError) as e:
            accepted, message = False, str(e)
        counts["accepted" if accepted else "rejected"] += 1
        if valid != accepted:
            disagreements.append(f"initial_state {state!r}: schema {'accepts' if valid else 'rejects'}, "
                                 f"library {'accepts' if accepted else 'rejects: ' + message}")

    assert not disagreements, f"{len(disagreements)} disagreements, e.g.:\n" + "\n".join(disagreements[:10])
    # Both kinds of input were exercised.
    assert counts["accepted"] > 100 and counts["rejected"] > 100, counts
