#!/usr/bin/env python3
"""Checks every ``@_cdecl("rk_...")`` function in Sources/ against its prototype in
include/reducerkit.h (make test-exports; in make check and make test).

- The same names: every ``RK_API`` function of the header has exactly one export, and every
  ``rk_`` export is declared in the header.
- The same parameter count, and compatible types, parameter by parameter and the result:
  ``OpaquePointer`` is a pointer to an opaque struct (``rk_store *``); ``UnsafePointer<T>`` is
  ``const T *`` and ``UnsafeMutablePointer<T>`` is ``T *`` (``…RawPointer``: ``void *``);
  ``CChar`` is ``char``, ``Int32`` is ``int``/``int32_t``/an enum (``rk_status``), ``Int`` is
  ``size_t``, ``UInt64`` is ``uint64_t``, ``Int64`` is ``int64_t``, ``Double`` is ``double``; a
  ``@convention(c)`` typealias is the header's function-pointer typedef, compared the same way.
- A pointer or callback parameter is optional on the Swift side: C may pass NULL.

Then it checks itself: altered copies of the sources (a parameter's type, a parameter
dropped, an export renamed, a callback's signature) must each be reported.

``check-exports.py [--sources DIR] [--header FILE]`` (default: this checkout's). Exit status 1
with one line per mismatch.
"""

from __future__ import annotations

import argparse
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent

# A type, canonical on both sides: ("scalar", NAME) with the C name (Swift scalars mapped
# through SWIFT_SCALARS), ("ptr", POINTEE_IS_CONST, TYPE), ("opaque", STRUCT or None for
# Swift's OpaquePointer), ("fn", RESULT, (PARAMS...)) for a pointer to a function.
CType = tuple[Any, ...]

# Swift scalar -> the C types it stands for (Swift imports size_t as Int).
SWIFT_SCALARS = {
    "Void": {"void"}, "()": {"void"},
    "Int32": {"int", "int32_t", "enum"}, "CInt": {"int", "int32_t", "enum"},
    "UInt32": {"unsigned", "unsigned int", "uint32_t"}, "CUnsignedInt": {"unsigned", "unsigned int", "uint32_t"},
    "Int64": {"int64_t", "long long"}, "UInt64": {"uint64_t", "unsigned long long"},
    "Int": {"size_t", "ssize_t", "ptrdiff_t", "intptr_t", "long"},
    "UInt": {"size_t", "uintptr_t", "unsigned long"},
    "Int16": {"int16_t", "short"}, "UInt16": {"uint16_t", "unsigned short"},
    "Int8": {"int8_t", "signed char"}, "UInt8": {"uint8_t", "unsigned char"},
    "CChar": {"char"}, "Double": {"double"}, "Float": {"float"}, "Bool": {"bool", "_Bool"},
}
C_SCALARS = set().union(*SWIFT_SCALARS.values())


class Unsupported(Exception):
    """A type the checker does not know: an error, never a silent pass."""


@dataclass
class Function:
    name: str
    result: CType
    params: list[tuple[str, CType, str]]  # (name, type, spelling)
    result_spelling: str
    where: str


# ---- C ------------------------------------------------------------------------------------

def _strip_c(text: str) -> str:
    """The header without comments and preprocessor lines, line numbers kept."""
    text = re.sub(r"/\*.*?\*/", lambda m: "\n" * m.group(0).count("\n"), text, flags=re.S)
    text = re.sub(r"//[^\n]*", "", text)
    out = []
    continued = False
    for line in text.split("\n"):
        directive = continued or line.lstrip().startswith("#")
        continued = directive and line.rstrip().endswith("\\")
        out.append("" if directive else line)
    return "\n".join(out)


