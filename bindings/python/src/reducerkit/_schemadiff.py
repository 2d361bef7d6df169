"""What changed between two releases of a library's features (``rk_features()`` lists), and
which changes break a host: ``python -m reducerkit schema diff OLD NEW``.

Breaking (a host written, or a state saved, against OLD may fail against NEW):

- a feature, an action, a state field or a host endpoint removed (or renamed: shown as a
  removal, with the likely new name when one addition has the same schema);
- a narrowed type where the host sends data: an action's payload, or an endpoint's response
  (a type, enum value or range no longer accepted, a field that became required, a field
  removed from an object that takes no others);
- an endpoint's payload widened (the host receives what it did not before);
- a state schema change without a ``state_version`` bump (saved snapshots would be read as
  the new shape without a migration), or a ``state_version`` that went down.

Everything else that differs is listed as compatible: added features, actions, fields and
endpoints, widened action payloads, a state change with a ``state_version`` bump (its
migrations turn older snapshots into the new shape), a new schema hash (typed stubs must be
generated again: they refuse a library of another schema).

The comparison reads the JSON Schemas ``rk_features()`` writes (``type``, ``const``, ``enum``,
``properties``, ``required``, ``additionalProperties``, ``items``, ``prefixItems``, ``anyOf``,
``oneOf``, ``minimum``, ``maximum``); a keyword it does not know is compared for equality.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

__all__ = ["Change", "diff_features", "format_changes"]

_NUMERIC = {"integer", "number"}
_KNOWN = {"$schema", "type", "const", "enum", "properties", "required", "additionalProperties",
          "items", "prefixItems", "anyOf", "oneOf", "minimum", "maximum", "description",
          "maxProperties", "minItems", "maxItems"}


@dataclass(frozen=True)
class Change:
    """One difference: the feature, where (``action 'setCount'``, ``state /fact``...), what
    changed, and whether it breaks a host."""

    feature: str
    where: str
    what: str
    breaking: bool

    def __str__(self) -> str:
        mark = "BREAKING" if self.breaking else "ok      "
        where = f"{self.where}: " if self.where else ""
        return f"  {mark}  {where}{self.what}"


def _show(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=True)
    return text if len(text) <= 60 else text[:57] + "..."


def _pointer(path: str, key: str) -> str:
    return f"{path}/{key.replace('~', '~0').replace('/', '~1')}"


def _types(schema: dict[str, Any]) -> set[str] | None:
    """The JSON types a schema allows by its ``type``/``const``/``enum`` (None: any)."""
    kind = schema.get("type")
    if isinstance(kind, str):
        return {kind}
    if isinstance(kind, list):
        return {k for k in kind if isinstance(k, str)}
    values = [schema["const"]] if "const" in schema else schema.get("enum")
    if isinstance(values, list):
        return {_type_of(v) for v in values}
    return None


def _type_of(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    return "array" if isinstance(value, list) else "object"


def _branches(schema: dict[str, Any]) -> list[Any] | None:
    for key in ("anyOf", "oneOf"):
        if isinstance(schema.get(key), list):
            return list(schema[key])
    return None


def narrowings(old: Any, new: Any, path: str = "") -> list[str]:
    """Why some value ``old`` accepts would be refused by ``new`` (empty: none found)."""
    if not isinstance(old, dict) or not isinstance(new, dict):
        return [] if old == new else [f"at {path or '/'}: schema {_show(old)} became {_show(new)}"]
    old_branches, new_branches = _branches(old), _branches(new)
    if old_branches is not None:
        reasons: list[str] = []
        for branch in old_branches:
            reasons += narrowings(branch, new, path)
        return reasons
    if new_branches is not None:
        found = [narrowings(old, branch, path) for branch in new_branches]
        return [] if any(not r for r in found) else min(found, key=len)
    where = path or "/"
    old_types, new_types = _types(old), _types(new)
    if new_types is not None:
        allowed = new_types | ({"integer"} if "number" in new_types else set())
        lost = (old_types if old_types is not None else {"any type"}) - allowed
        if lost:
            return [f"at {where}: type {'|'.join(sorted(old_types or {'any'}))} became "
                    f"{'|'.join(sorted(new_types))}"]
    reasons = []
    if "const" in new and old.get("const", object()) != new["const"]:
        return [f"at {where}: only {_show(new['const'])} is accepted now"]
    if isinstance(new.get("enum"), list):
        old_values = old.get("enum") if isinstance(old.get("enum"), list) else (
            [old["const"]] if "const" in old else None)
        if old_values is None:
            reasons.append(f"at {where}: only {_show(new['enum'])} are accepted now")
        else:
            gone = [v for v in old_values if v not in new["enum"]]
            if gone:
                reasons.append(f"at {where}: {_show(gone)[1:-1]} no longer accepted")
    for bound, sign in (("minimum", 1), ("maximum", -1)):
        if isinstance(new.get(bound), (int, float)):
            was = old.get(bound)
            if not isinstance(was, (int, float)) or sign * (new[bound] - was) > 0:
                reasons.append(f"at {where}: {bound} {was if was is not None else 'none'} "
                               f"became {new[bound]}")
    old_props: dict[str, Any] = old["properties"] if isinstance(old.get("properties"), dict) else {}
    new_props: dict[str, Any] = new["properties"] if isinstance(new.get("properties"), dict) else {}
    closed = new.get("additionalProperties") is False
    old_required = set(old.get("required") or [])
    for key, sub in old_props.items():
        if key not in new_props:
            if closed:
                reasons.append(f"at {_pointer(path, key)}: field removed")
            continue
        reasons += narrowings(sub, new_props[key], _pointer(path, key))
    for key in sorted(set(new.get("required") or []) - old_required):
        reasons.append(f"at {_pointer(path, key)}: field " +
                       ("now required" if key in old_props else "added, required"))
    if "items" in new:
        reasons += narrowings(old.get("items", {}), new["items"], f"{path}/*")
    if isinstance(new.get("prefixItems"), list):
        old_items: list[Any] = old["prefixItems"] if isinstance(old.get("prefixItems"), list) else []
        for i, sub in enumerate(new["prefixItems"]):
            reasons += narrowings(old_items[i] if i < len(old_items) else {}, sub, f"{path}/{i}")
    for key in sorted(set(new) - _KNOWN):
        if old.get(key) != new[key]:
            reasons.append(f"at {where}: {key} {_show(old.get(key))} became {_show(new[key])}")
    return reasons


def _strip(schema: Any) -> Any:
    """The schema without ``$schema`` and descriptions, for equality."""
    if isinstance(schema, dict):
        return {k: _strip(v) for k, v in schema.items() if k not in ("$schema", "description")}
    if isinstance(schema, list):
        return [_strip(v) for v in schema]
    return schema


def _actions(schema: Any) -> dict[str, Any]:
    """Action name -> payload schema (``None`` for a case without payload)."""
    from .stubs import _action_cases
    return {name: (None if is_unit else _strip(payload))
            for name, payload, is_unit in _action_cases(schema or {})}


def _state_fields(schema: Any, path: str = "") -> dict[str, Any]:
    """Every field of the state (a JSON Pointer, ``*`` for array items) -> its schema."""
    out: dict[str, Any] = {}
    if not isinstance(schema, dict):
        return out
    for branch in _branches(schema) or []:
        out.update(_state_fields(branch, path))
    props = schema.get("properties")
    if isinstance(props, dict):
        for key, sub in props.items():
            pointer = _pointer(path, key)
            out[pointer] = sub
            out.update(_state_fields(sub, pointer))
    if isinstance(schema.get("items"), dict):
        out.update(_state_fields(schema["items"], f"{path}/*"))
    return out


def _renamed(name: str, old: dict[str, Any], new: dict[str, Any]) -> str:
    """`` (renamed to 'x'?)`` when exactly one added entry has the removed one's schema."""
    added = [k for k in new if k not in old and _strip(new[k]) == _strip(old[name])]
    return f" (renamed to {added[0]!r}?)" if len(added) == 1 else ""


