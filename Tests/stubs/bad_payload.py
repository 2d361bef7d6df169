# expect: has incompatible type "dict[str, str]"
from counter_types import CounterStore

with CounterStore("counter", clock="test") as store:
    store.send({"setCount": "5"})