class Header:
    def __init__(self, path: Path, text: str) -> None:
        self.path = path
        self.text = _strip_c(text)
        self.enums = set(re.findall(r"typedef\s+enum\s*\w*\s*\{[^}]*\}\s*(\w+)\s*;", self.text))
        self.structs = {alias: tag for tag, alias in
                        re.findall(r"typedef\s+struct\s+(\w+)\s+(\w+)\s*;", self.text)}
        self.callbacks: dict[str, CType] = {}
        for m in re.finditer(r"typedef\s+([^;()]+?)\(\s*\*\s*(\w+)\s*\)\s*\(([^()]*)\)\s*;", self.text):
            result = self.type_of(m.group(1))
            params = tuple(self.type_of(p) for p in self._params(m.group(3)))
            self.callbacks[m.group(2)] = ("fn", result, params)

    def line(self, offset: int) -> int:
        return self.text.count("\n", 0, offset) + 1

    @staticmethod
    def _params(text: str) -> list[str]:
        params = [p.strip() for p in text.split(",")]
        return [] if params == ["void"] or params == [""] else params

    @staticmethod
    def _name_of(param: str) -> str:
        m = re.search(r"(\w+)\s*$", param)
        return m.group(1) if m else ""

    def type_of(self, spelling: str, named: bool = True) -> CType:
        """The canonical type of a parameter (its name, if any, dropped) or a result."""
        tokens = re.findall(r"\w+|\*", spelling)
        # A trailing identifier after a complete type is the parameter's name.
        if named and len(tokens) >= 2 and tokens[-1] not in ("*", "const", "int", "char",
                                                             "long", "short", "unsigned"):
            tokens = tokens[:-1]
        base_tokens = []
        i = 0
        const = [False]
        while i < len(tokens) and tokens[i] != "*":
            if tokens[i] == "const":
                const[0] = True
            elif tokens[i] not in ("struct", "enum", "volatile"):
                base_tokens.append(tokens[i])
            i += 1
        for token in tokens[i:]:
            if token == "*":
                const.append(False)
            elif token == "const":
                const[-1] = True
        base = " ".join(base_tokens)
        if base in self.enums:
            t: CType = ("scalar", "enum")
        elif base in self.structs:
            t = ("opaque", base)
        elif base in self.callbacks:
            t = self.callbacks[base]
        elif base in C_SCALARS:
            t = ("scalar", base)
        else:
            raise Unsupported(f"C type {spelling.strip()!r}")
        for level in range(len(const) - 1):
            t = ("ptr", const[level], t)
        return t

    def functions(self) -> dict[str, Function]:
        found = {}
        for m in re.finditer(r"\bRK_API\s+([^;()]+?)\b(rk_\w+)\s*\(([^()]*)\)\s*;", self.text):
            name = m.group(2)
            params = [(self._name_of(p), self.type_of(p), p) for p in self._params(m.group(3))]
            found[name] = Function(name, self.type_of(m.group(1), named=False), params,
                                   m.group(1).strip(), f"{self.path}:{self.line(m.start())}")
        return found


# ---- Swift --------------------------------------------------------------------------------

def _strip_swift(text: str) -> str:
    """The source without comments (string literals are not parsed: signatures hold none)."""
    text = re.sub(r"/\*.*?\*/", lambda m: "\n" * m.group(0).count("\n"), text, flags=re.S)
    return re.sub(r"//[^\n]*", "", text)


def _split_top(text: str, sep: str = ",") -> list[str]:
    """`text` split at `sep` outside <>, () and []."""
    parts, depth, current = [], 0, ""
    for ch in text:
        if ch in "<([":
            depth += 1
        elif ch in ">)]" and not (ch == ">" and current.endswith("-")):
            depth -= 1
        if ch == sep and depth == 0:
            parts.append(current)
            current = ""
        else:
            current += ch
    if current.strip():
        parts.append(current)
    return [p.strip() for p in parts]


def _closing(text: str, start: int) -> int:
    """The index of the parenthesis closing the one at `start`."""
    depth = 0
    for i in range(start, len(text)):
        if text[i] == "(":
            depth += 1
        elif text[i] == ")":
            depth -= 1
            if depth == 0:
                return i
    raise Unsupported(f"unbalanced parentheses after {text[start:start + 60]!r}")


