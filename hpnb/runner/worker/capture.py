"""What a trial writes to stdout and stderr, caught on the worker thread that runs it.

``sys.stdout`` and ``sys.stderr`` belong to the whole process, and several trials (and, with
a threads-based cluster in the kernel, the notebook itself) write through them at once. So a
:class:`RoutedStream` is put in their place once per process: a write from a thread that runs
a trial goes to that trial's :class:`OutputTail`, every other thread's write goes through to
the stream that was there before. A trial's output therefore never reaches a notebook cell.
``logging`` output reaches the trial's stderr when its handler writes through ``sys.stderr``
(Python's last-resort handler does, and so does any handler created while the stream is in place).

Each stream keeps its last :data:`~hpnb.core.trial_output.MAX_LINES` lines or
:data:`~hpnb.core.trial_output.MAX_BYTES` bytes, whichever is smaller (a ring buffer: a
100 MB print or 10,000 lines a second keep memory flat). A carriage return starts its line
again, as in a terminal, so a progress bar keeps its last state.

Peak memory is the largest resident set size (RSS) of the worker process seen while the
trial ran: sampled every :data:`MEMORY_SAMPLE_INTERVAL` seconds, at its start and at its end,
and the process's own high-water mark when it rose during the trial. Trials running at once
in one process share that figure. Not caught: writes to the file descriptors themselves
(C extensions, child processes) and writes from threads the trial starts.

Example:
    >>> with capturing("demo", 0, 0) as capture:
    ...     print("hello from a trial")
    >>> capture.output(attempt=0).stdout
    'hello from a trial\\n'
"""

from __future__ import annotations

import codecs
import contextlib
import sys
import threading
import time
from collections import deque
from collections.abc import Iterator
from typing import Any, TextIO

from hpnb.core.restartable_thread import RestartableThread
from hpnb.core.trial_output import MAX_BYTES, MAX_LINES, TrialOutput, clean

#: seconds between two samples of the worker process's memory while trials run.
MEMORY_SAMPLE_INTERVAL = 0.1

#: characters encoded at a time to measure a long text (a 100 MB print is never encoded whole).
_ENCODE_CHUNK = 1 << 16


def utf8_size(text: str) -> int:
    """Bytes of ``text`` in UTF-8, without encoding a large text at once."""
    if text.isascii():
        return len(text)
    step = _ENCODE_CHUNK
    return sum(len(text[i : i + step].encode("utf-8", "surrogatepass")) for i in range(0, len(text), step))


def _after_return(text: str) -> str:
    """What a terminal shows of ``text``: what follows its last carriage return (one at its very
    end may be half of a CR LF)."""
    cut = text.rfind("\r", 0, len(text) - 1)
    return text if cut < 0 else text[cut + 1 :]