def _diff_feature(name: str, old: dict[str, Any], new: dict[str, Any]) -> list[Change]:
    changes: list[Change] = []

    def add(where: str, what: str, breaking: bool) -> None:
        changes.append(Change(name, where, what, breaking))

    old_actions, new_actions = _actions(old.get("action_schema")), _actions(new.get("action_schema"))
    for action, payload in old_actions.items():
        if action not in new_actions:
            add(f"action {action!r}", "removed" + _renamed(action, old_actions, new_actions), True)
        elif payload != new_actions[action]:
            reasons = narrowings(payload if payload is not None else {"type": "null"},
                                 new_actions[action] if new_actions[action] is not None
                                 else {"type": "null"})
            if reasons:
                for reason in reasons:
                    add(f"action {action!r}", f"payload narrowed {reason}", True)
            else:
                add(f"action {action!r}", "payload widened (every old payload is accepted)",
                    False)
    for action in new_actions:
        if action not in old_actions:
            add(f"action {action!r}", "added", False)

    old_version, new_version = old.get("state_version", 1), new.get("state_version", 1)
    old_state, new_state = _strip(old.get("state_schema")), _strip(new.get("state_schema"))
    bumped = isinstance(old_version, int) and isinstance(new_version, int) \
        and new_version > old_version
    if old_version != new_version:
        add("state_version", f"{old_version} -> {new_version}" +
            ("" if bumped else ": it went down, snapshots of the old library will not restore"),
            not bumped)
    old_fields, new_fields = _state_fields(old_state), _state_fields(new_state)
    for pointer in old_fields:
        if pointer not in new_fields:
            add(f"state {pointer}", "field removed" + _renamed(pointer, old_fields, new_fields),
                True)
    for pointer in new_fields:
        if pointer not in old_fields:
            add(f"state {pointer}", "field added", False)
    if old_state != new_state:
        if bumped:
            add("state", f"schema changed with state_version {old_version} -> {new_version}: "
                         f"the feature's migrations must turn each older snapshot into it", False)
        else:
            reasons = narrowings(old_state, new_state) or ["the schema differs"]
            add("state", f"schema changed without a state_version bump (state_version "
                         f"{old_version} -> {new_version}), so no migration runs for saved "
                         f"snapshots: "
                         f"{'; '.join(reasons)}", True)

    old_eps = {e.get("name"): e for e in old.get("requests") or [] if isinstance(e, dict)}
    new_eps = {e.get("name"): e for e in new.get("requests") or [] if isinstance(e, dict)}
    for endpoint, before in old_eps.items():
        after = new_eps.get(endpoint)
        if after is None:
            add(f"endpoint {endpoint!r}", "removed (a host that provides it is refused)", True)
            continue
        for reason in narrowings(_strip(before.get("response_schema")),
                                 _strip(after.get("response_schema"))):
            add(f"endpoint {endpoint!r}", f"response narrowed {reason}", True)
        for reason in narrowings(_strip(after.get("payload_schema")),
                                 _strip(before.get("payload_schema"))):
            add(f"endpoint {endpoint!r}",
                f"payload widened (hosts receive what they did not before): {reason}", True)
        if _strip(before) != _strip(after) and not any(
                c.where == f"endpoint {endpoint!r}" for c in changes):
            add(f"endpoint {endpoint!r}", "schemas changed compatibly", False)
    for endpoint in new_eps:
        if endpoint not in old_eps:
            add(f"endpoint {endpoint!r}", "added", False)

    old_hash, new_hash = old.get("schema_hash"), new.get("schema_hash")
    if old_hash != new_hash:
        add("schema_hash", f"{old_hash} -> {new_hash}: generate typed stubs again "
                           f"(python -m reducerkit stubs)", False)
    return changes