class Sources:
    def __init__(self, files: dict[Path, str]) -> None:
        self.files = {path: _strip_swift(text) for path, text in files.items()}
        self.aliases: dict[str, list[str]] = {}
        for text in self.files.values():
            for m in re.finditer(r"\btypealias\s+(\w+)\s*=\s*([^\n]+)", text):
                self.aliases.setdefault(m.group(1), []).append(m.group(2).strip())

    def type_of(self, spelling: str) -> tuple[CType, bool]:
        """The canonical type of `spelling`, and whether it is optional."""
        s = spelling.strip()
        optional = s.endswith("?") or s.endswith("!")
        if optional:
            s = s[:-1].strip()
        if s.startswith("(") and s.endswith(")") and _closing(s, 0) == len(s) - 1 and s != "()":
            return self.type_of(s[1:-1] + ("?" if optional else ""))
        m = re.fullmatch(r"@convention\(c\)\s*(\(.*\))\s*->\s*(.+)", s, re.S)
        if m:
            params = tuple(self.type_of(p)[0] for p in _split_top(m.group(1)[1:-1]))
            return ("fn", self.type_of(m.group(2))[0], params), optional
        m = re.fullmatch(r"(UnsafePointer|UnsafeMutablePointer)<(.+)>", s, re.S)
        if m:
            return ("ptr", m.group(1) == "UnsafePointer", self.type_of(m.group(2))[0]), optional
        if s in ("UnsafeRawPointer", "UnsafeMutableRawPointer"):
            return ("ptr", s == "UnsafeRawPointer", ("scalar", "Void")), optional
        if s == "OpaquePointer":
            return ("ptr", None, ("opaque", None)), optional
        if s in SWIFT_SCALARS:
            return ("scalar", s), optional
        definitions = set(self.aliases.get(s, []))
        if len(definitions) == 1:
            t, inner_optional = self.type_of(definitions.pop())
            return t, optional or inner_optional
        if definitions:
            raise Unsupported(f"Swift typealias {s} has {len(definitions)} different definitions")
        raise Unsupported(f"Swift type {spelling.strip()!r}")

    def functions(self) -> tuple[dict[str, Function], list[str]]:
        found: dict[str, Function] = {}
        errors = []
        for path, text in sorted(self.files.items()):
            for m in re.finditer(r'@_cdecl\(\s*"(rk_\w*)"\s*\)', text):
                name = m.group(1)
                where = f"{path}:{text.count(chr(10), 0, m.start()) + 1}"
                f = re.compile(r"\bfunc\s+\w+\s*(?:<[^>]*>)?\s*\(").search(text, m.end())
                if f is None:
                    errors.append(f"{where}: @_cdecl(\"{name}\") is followed by no func")
                    continue
                close = _closing(text, f.end() - 1)
                result_m = re.match(r"\s*->\s*([^{]+?)\s*\{", text[close + 1:], re.S)
                result_spelling = result_m.group(1) if result_m else "Void"
                params = []
                for p in _split_top(text[f.end():close]):
                    label, _, spelling = p.partition(":")
                    spelling = spelling.split("=")[0].strip()
                    t, optional = self.type_of(spelling)
                    params.append((label.split()[-1], t, spelling if not optional or
                                   spelling.endswith(("?", "!")) else spelling + "?"))
                    if t[0] in ("ptr", "fn") and not optional:
                        errors.append(f"{where}: {name}: parameter {label.split()[-1]}: {spelling} "
                                      f"is not optional, but C may pass NULL (write {spelling}?)")
                if name in found:
                    errors.append(f"{where}: {name} is exported twice (also {found[name].where})")
                found[name] = Function(name, self.type_of(result_spelling)[0], params,
                                       result_spelling.strip(), where)
        return found, errors


# ---- Comparing ----------------------------------------------------------------------------

def compatible(swift: CType, c: CType) -> bool:
    if swift[0] == "scalar":
        return c[0] == "scalar" and c[1] in SWIFT_SCALARS[str(swift[1])]
    if swift[0] == "ptr":
        if swift[2] == ("opaque", None):  # OpaquePointer: a pointer to any opaque struct
            return bool(c[0] == "ptr" and c[2][0] == "opaque")
        return bool(c[0] == "ptr" and swift[1] == c[1] and compatible(swift[2], c[2]))
    if swift[0] == "fn":
        return bool(c[0] == "fn" and len(swift[2]) == len(c[2]) and compatible(swift[1], c[1])
                    and all(compatible(s, t) for s, t in zip(swift[2], c[2])))
    if swift[0] == "opaque":
        return bool(c[0] == "opaque")
    return False


def check(sources: dict[Path, str], header_path: Path, header_text: str) -> list[str]:
    """Every mismatch between the exports and the header, one line each."""
    try:
        header = Header(header_path, header_text)
        declared = header.functions()
        exported, errors = Sources(sources).functions()
    except Unsupported as e:
        return [f"unsupported: {e} (teach scripts/check-exports.py the type)"]
    if len(declared) < 20:
        errors.append(f"{header_path}: found only {len(declared)} RK_API functions")
    for name in sorted(declared.keys() - exported.keys()):
        errors.append(f"{declared[name].where}: {name} is declared, but no @_cdecl(\"{name}\") exports it")
    for name in sorted(exported.keys() - declared.keys()):
        errors.append(f"{exported[name].where}: @_cdecl(\"{name}\") is not declared in {header_path}")
    for name in sorted(declared.keys() & exported.keys()):
        c, s = declared[name], exported[name]
        at = f"{s.where}: {name} (declared at {c.where})"
        if len(c.params) != len(s.params):
            errors.append(f"{at}: {len(s.params)} parameters, the header has {len(c.params)}")
            continue
        if not compatible(s.result, c.result):
            errors.append(f"{at}: returns {s.result_spelling}, the header {c.result_spelling}")
        for i, ((cname, ctype, cspell), (sname, stype, sspell)) in enumerate(zip(c.params, s.params), 1):
            if not compatible(stype, ctype):
                errors.append(f"{at}: parameter {i} ({sname}) is {sspell}, the header's is {cspell}")
    return errors


