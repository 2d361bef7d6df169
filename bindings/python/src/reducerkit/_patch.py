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
        raise ValueError(f"{pointer!r} is not a JSON Pointer: it must be '' or start with '/'")
    segments = pointer[1:].split("/")
    if "~" in pointer:
        out = []
        for s in segments:
            if "~" in s:
                check = s.replace("~0", "").replace("~1", "")
                if "~" in check:
                    raise ValueError(f"{pointer!r}: '~' must be followed by 0 or 1")
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

def apply_patch(doc: Any, ops: list[dict[str, Any]]) -> Any:
    """The snapshot ``doc`` with ``ops`` applied, in order. ``doc`` is not changed: the
    containers on each op's path are copied (once per patch), everything else is shared.

    Raises:
        ValueError: an op that does not apply (a path to nothing, an unknown op).
    """
    fresh: set[int] = set()  # containers made by this call: changed in place
    for op in ops:
        kind = op.get("op")
        try:
            path = op["path"]
            segments = tuple(path[1:].split("/")) if "~" not in path and path else \
                parse_pointer(path)
        except (KeyError, TypeError, AttributeError) as e:
            raise ValueError(f"patch op without a path: {op!r}") from e
        if kind == "replace" or kind == "add":
            value = freeze(op["value"])
        elif kind == "remove":
            value = MISSING
        else:
            raise ValueError(f"unsupported patch op {kind!r} (the library writes add, remove "
                             f"and replace)")
        if not segments:
            if value is MISSING:
                raise ValueError("a patch cannot remove the whole document")
            doc = value
            fresh.clear()
            continue
        try:
            doc = _apply_at(doc, segments, 0, kind, value, fresh)
        except (KeyError, IndexError, TypeError) as e:
            raise ValueError(f"patch op {op!r} does not apply: no {e}") from None
    return doc


def _apply_at(node: Any, segments: tuple[str, ...], depth: int, kind: str, value: Any,
              fresh: set[int]) -> Any:
    segment = segments[depth]
    last = depth == len(segments) - 1
    if isinstance(node, dict):
        if id(node) not in fresh:
            node = FrozenDict(node)
            fresh.add(id(node))
        if last:
            if kind == "remove":
                _dict_del(node, segment)
            elif kind == "replace" and segment not in node:
                raise KeyError(segment)
            else:
                _dict_set(node, segment, value)
        else:
            _dict_set(node, segment, _apply_at(node[segment], segments, depth + 1, kind, value,
                                               fresh))
        return node
    if isinstance(node, list):
        if id(node) not in fresh:
            node = FrozenList(node[:])  # slicing copies at C speed; the subclass would iterate
            fresh.add(id(node))
        if last:
            i = _index(segment, len(node), end_ok=kind == "add")
            if kind == "add":
                _list_insert(node, i, value)
            elif kind == "remove":
                _list_del(node, i)
            else:
                _list_set(node, i, value)
        else:
            i = _index(segment, len(node), end_ok=False)
            _list_set(node, i, _apply_at(node[i], segments, depth + 1, kind, value, fresh))
        return node
    raise TypeError(f"container at {render_pointer(segments[:depth])}")


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
