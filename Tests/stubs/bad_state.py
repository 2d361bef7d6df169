# expect: "cout"
from counter_types import CounterStore

with CounterStore("counter", clock="test") as store:
    n: int = store.state["cout"]
