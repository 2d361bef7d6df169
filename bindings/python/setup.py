"""Puts ``libreducerkit.so`` into the reducerkit package and tags the wheel for the platform.

The metadata is in ``pyproject.toml``; this file adds the one step setuptools cannot express
there: where the native library comes from. ``pip install ./bindings/python`` and
``pip wheel ./bindings/python`` (and ``make wheel``) run it. The library is:

1. the file named by ``$REDUCERKIT_PACKAGE_LIB``, if set (a library built elsewhere); else
2. built from the ReducerKit checkout this directory belongs to, with ``make lib`` (which
   needs the Swift 6 toolchain on ``PATH``), and taken from ``build/libreducerkit.so``.

Without either, the build stops with a message that says how to get the library: a package
without it could not do anything. The wheel is tagged ``py3-none-<platform>``: the library is
native code for one platform, but it is loaded with ctypes, so any Python 3 can use it.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from setuptools import Distribution, Extension, setup
from setuptools.command.build_py import build_py
from setuptools.command.bdist_wheel import bdist_wheel

HERE = Path(__file__).resolve().parent
CHECKOUT = HERE.parents[1]  # bindings/python -> the repository
LIB_NAME = "libreducerkit.so"
PACKAGE_LIB_ENV = "REDUCERKIT_PACKAGE_LIB"

HOW_TO_GET_IT = f"""\
reducerkit needs the native library {LIB_NAME}, and this build cannot get it:
{{reason}}
Do one of:
  - install the Swift 6 toolchain (https://www.swift.org/install), put its bin directory on
    PATH and run this install again: it builds the library with `make lib`;
  - on a machine with Swift, run `make wheel` in the ReducerKit checkout and install the wheel
    it makes here: pip install dist/reducerkit-*.whl (it carries the library and needs no Swift);
  - package a library built elsewhere: {PACKAGE_LIB_ENV}=/path/to/{LIB_NAME} pip install ./bindings/python
"""


class LibraryUnavailable(SystemExit):
    """The build cannot get the native library; the message says what to do."""

    def __init__(self, reason: str) -> None:
        super().__init__("error: " + HOW_TO_GET_IT.format(reason=reason))


def _prebuilt_library() -> Path | None:
    value = os.environ.get(PACKAGE_LIB_ENV)
    if not value:
        return None
    path = Path(value).expanduser().resolve()
    if not path.is_file():
        raise LibraryUnavailable(f"  ${PACKAGE_LIB_ENV} names {value!r}, which is not a file.")
    return path


def _build_library() -> Path:
    """Runs ``make lib`` in the checkout and returns ``build/libreducerkit.so``."""
    if not (CHECKOUT / "Package.swift").is_file() or not (CHECKOUT / "Makefile").is_file():
        raise LibraryUnavailable(
            f"  {HERE} is not inside a ReducerKit checkout (no Package.swift and Makefile at "
            f"{CHECKOUT}),\n  so there are no Swift sources to build the library from.")
    if shutil.which("swift") is None:
        raise LibraryUnavailable("  the Swift toolchain is not on PATH (`swift` not found).")
    make = shutil.which("make")
    if make is None:
        raise LibraryUnavailable("  `make` is not on PATH (the library is built by `make lib`).")
    print(f"building {LIB_NAME} with make lib in {CHECKOUT}", file=sys.stderr, flush=True)
    done = subprocess.run([make, "-C", str(CHECKOUT), "lib"], stdout=sys.stderr)
    built = CHECKOUT / "build" / LIB_NAME
    if done.returncode != 0 or not built.is_file():
        raise SystemExit(f"error: `make -C {CHECKOUT} lib` failed (exit status {done.returncode}); "
                         f"its output is above.")
    return built


class BuildPyWithLibrary(build_py):
    """``build_py`` that also copies the native library into the built package."""

    def run(self) -> None:
        super().run()
        library = _prebuilt_library() or _build_library()
        target = Path(self.build_lib) / "reducerkit" / LIB_NAME
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(library, target)
        os.chmod(target, 0o755)

    def get_outputs(self, include_bytecode: bool = True) -> list[str]:
        return [*super().get_outputs(include_bytecode),
                str(Path(self.build_lib) / "reducerkit" / LIB_NAME)]


class NativeDistribution(Distribution):
    """A distribution with native code: installed to platlib, built as a platform wheel."""

    def has_ext_modules(self) -> bool:
        return True


class PlatformWheel(bdist_wheel):
    """Tags the wheel ``py3-none-<platform>`` (e.g. ``linux_x86_64``): the library is native
    code for one platform, loaded with ctypes by any Python 3. (The optional ``_speedups``
    extension uses CPython's limited API for 3.11 and later; where it cannot load, the binding
    uses ctypes alone, so the package still works on any Python 3.)"""

    def get_tag(self) -> tuple[str, str, str]:
        _, _, platform = super().get_tag()
        return "py3", "none", platform


# A compiled call path for Store.send (src/reducerkit/_speedups.c). Optional: without a C
# compiler or Python headers the build goes on without it and sends go through ctypes.
SPEEDUPS = Extension(
    "reducerkit._speedups", ["src/reducerkit/_speedups.c"],
    py_limited_api=True, define_macros=[("Py_LIMITED_API", "0x030B0000")], optional=True)

setup(distclass=NativeDistribution, ext_modules=[SPEEDUPS],
      cmdclass={"build_py": BuildPyWithLibrary, "bdist_wheel": PlatformWheel})
