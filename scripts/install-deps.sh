#!/usr/bin/env bash
# Installs what `make test` needs on a fresh Debian machine with the Swift toolchain:
# valgrind and the Python headers (apt), pytest, jsonschema and hypothesis (pip). Skips what is already there.
set -euo pipefail
need_apt=()
command -v valgrind >/dev/null 2>&1 || need_apt+=(valgrind)
command -v readelf >/dev/null 2>&1 || need_apt+=(binutils)
command -v c++ >/dev/null 2>&1 || need_apt+=(g++)
python3 -c 'import sysconfig, os, sys; sys.exit(0 if os.path.exists(os.path.join(sysconfig.get_paths()["include"], "Python.h")) else 1)' \
  || need_apt+=(libpython3-dev)
if [ ${#need_apt[@]} -gt 0 ]; then
  echo "installing: ${need_apt[*]}"
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need_apt[@]}" >/dev/null
fi
python3 -c 'import pytest' 2>/dev/null || python3 -m pip install -q pytest
# The schema-agreement test validates with a Draft 2020-12 validator.
python3 -c 'import jsonschema' 2>/dev/null || python3 -m pip install -q jsonschema
# The JSON Patch property tests generate random states and action sequences.
python3 -c 'import hypothesis' 2>/dev/null || python3 -m pip install -q hypothesis
