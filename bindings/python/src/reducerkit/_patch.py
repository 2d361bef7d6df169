"""JSON Pointers (RFC 6901) and JSON Patches (RFC 6902) over immutable snapshots.

The library sends what changed as a JSON Patch; :func:`apply_patch` turns one snapshot into the
next while sharing every unchanged dict and list with it, so a state a user kept never
changes under them and a small change costs the containers on its path. Snapshots are
:class:`FrozenDict` / :class:`FrozenList`: real ``dict`` and ``list`` objects (``json``,
``==``, ``isinstance`` work) whose mutating methods raise ``TypeError``; ``copy.copy`` and
``copy.deepcopy`` give ordinary mutable ones.

:func:`make_patch` computes the patch between two plain values (the TestStore's diffs).
"""

from __future__ import annotations

from typing import Any

from ._json import shown

__all__ = ["FrozenDict", "FrozenList", "MISSING", "freeze", "thaw", "parse_pointer",
           "render_pointer", "escape", "resolve", "apply_patch", "make_patch", "affects"]


class _Missing:
    """The value of a part that does not exist (``reducerkit.MISSING``)."""

    _instance: _Missing | None = None

    def __new__(cls) -> _Missing:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "reducerkit.MISSING"

    def __bool__(self) -> bool:
        return False


MISSING: Any = _Missing()
"""What a path subscriber gets when the part it watches stops existing."""


def _read_only(self: Any, *args: Any, **kwargs: Any) -> Any:
    raise TypeError(
        f"a reducerkit state snapshot is read-only (it shares parts with other versions); "
        f"copy.deepcopy() it, or reducerkit.thaw() it, to get a mutable copy")


class FrozenDict(dict):  # type: ignore[type-arg]
    """A read-only ``dict`` of a state snapshot."""

    __slots__ = ()
    __setitem__ = __delitem__ = clear = pop = popitem = setdefault = update = _read_only
    __ior__ = _read_only

    def __copy__(self) -> dict[Any, Any]:
        return dict(self)

    def __deepcopy__(self, memo: dict[int, Any]) -> dict[Any, Any]:
        copied: dict[Any, Any] = thaw(self)
        return copied

    def __reduce__(self) -> Any:
        return (dict, (dict(self),))


class FrozenList(list):  # type: ignore[type-arg]
    """A read-only ``list`` of a state snapshot."""

    __slots__ = ()
    __setitem__ = __delitem__ = append = extend = insert = pop = remove = clear = _read_only
    sort = reverse = __iadd__ = __imul__ = _read_only

    def __copy__(self) -> list[Any]:
        return list(self)

    def __deepcopy__(self, memo: dict[int, Any]) -> list[Any]:
        copied: list[Any] = thaw(self)
        return copied

    def __reduce__(self) -> Any:
        return (list, (list(self),))


_dict_set = dict.__setitem__
_dict_del = dict.__delitem__
_list_set = list.__setitem__
_list_insert = list.insert
_list_del = list.__delitem__


def freeze(value: Any) -> Any:
    """``value`` (plain JSON: dicts, lists, scalars) as a snapshot, frozen all the way down."""
    t = type(value)
    if t is dict:
        return FrozenDict({k: freeze(v) for k, v in value.items()})
    if t is list:
        return FrozenList([freeze(v) for v in value])
    return value


def thaw(value: Any) -> Any:
    """A mutable deep copy of a snapshot (or of any JSON value)."""
    if isinstance(value, dict):
        return {k: thaw(v) for k, v in value.items()}
    if isinstance(value, list):
        return [thaw(v) for v in value]
    return value


# ---- pointers ---------------------------------------------------------------------------

def escape(segment: str) -> str:
    """A key as a pointer segment: ``~`` is ``~0`` and ``/`` is ``~1``."""
    return segment.replace("~", "~0").replace("/", "~1")


def render_pointer(segments: list[str] | tuple[str, ...]) -> str:
    """The pointer of ``segments``: ``["todos", "0"]`` is ``/todos/0``."""
    return "".join("/" + escape(s) for s in segments)


def parse_pointer(pointer: str) -> tuple[str, ...]:
    """The unescaped segments of an RFC 6901 pointer (``""`` is the whole document).

    Raises:
        ValueError: not a pointer (no leading ``/``, or ``~`` not followed by 0 or 1).
    """
    if pointer == "":
        return ()
    if not isinstance(pointer, str) or not pointer.startswith("/"):
        raise ValueError(f"{shown(pointer)} is not a JSON Pointer: it must be '' or start with '/'")
    segments = pointer[1:].split("/")
    if "~" in pointer:
        out = []
        for s in segments:
            if "~" in s:
                check = s.replace("~0", "").replace("~1", "")
                if "~" in check:
                    raise ValueError(f"{shown(pointer)}: '~' must be followed by 0 or 1")
                s = s.replace("~1", "/").replace("~0", "~")
            out.append(s)
        return tuple(out)
    return tuple(segments)


