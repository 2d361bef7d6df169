# expect: "Literal['incremnt']"
from counter_types import CounterStore

with CounterStore("counter", clock="test") as store:
    store.send("incremnt")
