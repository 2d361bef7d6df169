"""Hypothesis strategies built from a feature's JSON Schemas (``rk_features()``).

Needs Hypothesis: ``pip install reducerkit[test]``.

```python
from hypothesis import given

import reducerkit
from reducerkit.testing import strategies

@given(strategies.actions("counter"))
def test_any_action_is_accepted(action):
    with reducerkit.Store("counter", clock="test") as store:
        store.send(action)
```

Every value a strategy draws is valid for the schema, and so accepted by the library (the
published schemas and the decoder agree on every input). Values shrink towards small
integers, short strings and lists, and the first case of each ``oneOf``.
"""

from __future__ import annotations

import os
from typing import Any

try:
    from hypothesis import strategies as st
except ImportError as e:  # pragma: no cover - depends on the environment
    raise ImportError("reducerkit.testing.strategies needs Hypothesis: pip install "
                      "'reducerkit[test]' (or pip install hypothesis)") from e

from .._native import Library
from ..errors import Status, UnknownFeatureError
from ..store import features

__all__ = ["from_schema", "actions", "states", "responses", "feature_description"]

INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1


def feature_description(feature: str,
                        library: Library | str | os.PathLike[str] | None = None
                        ) -> dict[str, Any]:
    """The feature's entry of ``rk_features()`` (name, schemas, initial state, endpoints).

    Raises:
        UnknownFeatureError: the library has no such feature (the message lists its features).
    """
    items = features(library)
    for item in items:
        if item.get("name") == feature:
            return item
    names = ", ".join(repr(i.get("name")) for i in items)
    raise UnknownFeatureError(f"unknown feature {feature!r}; the library has: {names}",
                              Status.UNKNOWN_FEATURE)


def from_schema(schema: Any, *, max_depth: int = 6) -> st.SearchStrategy[Any]:
    """A strategy of JSON values valid for ``schema``: the subset of JSON Schema the library
    publishes (``const``, ``enum``, ``oneOf``/``anyOf``, ``type`` (or a list of types),
    ``minimum``/``maximum``, ``items``, ``prefixItems``, ``properties``, ``required``,
    ``additionalProperties``, ``maxProperties: 0``)."""
    return _strategy(schema, 0, max_depth)


def _strategy(schema: Any, depth: int, max_depth: int) -> st.SearchStrategy[Any]:
    if not isinstance(schema, dict) or not schema:
        return st.one_of(st.none(), st.booleans(), st.integers(-10, 10), st.text(max_size=4))
    if "const" in schema:
        return st.just(schema["const"])
    if "enum" in schema:
        return st.sampled_from(schema["enum"])
    for key in ("oneOf", "anyOf"):
        if key in schema:
            return st.one_of([_strategy(s, depth + 1, max_depth) for s in schema[key]])
    kind = schema.get("type")
    if isinstance(kind, list):
        return st.one_of([_strategy({**schema, "type": k}, depth, max_depth) for k in kind])
    if kind == "null":
        return st.none()
    if kind == "boolean":
        return st.booleans()
    if kind == "integer":
        return st.integers(schema.get("minimum", INT64_MIN), schema.get("maximum", INT64_MAX))
    if kind == "number":
        return st.one_of(st.integers(-(10**6), 10**6),
                         st.floats(allow_nan=False, allow_infinity=False, width=64))
    if kind == "string":
        return st.text(max_size=12)
    if kind == "array":
        if "prefixItems" in schema:
            return st.tuples(*[_strategy(s, depth + 1, max_depth)
                               for s in schema["prefixItems"]]).map(list)
        size = 4 if depth < max_depth else 0
        return st.lists(_strategy(schema.get("items", {}), depth + 1, max_depth), max_size=size)
    if kind == "object":
        if schema.get("maxProperties") == 0:
            return st.just({})
        properties = schema.get("properties", {})
        required = set(schema.get("required", []))
        base = st.fixed_dictionaries(
            {k: _strategy(v, depth + 1, max_depth) for k, v in properties.items() if k in required},
            optional={k: _strategy(v, depth + 1, max_depth) for k, v in properties.items()
                      if k not in required})
        extra = schema.get("additionalProperties")
        if isinstance(extra, dict) and depth < max_depth:
            more = st.dictionaries(st.text(min_size=1, max_size=6).filter(
                lambda k: k not in properties), _strategy(extra, depth + 1, max_depth),
                max_size=2)
            return st.tuples(base, more).map(lambda pair: {**pair[1], **pair[0]})
        return base
    return st.none()


def actions(feature: str,
            library: Library | str | os.PathLike[str] | None = None) -> st.SearchStrategy[Any]:
    """Valid actions of ``feature`` (from its ``action_schema``), in any of the wire format's
    accepted forms (``"increment"``, ``{"increment": {}}``, ``{"setCount": 5}``, ...)."""
    return from_schema(feature_description(feature, library)["action_schema"])


def states(feature: str,
           library: Library | str | os.PathLike[str] | None = None) -> st.SearchStrategy[Any]:
    """Valid states of ``feature`` (from its ``state_schema``): ``initial_state`` values."""
    return from_schema(feature_description(feature, library)["state_schema"])


def responses(feature: str, endpoint: str,
              library: Library | str | os.PathLike[str] | None = None
              ) -> st.SearchStrategy[Any]:
    """Valid responses to requests of ``feature``'s host endpoint ``endpoint``."""
    for item in feature_description(feature, library).get("requests") or []:
        if item.get("name") == endpoint:
            return from_schema(item.get("response_schema"))
    raise UnknownFeatureError(f"feature {feature!r} has no host endpoint {endpoint!r}",
                              Status.UNKNOWN_FEATURE)
