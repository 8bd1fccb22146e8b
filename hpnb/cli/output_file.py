"""Files that ``hpnb import`` and ``hpnb export --format katib`` write, and the notes they print.

An output path must name a plain file in an existing folder: not a directory, a
device, a pipe or a symbolic link. An existing file is replaced only with
``--force``; without it the file is created exclusively, so a file that appears
in the meantime is not overwritten either.

Example:
    >>> check_output_path("/nonexistent-folder/spec.yaml", force=False)
    Traceback (most recent call last):
    ...
    hpnb.core.errors.HpnbError: /nonexistent-folder/spec.yaml: the folder /nonexistent-folder does not exist
"""

from __future__ import annotations

import os
import stat
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TextIO

from hpnb.core.errors import HpnbError
from hpnb.core.interop.katib_format import Note


def check_output_path(path: str, *, force: bool) -> Path:
    """``path`` when a plain file may be written there (replaced only with ``force``)."""
    if not path or "\0" in path:
        raise HpnbError(f"{path!r}: not a file path")
    target = Path(path)
    try:
        found = os.lstat(target)
    except FileNotFoundError:
        found = None
    except OSError as err:
        raise HpnbError(f"{path}: cannot be checked: {err.strerror or err}") from None
    if found is not None:
        if stat.S_ISLNK(found.st_mode):
            raise HpnbError(f"{path}: is a symbolic link; give the path of a plain file")
        if stat.S_ISDIR(found.st_mode):
            raise HpnbError(f"{path}: is a directory; give the path of a file")
        if not stat.S_ISREG(found.st_mode):
            raise HpnbError(f"{path}: is not a plain file (a device, a pipe or a socket)")
        if not force:
            raise HpnbError(f"{path}: already exists; give --force to replace it")
    folder = target.parent
    if not folder.is_dir():
        raise HpnbError(f"{path}: the folder {folder} does not exist")
    return target


def write_output(path: str, text: str, *, force: bool) -> None:
    """Write ``text`` to the plain file ``path`` (checked as :func:`check_output_path` does)."""
    target = check_output_path(path, force=force)
    flags = os.O_WRONLY | os.O_CREAT | (os.O_TRUNC if force else os.O_EXCL) | getattr(os, "O_NOFOLLOW", 0)
    try:
        descriptor = os.open(target, flags, 0o666)
    except FileExistsError:
        raise HpnbError(f"{path}: already exists; give --force to replace it") from None
    except OSError as err:
        raise HpnbError(f"cannot write {path}: {err.strerror or err}") from None
    with os.fdopen(descriptor, "w", encoding="utf-8") as stream:
        stream.write(text)


def print_notes(command: str, notes: Sequence[Note], heading: str, out: TextIO | None = None) -> None:
    """Print ``notes`` as one list under ``heading`` (to standard error by default)."""
    if not notes:
        return
    out = out or sys.stderr
    out.write(f"{command}: {heading} ({len(notes)}):\n")
    for note in notes:
        out.write(f"  - {note}\n")
