# expect: incompatible type
from todos_types import TodosStore

with TodosStore("todos", clock="test") as store:
    store.send({"setFilter": "done"})
