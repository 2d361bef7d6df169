# expect: TypedDict "HNXUe9IncludeXKeysPayload" has no key "x"
"""A key is the schema's ("__x"), never its mangled C name (x)."""
import hostile_0_types as h


def read(payload: h.HNXUe9IncludeXKeysPayload) -> object:
    return payload["x"]
