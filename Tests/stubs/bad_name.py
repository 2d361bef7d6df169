# expect: has incompatible type "dict[str, int]"
from counter_types import CounterStore

with CounterStore("counter", clock="test") as store:
    store.send({"setCont": 5})
