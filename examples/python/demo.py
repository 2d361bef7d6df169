"""Drives the Swift example stores from Python, printing what happens.

    make demo        (or: REDUCERKIT_LIB=build/libreducerkit.so python3 examples/python/demo.py)
"""
import reducerkit

print("== features:", ", ".join(f["name"] for f in reducerkit.features()))

print("== counter from Python")
with reducerkit.Store("counter", clock="test") as store:
    token = store.subscribe(lambda state: print("  subscriber:", state))
    store.send("increment")
    store.send({"setCount": 41})
    store.send("factButtonTapped")
    store.wait_idle(timeout=1.0)
    store.unsubscribe(token)
    try:
        store.send("incremnt")
    except reducerkit.ActionError as error:
        print("  a typo is an error, and changes nothing:", error)
    store.send("toggleTimer")
    store.advance(seconds=3)
    print("  after 3 s of test-clock time:", store.state)
    store.send("toggleTimer")

print("== todos")
with reducerkit.Store("todos") as todos:
    todos.send({"addTodo": {"title": "Milk"}})
    todos.send({"addTodo": {"title": "Eggs"}})
    todos.send({"toggle": {"id": 1}})
    todos.send({"setFilter": "active"})
    print("  state:", todos.state)

print("== search, debounced on the test clock")
with reducerkit.Store("search", clock="test") as search:
    search.send({"queryChanged": "sw"})
    search.advance(seconds=0.299)
    print("  after 299 ms:", search.state)
    search.advance(seconds=0.001)
    print("  after 300 ms:", search.state)