def _index(segment: str, length: int, *, end_ok: bool) -> int:
    if segment == "-" and end_ok:
        return length
    if not segment.isdigit() or (segment != "0" and segment.startswith("0")) \
            or not segment.isascii():
        raise KeyError(segment)
    i = int(segment)
    if i > length or (i == length and not end_ok):
        raise KeyError(segment)
    return i


def resolve(doc: Any, segments: tuple[str, ...] | list[str]) -> Any:
    """The value at ``segments`` in ``doc``, or :data:`MISSING`."""
    node = doc
    for s in segments:
        if isinstance(node, dict):
            if s not in node:
                return MISSING
            node = node[s]
        elif isinstance(node, list):
            try:
                node = node[_index(s, len(node), end_ok=False)]
            except KeyError:
                return MISSING
        else:
            return MISSING
    return node


# ---- applying ---------------------------------------------------------------------------

_split_cache: dict[str, tuple[tuple[str, ...], tuple[int, ...]]] = {}
_MAX_CACHED_PATHS = 4096


def _split(path: str) -> tuple[tuple[str, ...], tuple[int, ...]]:
    """The segments of an op's path and, for each, its value as an array index (-1: not an
    index, nor ``-``), cached by path text: patches repeat their paths (the same field of
    the same element, action after action)."""
    compiled = _split_cache.get(path)
    if compiled is None:
        segments = tuple(path[1:].split("/")) if "~" not in path and path else \
            parse_pointer(path)
        compiled = (segments, tuple(_as_index(s) for s in segments))
        if len(_split_cache) < _MAX_CACHED_PATHS:
            _split_cache[path] = compiled
    return compiled


def _as_index(segment: str) -> int:
    """``segment`` as an array index (decimal ASCII digits, no leading zero), else -1."""
    if not segment.isdigit() or (segment != "0" and segment.startswith("0")) \
            or not segment.isascii():
        return -1
    return int(segment)


def apply_patch(doc: Any, ops: list[dict[str, Any]]) -> Any:
    """The snapshot ``doc`` with ``ops`` applied, in order. ``doc`` is not changed: the
    containers on each op's path are copied (once per patch), everything else is shared.

    Raises:
        ValueError: an op that does not apply (a path to nothing, an unknown op).
    """
    # Containers made by this call (by id), changed in place by its later ops; a patch of one
    # op (the common case) needs no record.
    fresh: set[int] | None = set() if len(ops) > 1 else None
    for op in ops:
        kind = op.get("op")
        try:
            path = op["path"]
            compiled = _split_cache.get(path)  # _split(path), without a call when cached
            segments, indices = compiled if compiled is not None else _split(path)
        except (KeyError, TypeError, AttributeError) as e:
            raise ValueError(f"patch op without a path: {op!r}") from e
        if kind == "replace" or kind == "add":
            value = op["value"]
            t = type(value)
            if t is dict or t is list:
                value = freeze(value)
        elif kind == "remove":
            value = MISSING
        else:
            raise ValueError(f"unsupported patch op {kind!r} (the library writes add, remove "
                             f"and replace)")
        if not segments:
            if value is MISSING:
                raise ValueError("a patch cannot remove the whole document")
            doc = value
            if fresh is not None:
                fresh.clear()
            continue
        try:
            doc = _apply_op(doc, segments, indices, kind, value, fresh)
        except (KeyError, IndexError, TypeError) as e:
            raise ValueError(f"patch op {op!r} does not apply: no {e}") from None
    return doc