class OutputTail:
    """The last lines written to one stream, bounded in lines and bytes."""

    def __init__(self, max_lines: int = MAX_LINES, max_bytes: int = MAX_BYTES) -> None:
        self.max_lines, self.max_bytes = max_lines, max_bytes
        self.written = 0
        self.dropped = False
        self._lines: deque[str] = deque()
        self._size = 0
        self._partial: list[str] = []
        self._partial_size = 0
        self._decoder = codecs.getincrementaldecoder("utf-8")("replace")
        self._lock = threading.Lock()  # a stuck trial's output is read from another thread

    def write(self, text: str) -> None:
        """Add ``text``; what no longer fits falls off the front."""
        with self._lock:
            self.written += utf8_size(text)
            if len(text) > self.max_bytes:  # a character is a byte at least: the rest could not stay
                self._lines.clear()
                self._size, self._partial, self._partial_size = 0, [], 0
                self.dropped = True
                text = text[-self.max_bytes :]
            if "\n" not in text:
                self._add_partial(text)
                return
            *complete, rest = text.split("\n")
            first = "".join(self._partial) + complete[0]
            self._partial, self._partial_size = [], 0
            for line in (first, *complete[1:]):
                self._push(_after_return(line).removesuffix("\r") + "\n")
            self._add_partial(rest)

    def write_bytes(self, data: bytes | bytearray) -> None:
        """Add raw bytes: invalid UTF-8 becomes U+FFFD (a character split between two writes is
        joined)."""
        self.write(self._decoder.decode(bytes(data)))

    def _add_partial(self, text: str) -> None:
        if not text:
            return
        if "\r" in text:
            joined = _after_return("".join(self._partial) + text)
            self._partial, self._partial_size = [joined], len(joined)
        else:
            self._partial.append(text)
            self._partial_size += len(text)
        if self._partial_size > self.max_bytes:
            joined = "".join(self._partial)[-self.max_bytes :]
            self._partial, self._partial_size = [joined], len(joined)
            self._lines.clear()
            self._size = 0
            self.dropped = True

    def _push(self, line: str) -> None:
        size = utf8_size(line)
        if size > self.max_bytes:  # one line longer than the whole budget keeps its end
            line = line.encode("utf-8", "surrogatepass")[-self.max_bytes :].decode("utf-8", "ignore")
            size = utf8_size(line)
            self.dropped = True
        self._lines.append(line)
        self._size += size
        while self._lines and (len(self._lines) > self.max_lines or self._size > self.max_bytes):
            self.dropped = True
            first = self._lines[0]
            first_size, excess = utf8_size(first), self._size - self.max_bytes
            if len(self._lines) <= self.max_lines and excess < first_size:  # keep the end of it
                rest = first.encode("utf-8", "surrogatepass")[excess:].decode("utf-8", "ignore")
                self._lines[0] = rest
                self._size += utf8_size(rest) - first_size
                return
            self._lines.popleft()
            self._size -= first_size

    def text(self) -> str:
        """What is kept, as written (not yet made readable)."""
        with self._lock:
            return "".join(self._lines) + "".join(self._partial)


class TrialCapture:
    """One running trial's stdout and stderr tails and its peak memory."""

    def __init__(self) -> None:
        self.stdout = OutputTail()
        self.stderr = OutputTail()
        self.peak_memory: int | None = None

    def note_memory(self, rss: int | None) -> None:
        if rss is not None and (self.peak_memory is None or rss > self.peak_memory):
            self.peak_memory = rss

    def output(self, attempt: int, worker: str | None = None, note: str | None = None) -> TrialOutput:
        """What the trial wrote so far, readable and within the limits."""
        stdout, stdout_cut = clean(self.stdout.text())
        stderr, stderr_cut = clean(self.stderr.text())
        truncated = self.stdout.dropped or self.stderr.dropped or stdout_cut or stderr_cut
        return TrialOutput(attempt=attempt, stdout=stdout, stderr=stderr, stdout_bytes=self.stdout.written,
                           stderr_bytes=self.stderr.written, worker=worker,
                           peak_memory_bytes=self.peak_memory, note=note, truncated=truncated)


#: the capture of the trial each thread runs, by thread id.
_by_thread: dict[int, TrialCapture] = {}
#: the same by (experiment, trial id, attempt), to read a stuck trial's output.
_by_trial: dict[tuple[str, int, int], TrialCapture] = {}
_registry_lock = threading.Lock()


class _BinaryRoute:
    """``sys.stdout.buffer`` of a :class:`RoutedStream`."""

    def __init__(self, stream: RoutedStream) -> None:
        self._stream = stream

    def write(self, data: bytes) -> int:
        capture = _by_thread.get(threading.get_ident())
        if capture is None:
            return int(self._stream.original.buffer.write(data))
        self._stream.tail_of(capture).write_bytes(data)
        return len(data)

    def flush(self) -> None:
        if threading.get_ident() not in _by_thread:
            self._stream.original.buffer.flush()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream.original.buffer, name)


