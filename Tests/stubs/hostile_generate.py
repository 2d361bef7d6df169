"""Writes the stubs of each feature I of a fixture (a list of feature descriptions as
rk_features() prints them) as OUTDIR/hostile_I_types.py and OUTDIR/hostile_I_actions.h: the
generator fed the schemas directly, no library needed (scripts/test-stubs.sh).
    usage: python3 hostile_generate.py FIXTURE OUTDIR"""
import json
import sys
from pathlib import Path

from reducerkit.stubs import c_header, python_stubs


def main() -> None:
    features = json.loads(Path(sys.argv[1]).read_text(encoding="utf-8"))
    out = Path(sys.argv[2])
    for i, feature in enumerate(features):
        (out / f"hostile_{i}_types.py").write_text(python_stubs(feature), encoding="utf-8")
        (out / f"hostile_{i}_actions.h").write_text(c_header(feature), encoding="utf-8")


if __name__ == "__main__":
    main()
