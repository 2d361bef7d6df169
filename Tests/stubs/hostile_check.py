"""Checks the output of hostile.c (scripts/test-stubs.sh): every line is JSON, the lines are
hostile_expected.json's, and every name of hostile_features.json came back unchanged: each
feature name, each case name, the keys of the case `keys` and the values of the case `pick`.
    usage: python3 hostile_check.py FIXTURE EXPECTED OUTPUT"""
import json
import sys
from typing import Any


def fail(message: str) -> None:
    sys.exit(f"stubs: the hostile C program's output: {message}")


def main() -> None:
    with open(sys.argv[1], encoding="utf-8") as f:
        features: list[dict[str, Any]] = json.load(f)
    with open(sys.argv[2], encoding="utf-8") as f:
        expected: list[Any] = json.load(f)
    with open(sys.argv[3], encoding="utf-8", newline="") as f:
        lines = f.read().split("\n")  # not splitlines(): a JSON string may hold U+2028
    if lines[-1] != "":
        fail("the last line does not end")
    got = []
    for n, line in enumerate(lines[:-1], 1):
        try:
            got.append(json.loads(line))
        except ValueError as e:
            fail(f"line {n} is not JSON ({e}): {line[:200]!r}")
    for n, (want, have) in enumerate(zip(expected, got), 1):
        if want != have:
            fail(f"line {n} is {json.dumps(have)[:300]}, expected {json.dumps(want)[:300]}")
    if len(got) != len(expected):
        fail(f"{len(got)} lines, expected {len(expected)}")

    actions = [a for a in got if not isinstance(a, list)]
    sent = [a if isinstance(a, str) else next(iter(a)) for a in actions]
    if [a[1] for a in got if isinstance(a, list) and a[0] == "feature"] != \
            [f["name"] for f in features]:
        fail("the FEATURE macros are not the fixture's names")
    for feature in features:
        for case in feature["action_schema"]["oneOf"]:
            name = case["anyOf"][0]["const"] if "anyOf" in case else next(iter(case["properties"]))
            if name not in sent:
                fail(f"no action {name!r} of {feature['name']!r} was sent as such")
    cases = {next(iter(c["properties"])): c["properties"]
             for c in features[0]["action_schema"]["oneOf"] if "anyOf" not in c}
    keys = next(a["keys"] for a in actions if isinstance(a, dict) and "keys" in a)
    if list(keys) != list(cases["keys"]["keys"]["properties"]):
        fail(f"the keys of `keys` are {list(keys)!r}")
    picks = [a["pick"] for a in actions if isinstance(a, dict) and "pick" in a]
    if picks != cases["pick"]["pick"]["enum"] + [None]:
        fail(f"the values of `pick` are {picks!r}")
    print(f"stubs: the hostile C program sent {len(actions)} actions, every name the fixture's")


if __name__ == "__main__":
    main()
