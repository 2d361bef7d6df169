"""ReducerKit for Python: drive and test stores whose reducers are written in Swift.

```python
import reducerkit

reducerkit.features()                    # names, action and state schemas
with reducerkit.Store("counter") as store:
    store.send("increment")
    store.send({"setCount": 5})
    print(store.state)                   # {'count': 5, 'fact': None, 'isTimerOn': False}
```

The library ``libreducerkit`` is the one at an explicit path (:func:`load_library`,
``Store(..., library=path)``), else at ``$REDUCERKIT_LIB``, else the copy inside this package
(the wheel and ``pip install`` put it there). A path named explicitly that does not exist is an
error, never a fallback to another copy. See :mod:`reducerkit.testing` for the exhaustive
``TestStore``.

Effects the host fulfils: ``Store(feature, providers={"numberFact": fn})`` answers a feature's
host endpoints with Python functions; ``Store(feature, provide=["numberFact"])`` lets the
program answer them by hand (``pending_requests()``, ``wait_request()``, ``requests()``).
"""

from __future__ import annotations

from ._native import ABI_VERSION, Library
from .errors import (
                     ABIVersionError,
                     ActionError,
                     InternalError,
                     InvalidArgumentError,
                     JSONError,
                     LibraryABIError,
                     LibraryNotFoundError,
                     MisuseError,
                     ReducerKitError,
                     ResponseError,
                     SchemaMismatchError,
                     StateError,
                     Status,
                     StoreClosedError,
                     TimeoutError,
                     UnknownFeatureError,
)
from ._host import Request
from ._lifecycle import features, load_library
from .store import Store

__version__ = "0.2.0"

__all__ = [
    "ABI_VERSION",
    "ABIVersionError",
    "ActionError",
    "InternalError",
    "InvalidArgumentError",
    "JSONError",
    "Library",
    "LibraryABIError",
    "LibraryNotFoundError",
    "MisuseError",
    "ReducerKitError",
    "SchemaMismatchError",
    "Request",
    "ResponseError",
    "StateError",
    "Status",
    "Store",
    "StoreClosedError",
    "TimeoutError",
    "UnknownFeatureError",
    "features",
    "load_library",
]