def _apply_op(doc: Any, segments: tuple[str, ...], indices: tuple[int, ...], kind: str,
              value: Any, fresh: set[int] | None) -> Any:
    """``doc`` with one op applied: finds the containers on the path (raising KeyError or
    TypeError for a path to nothing before changing anything), changes a copy of the last
    one, and copies its ancestors bottom-up to hold the new child. A container this call
    made (in ``fresh``) is changed in place instead, and then its ancestors already hold it."""
    last = len(segments) - 1
    above: list[Any] = []  # the containers above the target's, root first
    node = doc
    depth = 0
    while depth < last:
        if isinstance(node, dict):
            above.append(node)
            node = node[segments[depth]]
        elif isinstance(node, list):
            i = indices[depth]
            if i < 0 or i >= len(node):
                raise KeyError(segments[depth])
            above.append(node)
            node = node[i]
        else:
            raise TypeError(f"container at {render_pointer(segments[:depth])}")
        depth += 1
    segment = segments[last]
    if isinstance(node, dict):
        if kind != "add" and segment not in node:
            raise KeyError(segment)
        if fresh is not None and id(node) in fresh:
            if kind == "remove":
                _dict_del(node, segment)
            else:
                _dict_set(node, segment, value)
            return doc  # reachable from doc: its ancestors hold it already
        node = FrozenDict(node)
        if kind == "remove":
            _dict_del(node, segment)
        else:
            _dict_set(node, segment, value)
    elif isinstance(node, list):
        i = indices[last]
        if i < 0 or i >= len(node):
            i = _index(segment, len(node), end_ok=kind == "add")  # "-", the end, or KeyError
        if fresh is not None and id(node) in fresh:
            _change_list(node, kind, i, value)
            return doc
        node = _copy_list(node)
        _change_list(node, kind, i, value)
    else:
        raise TypeError(f"container at {render_pointer(segments[:last])}")
    if fresh is not None:
        fresh.add(id(node))
    # Up the path: each ancestor (copied unless this call made it) holds the new child.
    child = node
    while depth:
        depth -= 1
        parent = above[depth]
        if isinstance(parent, dict):
            key: Any = segments[depth]
            if fresh is not None and id(parent) in fresh:
                _dict_set(parent, key, child)
                return doc
            parent = FrozenDict(parent)
            _dict_set(parent, key, child)
        else:
            key = indices[depth]
            if fresh is not None and id(parent) in fresh:
                _list_set(parent, key, child)
                return doc
            parent = _copy_list(parent)
            _list_set(parent, key, child)
        if fresh is not None:
            fresh.add(id(parent))
        child = parent
    return child


def _change_list(node: list[Any], kind: str, i: int, value: Any) -> None:
    if kind == "add":
        _list_insert(node, i, value)
    elif kind == "remove":
        _list_del(node, i)
    else:
        _list_set(node, i, value)


def _copy_list(node: list[Any]) -> FrozenList:
    # From a FrozenList, list.extend iterates (it copies at C speed only from an exact list
    # or tuple): one pass. Slicing first would be two passes and a temporary list.
    return FrozenList(node)


def affects(op_path: tuple[str, ...], kind: str, watched: tuple[str, ...]) -> bool:
    """Whether an op at ``op_path`` may change the value at ``watched``: it is at, above or
    below it, or it adds or removes an array element before it (shifting its index)."""
    n = min(len(op_path), len(watched))
    if op_path[:n] == watched[:n]:
        return True
    if kind != "replace" and len(op_path) <= len(watched):
        parent = op_path[:-1]
        if watched[:len(parent)] == parent:
            # A sibling of an ancestor: only an array index at or before ours shifts it.
            mine, theirs = watched[len(parent)], op_path[-1]
            return mine.isdigit() and (theirs == "-" or (theirs.isdigit() and
                                                         int(theirs) <= int(mine)))
    return False


# ---- computing ----------------------------------------------------------------------------

def make_patch(before: Any, after: Any) -> list[dict[str, Any]]:
    """The JSON Patch that turns ``before`` into ``after`` (``true`` is not ``1``): objects
    by key, arrays by index after their common prefix and suffix."""
    ops: list[dict[str, Any]] = []
    _diff(before, after, [], ops)
    return ops


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, dict):
        return isinstance(b, dict) and a.keys() == b.keys() and all(_same(v, b[k])
                                                                    for k, v in a.items())
    if isinstance(a, list):
        return isinstance(b, list) and len(a) == len(b) and all(_same(x, y)
                                                                for x, y in zip(a, b))
    if isinstance(b, (dict, list)):
        return False
    return bool(a == b)


def _diff(a: Any, b: Any, path: list[str], ops: list[dict[str, Any]]) -> None:
    if a is b or _same(a, b):
        return
    if isinstance(a, dict) and isinstance(b, dict):
        for key, value in b.items():
            if key in a:
                _diff(a[key], value, path + [key], ops)
            else:
                ops.append({"op": "add", "path": render_pointer(path + [key]), "value": value})
        for key in a:
            if key not in b:
                ops.append({"op": "remove", "path": render_pointer(path + [key])})
        return
    if isinstance(a, list) and isinstance(b, list):
        prefix = 0
        limit = min(len(a), len(b))
        while prefix < limit and _same(a[prefix], b[prefix]):
            prefix += 1
        suffix = 0
        while suffix < limit - prefix and _same(a[len(a) - 1 - suffix], b[len(b) - 1 - suffix]):
            suffix += 1
        old_mid, new_mid = len(a) - prefix - suffix, len(b) - prefix - suffix
        overlap = min(old_mid, new_mid)
        for i in range(prefix, prefix + overlap):
            _diff(a[i], b[i], path + [str(i)], ops)
        for i in range(prefix + overlap, prefix + new_mid):
            ops.append({"op": "add", "path": render_pointer(path + [str(i)]), "value": b[i]})
        for i in range(prefix + old_mid - 1, prefix + overlap - 1, -1):
            ops.append({"op": "remove", "path": render_pointer(path + [str(i)])})
        return
    ops.append({"op": "replace", "path": render_pointer(path), "value": b})
