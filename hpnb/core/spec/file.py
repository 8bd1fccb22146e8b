"""Reading a spec file: the one way every entry point (``hpnb check``, ``hpnb run``, the magic) does it.

At most :data:`~hpnb.core.spec.values.MAX_SPEC_BYTES` bytes are read, so a huge
file is refused without being loaded; a missing file, a directory, an
unreadable file or text that is not UTF-8 is one :class:`SpecError` naming the
file and what is wrong.

Example:
    >>> read_spec_file("/nonexistent/spec.yaml")
    Traceback (most recent call last):
    ...
    hpnb.core.errors.SpecError: /nonexistent/spec.yaml: no such file
"""

from __future__ import annotations

import os
import sys
from typing import Any, BinaryIO

from hpnb.core.errors import SpecError
from hpnb.core.spec.nesting import deepest_nesting
from hpnb.core.spec.values import MAX_SPEC_BYTES, MAX_SPEC_DEPTH, MAX_SPEC_SEPARATORS

#: the path that means standard input.
STDIN = "-"


def _error(path: str, problem: str, **details: Any) -> SpecError:
    return SpecError("", f"{path}: {problem}" if path else problem, **details)


def too_large(size: int, path: str) -> SpecError:
    """The error for a spec of ``size`` bytes or more, above :data:`MAX_SPEC_BYTES`."""
    return _error(path, f"the spec is {size:,} bytes or more, more than the limit of "
                        f"{MAX_SPEC_BYTES:,} bytes (MAX_SPEC_BYTES)", allowed="a spec of at most 1 MiB")


def check_spec_size(text: str, path: str = "") -> str:
    """``text`` when it has at most MAX_SPEC_BYTES bytes (of UTF-8) and MAX_SPEC_SEPARATORS
    separators, and nests at most MAX_SPEC_DEPTH levels deep.

    All are measured before any parsing, the first two at C speed: PyYAML takes tens of
    microseconds per value, and most of a second to run out of stack on deep nesting.

    Example:
        >>> check_spec_size("x: " + "[" * 100 + "]" * 100)  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        hpnb.core.errors.SpecError: the spec nests lists and mappings ('[' and '{') 100 levels deep, ...
    """
    if len(text) > MAX_SPEC_BYTES:
        raise too_large(len(text), path)
    if len(text) * 4 > MAX_SPEC_BYTES:
        size = len(text.encode("utf-8", "surrogatepass"))
        if size > MAX_SPEC_BYTES:
            raise too_large(size, path)
    separators = sum(text.count(char) for char in ",:-?[{\n")
    if separators > MAX_SPEC_SEPARATORS:
        raise _error(path, f"the spec has {separators:,} YAML separators (',', ':', '-', '?', '[', '{{', "
                           f"line breaks), more than the limit of {MAX_SPEC_SEPARATORS:,} "
                           "(MAX_SPEC_SEPARATORS)", allowed="fewer values and lines")
    _check_nesting(text, path)
    return text


def _check_nesting(text: str, path: str) -> None:
    nesting = deepest_nesting(text, MAX_SPEC_DEPTH)
    if nesting is None:
        return
    what = ("nests lists and mappings ('[' and '{')" if nesting.kind == "flow"
            else "indents its lines (block mappings and lists)")
    raise _error(path, f"the spec {what} {nesting.levels:,} levels deep, more than the limit of "
                       f"{MAX_SPEC_DEPTH} (MAX_SPEC_DEPTH)",
                 allowed=f"at most {MAX_SPEC_DEPTH} levels of nesting", line=nesting.line)


def _read_bounded(stream: BinaryIO, path: str) -> bytes:
    """At most MAX_SPEC_BYTES bytes of ``stream``; a longer stream is refused."""
    data = stream.read(MAX_SPEC_BYTES + 1)
    if len(data) > MAX_SPEC_BYTES:
        raise too_large(len(data), path)
    return data


def _read_file(path: str) -> bytes:
    try:
        with open(path, "rb") as stream:
            size = os.fstat(stream.fileno()).st_size
            if size > MAX_SPEC_BYTES:
                raise too_large(size, path)
            return _read_bounded(stream, path)
    except FileNotFoundError:
        raise _error(path, "no such file") from None
    except IsADirectoryError:
        raise _error(path, "is a directory, not a spec file") from None
    except PermissionError:
        raise _error(path, "cannot be read: permission denied") from None
    except OSError as err:
        raise _error(path, f"cannot be read: {err.strerror or err}") from None


def _decode(data: bytes, path: str) -> str:
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        line = data.count(b"\n", 0, err.start) + 1
        raise _error(path, f"is not UTF-8 text (byte 0x{data[err.start]:02x} at offset {err.start:,})",
                        allowed="a YAML file saved as UTF-8", line=line) from None


def _read_stdin() -> str:
    buffer = getattr(sys.stdin, "buffer", None)
    if buffer is not None:
        return _decode(_read_bounded(buffer, "<stdin>"), "<stdin>")
    return check_spec_size(sys.stdin.read(MAX_SPEC_BYTES + 1), "<stdin>")  # a text stream


def read_spec_file(path: str | os.PathLike[str]) -> str:
    """The text of the spec file at ``path`` (``"-"``: standard input), checked for size and encoding.

    Raises:
        SpecError: naming the file when it is missing, a directory, unreadable, larger than
            MAX_SPEC_BYTES or not UTF-8.
    """
    name = os.fspath(path)
    if name == STDIN:
        return _read_stdin()
    return _decode(_read_file(name), name)
