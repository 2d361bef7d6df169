"""A correctly typed program over the generated stubs (mypy --strict accepts it)."""
from counter_types import CounterAction, CounterState, CounterStore, CounterTestStore
from search_types import SearchStore
from todos_types import TodosStore

with CounterStore("counter", clock="test") as store:
    store.send("increment")
    store.send({"setCount": 5})
    action: CounterAction = {"factResponse": "five"}
    store.send(action)
    state: CounterState = store.state
    count: int = state["count"]
    fact: str | None = state.get("fact")
    assert (count, fact) == (5, "five"), state

with TodosStore("todos", clock="test") as todos:
    todos.send({"addTodo": {"title": 'Milk "2%"\n'}})
    todos.send({"setFilter": "active"})
    titles: list[str] = [t["title"] for t in todos.state["todos"]]
    assert titles == ['Milk "2%"\n'], titles

with SearchStore("search", clock="test") as search:
    search.send({"queryChanged": "sw"})
    results: list[str] = search.state["results"]

with CounterTestStore("counter") as ts:
    ts.send({"setCount": 2}, count=2)
print("typed program ok")