# ---- The self-check -----------------------------------------------------------------------

def self_check(sources: dict[Path, str], header_path: Path, header_text: str) -> list[str]:
    """Altered copies that must each be reported: what the checker is for."""
    failures = []

    def expect(what: str, path: Path, old: str, new: str, needle: str) -> None:
        text = sources[path]
        if old not in text:
            failures.append(f"self-check: {what}: {old!r} not found in {path}")
            return
        errors = check({**sources, path: text.replace(old, new, 1)}, header_path, header_text)
        if not any(needle in e for e in errors):
            failures.append(f"self-check: {what} was not reported as {needle!r}: {errors}")

    def export(name: str) -> tuple[Path, str]:
        for path, text in sources.items():
            m = re.search(r'@_cdecl\("%s"\)[^{]*' % name, text)
            if m:
                return path, m.group(0)
        raise SystemExit(f"self-check: no @_cdecl(\"{name}\") in the sources")

    path, sig = export("rk_store_send_n")  # (store, const char *action_json, size_t len)
    expect("a size_t parameter written Int32", path, sig, re.sub(r":\s*Int\s*\)", ": Int32)", sig),
           "parameter 3")
    expect("a parameter dropped", path, sig, re.sub(r",[^,]*:\s*Int\s*\)", ")", sig),
           "2 parameters, the header has 3")
    expect("const dropped", path, sig, sig.replace("UnsafePointer<CChar>?", "UnsafeMutablePointer<CChar>?"),
           "parameter 2")
    expect("a pointer not optional", path, sig, sig.replace("UnsafePointer<CChar>?", "UnsafePointer<CChar>"),
           "is not optional")
    expect("an export renamed", path, sig, sig.replace('"rk_store_send_n"', '"rk_store_sendn"'),
           "rk_store_send_n is declared, but no")
    path, sig = export("rk_store_version")
    expect("a result changed", path, sig, sig.replace("-> Int32", "-> Int"), "returns Int")
    # The state callback (void *, const char *, size_t len, uint64_t): its size_t made Int32,
    # in the typealias rk_store_subscribe's second parameter names (or in place).
    path, sig = export("rk_store_subscribe")
    params = _split_top(sig[sig.index("(", sig.index("func")) + 1:sig.rindex(")")])
    callback = params[1].partition(":")[2].strip().rstrip("?!")
    for alias_path, text in sources.items():
        m = re.search(r"typealias\s+%s\s*=[^\n]*" % re.escape(callback), text)
        if m:
            path, sig = alias_path, m.group(0)
            break
    expect("a callback's parameter changed", path, sig, sig.replace("Int, UInt64", "Int32, UInt64"),
           "rk_store_subscribe")
    return failures


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sources", type=Path, default=REPO / "Sources")
    parser.add_argument("--header", type=Path, default=REPO / "include" / "reducerkit.h")
    args = parser.parse_args()
    if args.header.resolve().is_relative_to(Path.cwd()):
        args.header = args.header.resolve().relative_to(Path.cwd())
    sources = {p.relative_to(args.sources.parent) if args.sources.is_absolute() else p: p.read_text()
               for p in sorted(args.sources.rglob("*.swift"))}
    header_text = args.header.read_text()
    errors = check(sources, args.header, header_text)
    for e in errors:
        print(e, file=sys.stderr)
    if errors:
        print(f"check-exports: {len(errors)} mismatch(es) between the @_cdecl exports and {args.header}",
              file=sys.stderr)
        return 1
    failures = self_check(sources, args.header, header_text)
    for f in failures:
        print(f, file=sys.stderr)
    if failures:
        return 1
    count = len(Header(args.header, header_text).functions())
    print(f"check-exports: the {count} functions of {args.header.name} and their @_cdecl exports agree")
    return 0


if __name__ == "__main__":
    sys.exit(main())
