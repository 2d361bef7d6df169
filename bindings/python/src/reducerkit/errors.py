"""The exception hierarchy: one class per ``rk_status`` code.

Every exception raised for a failed library call is a :class:`ReducerKitError` carrying the
library's message (``rk_last_error()``), the :class:`Status` and its static description
(``rk_status_string()``):

```python
try:
    store.send("incremnt")
except reducerkit.ActionError as e:
    print(e.message)   # unknown action "incremnt" at $; expected one of: increment, ...
    print(e.status)    # Status.ACTION
```
"""

from __future__ import annotations

import builtins
import enum
from typing import NoReturn

__all__ = [
    "Status",
    "ReducerKitError",
    "InvalidArgumentError",
    "JSONError",
    "ActionError",
    "StateError",
    "UnknownFeatureError",
    "StoreClosedError",
    "TimeoutError",
    "InternalError",
    "MisuseError",
    "SchemaMismatchError",
    "ResponseError",
    "LibraryNotFoundError",
    "ABIVersionError",
    "LibraryABIError",
    "error_for_status",
]


class Status(enum.IntEnum):
    """The ``rk_status`` codes of ``reducerkit.h``."""

    OK = 0
    INVALID_ARGUMENT = 1
    JSON = 2
    ACTION = 3
    STATE = 4
    UNKNOWN_FEATURE = 5
    INVALID_HANDLE = 6
    TIMEOUT = 7
    INTERNAL = 8
    MISUSE = 9
    RESPONSE = 10


class ReducerKitError(Exception):
    """Base class of every error the binding raises.

    Attributes:
        message: what was wrong and where (the library's ``rk_last_error()`` text, or the
            binding's own text for errors detected in Python).
        status: the :class:`Status` code, or ``None`` for errors that are not a library
            status (e.g. :class:`LibraryNotFoundError`).
        status_string: the library's static name of the status, e.g.
            ``"RK_ERR_ACTION: not an action of the feature"`` (empty when unknown).
    """

    status: Status | None
    message: str
    status_string: str

    def __init__(self, message: str, status: Status | int | None = None,
                 status_string: str = "") -> None:
        super().__init__(message)
        self.message = message
        if status is not None and status in _STATUS_VALUES:
            status = Status(status)
        self.status = status  # type: ignore[assignment]
        self.status_string = status_string

    def __str__(self) -> str:
        return self.message

    def __repr__(self) -> str:
        status = self.status.name if isinstance(self.status, Status) else self.status
        return f"{type(self).__name__}({self.message!r}, status={status})"


_STATUS_VALUES = {s.value for s in Status}


class InvalidArgumentError(ReducerKitError, ValueError):
    """``RK_ERR_INVALID_ARGUMENT``: a NULL or out-of-range argument, or a bad option."""


class JSONError(ReducerKitError, ValueError):
    """``RK_ERR_JSON``: text that is not JSON (syntax, invalid UTF-8, nesting too deep), or a
    Python value that cannot be encoded as JSON."""


class ActionError(ReducerKitError, ValueError):
    """``RK_ERR_ACTION``: JSON that is not an action of the feature. The message names the
    JSON path and the expected cases (``expected one of: ...``)."""


class StateError(ReducerKitError, ValueError):
    """``RK_ERR_STATE``: an ``initial_state`` that is not a state of the feature."""


class UnknownFeatureError(ReducerKitError, LookupError):
    """``RK_ERR_UNKNOWN_FEATURE``: no feature of that name is registered."""


class StoreClosedError(ReducerKitError):
    """``RK_ERR_INVALID_HANDLE``: the store was closed (destroyed), or never created."""


class TimeoutError(ReducerKitError, builtins.TimeoutError):  # noqa: A001 - mirrors the C name
    """``RK_ERR_TIMEOUT``: effects did not settle within the time given. Also an instance of
    the built-in :class:`TimeoutError`."""


class InternalError(ReducerKitError):
    """``RK_ERR_INTERNAL``: a bug in ReducerKit or in a feature; the message says what."""


class MisuseError(ReducerKitError):
    """``RK_ERR_MISUSE``: a call not allowed here, e.g. advancing the clock of a store on the
    live clock, or using a store in a ``fork()`` child of the process that created it."""


class SchemaMismatchError(MisuseError):
    """A typed store (``python -m reducerkit stubs``) created against a library whose feature
    has another schema than the one the stubs were generated from. The message names both
    schema hashes and the command that generates the stubs again. Raised before any store is
    made."""


class ResponseError(ReducerKitError, ValueError):
    """``RK_ERR_RESPONSE``: JSON that is not a response of the request's endpoint (an answer
    given to :meth:`reducerkit.Request.resolve`, or returned by a provider). The message
    names the JSON path and the expected type, e.g. ``response to request 1 (numberFact):
    expected String at $, found number 42``. The request stays pending: it can be answered
    again."""


class LibraryNotFoundError(ReducerKitError, OSError):
    """``libreducerkit`` could not be found or loaded. :attr:`tried` lists the place that
    was tried (``(source: path, reason)``); no other copy is tried after it."""

    tried: list[tuple[str, str]]

    def __init__(self, message: str, tried: list[tuple[str, str]] | None = None) -> None:
        super().__init__(message)
        self.tried = tried or []


class ABIVersionError(ReducerKitError):
    """The library's ``rk_abi_version()`` is not one this binding knows (or the file is not a
    ReducerKit library at all)."""


class LibraryABIError(ABIVersionError):
    """The library reports this binding's ABI version but does not keep to it: a function of
    ``reducerkit.h`` returned what the header does not allow (text that is not JSON, JSON of
    the wrong shape, a NULL string). The message names the library file and the function.
    A subclass of :class:`ABIVersionError`: both say the library does not speak this
    binding's ABI."""


_BY_STATUS: dict[int, type[ReducerKitError]] = {
    Status.INVALID_ARGUMENT: InvalidArgumentError,
    Status.JSON: JSONError,
    Status.ACTION: ActionError,
    Status.STATE: StateError,
    Status.UNKNOWN_FEATURE: UnknownFeatureError,
    Status.INVALID_HANDLE: StoreClosedError,
    Status.TIMEOUT: TimeoutError,
    Status.INTERNAL: InternalError,
    Status.MISUSE: MisuseError,
    Status.RESPONSE: ResponseError,
}


def error_for_status(status: int, message: str, status_string: str = "") -> ReducerKitError:
    """The exception for a non-OK status (``ReducerKitError`` itself for unknown codes)."""
    cls = _BY_STATUS.get(status, ReducerKitError)
    if not message:
        message = status_string or f"ReducerKit status {status}"
    return cls(message, status, status_string)


def reraise(errors: list[BaseException]) -> NoReturn:
    """Raises exceptions that callbacks raised (@private: for the binding): one as itself,
    several as a :class:`BaseExceptionGroup`."""
    if len(errors) == 1:
        raise errors[0]
    raise BaseExceptionGroup(f"{len(errors)} exceptions raised in reducerkit callbacks",
                             errors)
