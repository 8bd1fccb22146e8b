"""What one attempt of a trial wrote: the tail of its stdout and stderr, kept small and readable.

A trial keeps the last :data:`MAX_LINES` lines or :data:`MAX_BYTES` bytes (UTF-8) of each
stream, whichever is smaller. Text is made readable once: undecodable bytes and lone
surrogates become U+FFFD, terminal colour codes are dropped, and other control characters
(but tab and newline) become U+FFFD, so binary garbage can be shown in a cell, a terminal or
a web page without harm.

Example:
    >>> tail("a\\nb\\nc\\n", max_lines=2)
    'b\\nc\\n'
    >>> readable("ok\\x1b[31m red\\x00") == "ok red\\ufffd"
    True
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

#: lines of each stream kept per trial ...
MAX_LINES = 200
#: ... or bytes (UTF-8), whichever is smaller.
MAX_BYTES = 64 * 1024
#: the character that stands for bytes or characters that cannot be shown.
REPLACEMENT = "\ufffd"

_ANSI = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]")
#: control characters but tab and newline, and lone surrogates (undecodable bytes kept by
#: ``surrogateescape``), which cannot be encoded where the text goes (SQLite, JSON, a terminal).
_UNPRINTABLE = re.compile("[\x00-\x08\x0b-\x1f\x7f\ud800-\udfff]")


def readable(text: str) -> str:
    """``text`` with colour codes dropped and unprintable characters replaced by U+FFFD."""
    return _UNPRINTABLE.sub(REPLACEMENT, _ANSI.sub("", text.replace("\r\n", "\n")))


def tail(text: str, max_lines: int = MAX_LINES, max_bytes: int = MAX_BYTES) -> str:
    """The end of ``text``: at most ``max_lines`` lines and ``max_bytes`` UTF-8 bytes.

    The first line kept may be the end of a longer one (cut at a character), as in a terminal's
    scroll-back.
    """
    text = text[-max_bytes:]  # a character is at least one byte: nothing before this could stay
    lines = text.splitlines(keepends=True)[-max_lines:]
    kept: list[str] = []
    size = 0
    for line in reversed(lines):
        cost = len(line.encode("utf-8", "surrogatepass"))
        if size + cost > max_bytes:
            room = max_bytes - size
            if room > 0:
                kept.append(line.encode("utf-8", "surrogatepass")[-room:].decode("utf-8", "ignore"))
            break
        kept.append(line)
        size += cost
    return "".join(reversed(kept))


def clean(text: str) -> tuple[str, bool]:
    """``text`` as kept (readable, then cut to the limits: see :func:`readable`, :func:`tail`),
    and whether anything was cut."""
    end = tail(text)
    kept = readable(end)
    short = tail(kept)
    return short, len(end) < len(text) or len(short) < len(kept)


@dataclass(frozen=True)
class TrialOutput:
    """What one attempt of a trial wrote, as kept.

    Attributes:
        attempt: which attempt of the trial (0 first, more after retries).
        stdout: the end of what it printed (see :data:`MAX_LINES`, :data:`MAX_BYTES`).
        stderr: the end of what it wrote to stderr (``logging`` output included).
        stdout_bytes: how many bytes it printed in all (more than ``stdout`` holds when cut).
        stderr_bytes: the same for stderr.
        worker: the Dask worker it ran on.
        peak_memory_bytes: the largest resident set size of the worker process seen while it
            ran (sampled; shared by trials running at once in that process), or None.
        note: what is missing and why (for instance: the trial never returned).
        truncated: whether earlier output was dropped to keep within the limits.
    """

    attempt: int = 0
    stdout: str = ""
    stderr: str = ""
    stdout_bytes: int = 0
    stderr_bytes: int = 0
    worker: str | None = None
    peak_memory_bytes: int | None = None
    note: str | None = None
    truncated: bool = False

    def to_message(self) -> dict[str, Any]:
        """A plain dict that travels from a worker to the driver (msgpack, pickle)."""
        return {"attempt": self.attempt, "stdout": self.stdout, "stderr": self.stderr,
                "stdout_bytes": self.stdout_bytes, "stderr_bytes": self.stderr_bytes,
                "worker": self.worker, "peak_memory_bytes": self.peak_memory_bytes, "note": self.note,
                "truncated": self.truncated}

    @classmethod
    def from_message(cls, message: dict[str, Any]) -> TrialOutput:
        """The output a message of :meth:`to_message` stands for; text is cleaned again here, as
        nothing that travelled is trusted for size."""
        peak = message.get("peak_memory_bytes")
        stdout, stdout_cut = clean(str(message.get("stdout") or ""))
        stderr, stderr_cut = clean(str(message.get("stderr") or ""))
        note = message.get("note")
        return cls(
            attempt=int(message.get("attempt") or 0),
            stdout=stdout,
            stderr=stderr,
            stdout_bytes=max(0, int(message.get("stdout_bytes") or 0)),
            stderr_bytes=max(0, int(message.get("stderr_bytes") or 0)),
            worker=None if message.get("worker") is None else str(message["worker"]),
            peak_memory_bytes=None if peak is None else max(0, int(peak)),
            note=None if note is None else clean(str(note))[0],
            truncated=bool(message.get("truncated")) or stdout_cut or stderr_cut,
        )