def diff_features(old: list[dict[str, Any]], new: list[dict[str, Any]]) -> list[Change]:
    """The changes from the features ``old`` to ``new`` (``rk_features()`` lists), feature by
    feature in the order of ``old``, then the added features."""
    new_by_name = {f.get("name"): f for f in new}
    old_names = {f.get("name") for f in old}
    changes: list[Change] = []
    for feature in old:
        name = str(feature.get("name"))
        after = new_by_name.get(feature.get("name"))
        if after is None:
            changes.append(Change(name, "", "feature removed", True))
        else:
            changes += _diff_feature(name, feature, after)
    for feature in new:
        if feature.get("name") not in old_names:
            changes.append(Change(str(feature.get("name")), "", "feature added", False))
    return changes


def format_changes(changes: list[Change]) -> str:
    """The report ``schema diff`` prints: a heading per feature, a line per change, then the
    count of breaking changes."""
    lines: list[str] = []
    feature = None
    for change in changes:
        if change.feature != feature:
            feature = change.feature
            lines.append(f"feature {feature!r}:")
        lines.append(str(change))
    breaking = sum(c.breaking for c in changes)
    if not changes:
        lines.append("no changes")
    lines.append(f"{breaking} breaking change(s), {len(changes) - breaking} compatible")
    return "\n".join(lines) + "\n"