class RoutedStream:
    """Stands for ``sys.stdout`` or ``sys.stderr``: a trial thread's writes go to its capture,
    other threads' to ``original``."""

    def __init__(self, original: TextIO, which: str) -> None:
        self.original = original
        self.which = which
        self.buffer = _BinaryRoute(self)

    def tail_of(self, capture: TrialCapture) -> OutputTail:
        return capture.stdout if self.which == "stdout" else capture.stderr

    def write(self, text: Any) -> int:
        capture = _by_thread.get(threading.get_ident())
        if capture is None:
            return int(self.original.write(text))
        tail = self.tail_of(capture)
        if isinstance(text, (bytes, bytearray)):
            tail.write_bytes(text)
        else:
            tail.write(str(text))
        return len(text)

    def writelines(self, lines: Any) -> None:
        for line in lines:
            self.write(line)

    def flush(self) -> None:
        if threading.get_ident() not in _by_thread:
            self.original.flush()

    def isatty(self) -> bool:
        return False if threading.get_ident() in _by_thread else bool(self.original.isatty())

    def __getattr__(self, name: str) -> Any:
        if name == "original":  # not set yet (a copy being built): no endless lookup
            raise AttributeError(name)
        return getattr(self.original, name)


def install() -> None:
    """Put routed streams in place of ``sys.stdout`` and ``sys.stderr`` (again, if something
    replaced them since)."""
    with _registry_lock:
        if not isinstance(sys.stdout, RoutedStream):
            sys.stdout = RoutedStream(sys.stdout, "stdout")
        if not isinstance(sys.stderr, RoutedStream):
            sys.stderr = RoutedStream(sys.stderr, "stderr")


@contextlib.contextmanager
def capturing(experiment: str, trial_id: int, attempt: int) -> Iterator[TrialCapture]:
    """Catch what this thread writes to stdout and stderr, and the process's peak memory, for
    the duration of the block."""
    install()
    capture = TrialCapture()
    key = (experiment, trial_id, attempt)
    thread = threading.get_ident()
    high_before = _high_water_mark()
    capture.note_memory(_SAMPLER.rss())
    with _registry_lock:
        _by_thread[thread] = capture
        _by_trial[key] = capture
    _SAMPLER.wake()
    try:
        yield capture
    finally:
        with _registry_lock:
            _by_thread.pop(thread, None)
            _by_trial.pop(key, None)
        capture.note_memory(_SAMPLER.rss())
        high_after = _high_water_mark()
        if high_after is not None and high_before is not None and high_after > high_before:
            capture.note_memory(high_after)


def output_so_far(experiment: str, trial_id: int, attempt: int) -> dict[str, Any] | None:
    """The output of a trial still running in this process (a message of
    :meth:`TrialOutput.to_message`), or None when it is not running here."""
    with _registry_lock:
        capture = _by_trial.get((experiment, trial_id, attempt))
    return None if capture is None else capture.output(attempt).to_message()


def _high_water_mark() -> int | None:
    """The process's peak RSS so far in bytes (``ru_maxrss``), where the platform tells it."""
    try:
        import resource
    except ImportError:  # Windows
        return None
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return int(peak) if sys.platform == "darwin" else int(peak) * 1024


class _MemorySampler:
    """One thread per process that samples its RSS while any trial is captured."""

    def __init__(self) -> None:
        self._busy = threading.Event()
        self._sampler = RestartableThread(self._run, "hpnb-memory-sampler")
        self._process: Any = None

    def rss(self) -> int | None:
        try:
            if self._process is None:
                import psutil

                self._process = psutil.Process()
            return int(self._process.memory_info().rss)
        except Exception:  # psutil missing or the platform refuses: no figure rather than a failed trial
            return None

    def wake(self) -> None:
        self._busy.set()
        self._sampler.ensure_running()

    def _run(self) -> None:
        while True:
            self._busy.wait()
            with _registry_lock:
                captures = list(_by_thread.values())
                if not captures:
                    self._busy.clear()
                    continue
            rss = self.rss()
            for capture in captures:
                capture.note_memory(rss)
            time.sleep(MEMORY_SAMPLE_INTERVAL)


_SAMPLER = _MemorySampler()
