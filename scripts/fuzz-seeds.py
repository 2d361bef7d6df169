#!/usr/bin/env python3
"""Writes the fuzzers' seed corpora (Tests/fuzz/corpus/*) from the scenarios and the shipped
features' initial states. Each seed is the harness's input: a selector byte, then the text
(for `json`, the text alone; for `scenario`, a scenario file as it is: the scenarios, the
wrong ones and the hostile ones)."""
import glob, hashlib, json, os, sys

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
out = os.path.join(root, "Tests", "fuzz", "corpus")
features = ["counter", "todos", "search"]

def write(harness, selector, text):
    data = (bytes([selector]) if selector is not None else b"") + text.encode()
    d = os.path.join(out, harness)
    os.makedirs(d, exist_ok=True)
    name = hashlib.sha1(data).hexdigest()[:16]
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)

for path in sorted(glob.glob(os.path.join(root, "Tests", "scenarios", "*.scenario.json"))):
    sc = json.load(open(path))
    write("json", None, open(path).read())
    k = features.index(sc["feature"])
    given = sc.get("options", {})
    options = {"clock": given.get("clock", "test")}
    if given.get("initial_state") is not None:
        options["initial_state"] = given["initial_state"]
    if given.get("provide"):
        options["provide"] = given["provide"]
    write("create", k, json.dumps(options))
    write("create", k, json.dumps(dict(options, record=True)))
    for step in sc["steps"]:
        for key in ("send", "receive"):
            if key in step:
                write("send", k, json.dumps(step[key]))
                write("json", None, json.dumps(step[key]))
            if "state" in step:
                write("create", k, json.dumps({"initial_state": step["state"]}))
        if "resolve" in step:
            write("resolve", 1 if sc["feature"] == "search" else 0, json.dumps(step["response"]))
for text in ['{"setCount": -3}', '{"move": [1, 2]}', '{"addTodo": {"title": "Milk", "note": null}}',
             '{"child": {"element": {"id": 3, "action": "active"}}}', '{"mixed": {"_0": 1, "label": "x"}}',
             '{"count": 1, "ratio": 0.5, "title": "t", "flags": [true], "tags": {"a": 1},'
             ' "items": [{"id": 18446744073709551615, "f": 0.1, "child": "toggle"}], "extra": [1e400, "\\u00e9"]}',
             '[1, -0.0, 1.5e-7, 123456789012345678901234567890, "\\ud83d\\ude00", null, {}, []]']:
    write("json", None, text)
for pattern in ("*.scenario.json", "wrong/*.wrong.json", "hostile/*.json"):
    for path in sorted(glob.glob(os.path.join(root, "Tests", "scenarios", pattern))):
        with open(path, "rb") as f:
            data = f.read()
        if len(data) <= 4096:  # make fuzz: -max_len=4096
            write("scenario", None, data.decode("utf-8"))
write("resolve", 0, '"a fact"')
write("resolve", 1, '["apple", "apricot"]')
print("seeds in", out)
