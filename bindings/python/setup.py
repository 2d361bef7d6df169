"""Puts ``libreducerkit.so`` and the scenario runner ``reducerkit-check`` into the reducerkit
package, and tags the wheel.

The metadata is in ``pyproject.toml``; this file adds what setuptools cannot express there:
where the native library comes from, and the runner (``tools/reducerkit-check.c``, compiled
with the C compiler: ``reducerkit.testing.check`` and ``python -m reducerkit fuzz`` replay
each sequence through it). ``pip install ./bindings/python`` and ``pip wheel
./bindings/python`` (and ``make wheel``) run it. The library is:

1. the file named by ``$REDUCERKIT_PACKAGE_LIB``, if set (a library built elsewhere); else
2. built from the ReducerKit checkout this directory belongs to, with ``make lib`` (which
   needs the Swift 6 toolchain on ``PATH``), and taken from ``build/libreducerkit.so``.

Without either, the build stops with a message that says how to get the library: a package
without it could not do anything. Without a C compiler the package goes without the runner
(and the optional ``_speedups``), saying so. The wheel is tagged ``cp311-abi3-<platform>``
when it carries ``_speedups`` (CPython's limited API, 3.11 and later), else
``py3-none-<platform>``; ``make wheel`` then gives it its manylinux tag with auditwheel.
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

from setuptools import Distribution, Extension, setup
from setuptools.command.build_py import build_py
from setuptools.command.bdist_wheel import bdist_wheel

HERE = Path(__file__).resolve().parent
CHECKOUT = HERE.parents[1]  # bindings/python -> the repository
LIB_NAME = "libreducerkit.so"
CHECK_NAME = "reducerkit-check"
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


def _build_checker(target: Path) -> bool:
    """Compiles the checkout's ``tools/reducerkit-check.c`` to ``target`` (it loads the library
    with dlopen, so it links with nothing of ReducerKit); False, saying why, when it cannot."""
    source = CHECKOUT / "tools" / f"{CHECK_NAME}.c"
    if not source.is_file():
        print(f"warning: {source} not found: the package goes without {CHECK_NAME}",
              file=sys.stderr)
        return False
    cc = shlex.split(os.environ.get("CC") or sysconfig.get_config_var("CC") or "cc")
    command = [*cc, "-std=c99", "-O2", "-I", str(CHECKOUT / "include"),
               "-I", str(CHECKOUT / "tools"), "-o", str(target), str(source), "-ldl"]
    try:
        done = subprocess.run(command, stdout=sys.stderr)
    except OSError as e:
        done = None
        print(f"warning: cannot run the C compiler {cc[0]}: {e}", file=sys.stderr)
    if done is None or done.returncode != 0:
        print(f"warning: the package goes without {CHECK_NAME} (`{shlex.join(command)}` "
              f"failed): reducerkit.testing.check and `python -m reducerkit fuzz` then need "
              f"differential=False / --no-differential, or $REDUCERKIT_CHECK", file=sys.stderr)
        return False
    return True


class BuildPyWithLibrary(build_py):
    """``build_py`` that also puts the native library and the scenario runner into the built
    package."""

    def run(self) -> None:
        super().run()
        library = _prebuilt_library() or _build_library()
        package = Path(self.build_lib) / "reducerkit"
        package.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(library, package / LIB_NAME)
        os.chmod(package / LIB_NAME, 0o755)
        checker = package / CHECK_NAME
        if checker.exists():
            checker.unlink()
        _build_checker(checker)

    def get_outputs(self, include_bytecode: bool = True) -> list[str]:
        package = Path(self.build_lib) / "reducerkit"
        extra = [package / LIB_NAME] + ([package / CHECK_NAME]
                                        if (package / CHECK_NAME).exists() else [])
        return [*super().get_outputs(include_bytecode), *map(str, extra)]


class NativeDistribution(Distribution):
    """A distribution with native code: installed to platlib, built as a platform wheel."""

    def has_ext_modules(self) -> bool:
        return True


class PlatformWheel(bdist_wheel):
    """Tags the wheel for what it holds: ``cp311-abi3-<platform>`` with the ``_speedups``
    extension (built against CPython's limited API for 3.11, so it loads in CPython 3.11 and
    later), ``py3-none-<platform>`` without it (the library is loaded with ctypes, by any
    Python 3). ``<platform>`` is the build machine's (``linux_x86_64``); ``make wheel`` has
    auditwheel replace it with the manylinux tag the binaries' glibc symbols allow."""

    def get_tag(self) -> tuple[str, str, str]:
        _, _, platform = super().get_tag()
        build_ext = self.get_finalized_command("build_ext")
        built = [Path(output) for output in build_ext.get_outputs()]
        if built and all(output.exists() for output in built):
            return "cp311", "abi3", platform
        return "py3", "none", platform


# A compiled call path for Store.send (src/reducerkit/_speedups.c). Optional: without a C
# compiler or Python headers the build goes on without it and sends go through ctypes.
# It calls nothing of libc, but is linked with it: auditwheel tells glibc from musl by the C
# library an extension needs, and refuses a wheel whose extension names none.
SPEEDUPS = Extension(
    "reducerkit._speedups", ["src/reducerkit/_speedups.c"],
    py_limited_api=True, define_macros=[("Py_LIMITED_API", "0x030B0000")], optional=True,
    extra_link_args=["-Wl,--no-as-needed", "-lc"])

setup(distclass=NativeDistribution, ext_modules=[SPEEDUPS],
      cmdclass={"build_py": BuildPyWithLibrary, "bdist_wheel": PlatformWheel})
