"""Hostile and careless specs: what ``hpnb check`` answers, how fast, with how much memory.

Each spec is written to a temporary file and checked by a fresh child process,
``python -m hpnb check FILE`` (the real command), and again by a child that
loads only the ``check`` sub-command (``CHECK_ONLY``: the same code path
without the imports of the other sub-commands), to tell the cost of the check
from the cost of starting the command line. Wall time and the child's peak
RSS (``os.wait4``) are printed in a table with the exit code and the first 80
characters of the message.

Goal: every hostile spec is refused (exit code 2) in under 1 s and 100 MB.

Usage:
    python benchmarks/hostile_specs.py

``tests/cli/test_check_hostile.py`` checks the same specs' messages and exit codes.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from hpnb.core.spec.values import MAX_SPEC_BYTES

MB = 1024 * 1024
ROOT = Path(__file__).resolve().parents[1]
HEAD = "metric: loss\n"
#: a child that runs ``hpnb check`` with only that sub-command imported.
CHECK_ONLY = ("import argparse, sys; from hpnb.cli import check; p = argparse.ArgumentParser(); "
              "check.add_parser(p.add_subparsers()); a = p.parse_args(['check', *sys.argv[1:]]); "
              "sys.exit(a.func(a))")


def _lines(count: int, line: Callable[[int], str]) -> str:
    return "".join(line(i) for i in range(count))


def flow_nesting_spec(levels: int, size: int = 0) -> str:
    """A spec whose ``parameters.x`` is ``levels`` lists deep (on line 3), padded by a comment to
    ``size`` characters."""
    text = HEAD + "parameters:\n  x: " + "[" * levels + "1" + "]" * levels + "\n"
    return text + ("# " + "x" * (size - len(text) - 3) + "\n" if size else "")


def block_nesting_spec(size: int) -> tuple[str, int]:
    """The spec of at most ``size`` characters that nests the most mappings by indentation, one
    space a level, and how many levels it nests."""
    lines, size_so_far = [HEAD, "parameters:\n"], len(HEAD) + 12
    while size_so_far + 2 * len(lines) + 4 <= size:
        lines.append(" " * (len(lines) - 1) + "x:\n")
        size_so_far += len(lines[-1])
    return "".join(lines) + " " * (len(lines) - 1) + "x: 1\n", len(lines)


_BLOCK_LEVELS = block_nesting_spec(MAX_SPEC_BYTES)[1]
#: name -> (spec file content, a part of the expected message).
HOSTILE: dict[str, tuple[Callable[[], bytes], str]] = {
    "grid cap 1e18, step 1e-12": (
        lambda: (HEAD + "strategy: {name: grid, cap: 1000000000000000000}\n"
                 "parameters:\n  x: {min: 0.0, max: 1.0, step: 1.0e-12}\n").encode(),
        "strategy.cap: is more than the limit of 1,000,000"),
    "grid step 1e-12, default cap": (
        lambda: (HEAD + "strategy: grid\nparameters:\n  x: {min: 0.0, max: 1.0, step: 1.0e-12}\n").encode(),
        "the grid has 1,000,000,000,001 points, more than the cap of 100,000"),
    "10 MB spec": (
        lambda: (HEAD + "parameters: {a: [1, 2]}\n# " + "x" * (10 * MB) + "\n").encode(),
        "more than the limit of 1,048,576 bytes (MAX_SPEC_BYTES)"),
    "1.4M-value categorical": (
        lambda: (HEAD + "parameters:\n  a: [" + ", ".join(map(str, range(1_400_000))) + "]\n").encode(),
        "MAX_SPEC_BYTES"),
    "10,001-value categorical": (
        lambda: (HEAD + "parameters:\n  a: [" + ", ".join(map(str, range(10_001))) + "]\n").encode(),
        "parameters.a: lists 10,001 values, more than the limit of 10,000"),
    "300,000 parameters": (
        lambda: (HEAD + "parameters:\n" + _lines(300_000, lambda i: f"  p{i}: {i}\n")).encode(),
        "MAX_SPEC_BYTES"),
    "1,001 parameters": (
        lambda: (HEAD + "parameters:\n" + _lines(1_001, lambda i: f"  p{i}: {i}\n")).encode(),
        "parameters: declares 1,001 parameters, more than the limit of 1,000"),
    "alias bomb": (
        lambda: ("a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n"
                 + _lines(6, lambda i: f"a{i + 1}: &a{i + 1} [{', '.join([f'*a{i}'] * 10)}]\n")).encode(),
        "aliases repeat more than 100,000 values"),
    "10 MB mode": (
        lambda: (HEAD + "parameters: {a: [1, 2]}\nmode: " + "x" * (10 * MB) + "\n").encode(),
        "MAX_SPEC_BYTES"),
    "500 kB mode": (
        lambda: (HEAD + "parameters: {a: [1, 2]}\nmode: " + "x" * 500_000 + "\n").encode(),
        "(500,000 characters)"),
    "10,000-character name": (
        lambda: (HEAD + "parameters: {a: [1, 2]}\nname: " + "n" * 10_000 + "\n").encode(),
        "name: is 10,000 characters long, more than the limit of 128"),
    "trials 10**30": (
        lambda: (HEAD + f"parameters: {{a: [1, 2]}}\ntrials: {10**30}\n").encode(),
        "trials: is more than the limit of 1,000,000"),
    "trials 10**12": (
        lambda: (HEAD + f"parameters: {{a: [1, 2]}}\ntrials: {10**12}\n").encode(),
        "trials: is more than the limit of 1,000,000"),
    "range +-1e308": (
        lambda: (HEAD + "parameters:\n  x: {min: -1.0e308, max: 1.0e308}\n").encode(),
        "parameters.x.max: the range is too wide: its width overflows a double"),
    "non-UTF-8 file": (
        lambda: (HEAD + "name: caf").encode() + b"\xe9\n",
        "is not UTF-8 text (byte 0xe9 at offset 22)"),
    "10,000-level [[...]]": (
        lambda: flow_nesting_spec(10_000).encode(),
        "the spec nests lists and mappings ('[' and '{') 10,000 levels deep, more than the limit of 64"),
    "40,000-level [[...]], 1 MiB": (
        lambda: flow_nesting_spec(40_000, MAX_SPEC_BYTES).encode(),
        "nests lists and mappings ('[' and '{') 40,000 levels deep, more than the limit of 64"),
    "block nesting, 1 MiB": (
        lambda: block_nesting_spec(MAX_SPEC_BYTES)[0].encode(),
        f"indents its lines (block mappings and lists) {_BLOCK_LEVELS:,} levels deep, more than the limit"),
    "range sweep of 600 x 201": (
        lambda: (HEAD + "strategy: range\nparameters:\n"
                 + _lines(600, lambda i: f"  p{i}: {{type: int, min: 0, max: 200}}\n")).encode(),
        "a sweep of 120,600 values is more than the cap of 100,000"),
}


def run_check(path: Path, *, check_only: bool = False) -> tuple[int, float, float, str]:
    """Check ``path`` in a child process: (exit code, seconds, peak MB, stderr).

    The peak is measured by ``/usr/bin/time`` when present: Linux reports the parent's peak
    for a child forked from a large parent, and this script holds megabytes of specs.
    """
    command = [sys.executable, "-c", CHECK_ONLY] if check_only else [sys.executable, "-m", "hpnb", "check"]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    with tempfile.NamedTemporaryFile() as err, tempfile.NamedTemporaryFile("r") as peak:
        timer = ["/usr/bin/time", "-f", "%M", "-o", peak.name] if os.path.exists("/usr/bin/time") else []
        start = time.perf_counter()
        child = subprocess.Popen([*timer, *command, str(path)], stdout=subprocess.DEVNULL, stderr=err,
                                 env=env, cwd=ROOT)  # `-m hpnb` imports from the folder it starts in
        _, status, usage = os.wait4(child.pid, 0)
        seconds = time.perf_counter() - start
        kilobytes = int(peak.read().split()[-1]) if timer else usage.ru_maxrss
        err.seek(0)
        message = err.read().decode("utf-8", "replace")
    return os.waitstatus_to_exitcode(status), seconds, kilobytes / 1024, message


def write_specs(folder: Path) -> dict[str, Path]:
    """Every hostile spec as a file in ``folder``, by name."""
    paths = {}
    for index, (name, (content, _)) in enumerate(HOSTILE.items()):
        paths[name] = folder / f"hostile-{index}.yaml"
        paths[name].write_bytes(content())
    return paths


def main() -> int:
    rows = []
    with tempfile.TemporaryDirectory() as folder:
        for name, path in write_specs(Path(folder)).items():
            code, seconds, peak, message = run_check(path)
            _, alone_s, alone_mb, _ = run_check(path, check_only=True)
            first = message.strip().splitlines()[0] if message.strip() else ""
            rows.append((name, code, seconds, peak, alone_s, alone_mb,
                         first.removeprefix(f"hpnb check: {path}: ")))
    print(f"| {'spec':<28} | exit | hpnb check s | peak MB | check only s | peak MB | message (first 80) |")
    print(f"|{'-' * 30}|------|--------------|---------|--------------|---------|{'-' * 20}|")
    for name, code, seconds, peak, alone_s, alone_mb, message in rows:
        short = message[:80].replace("|", "\\|")
        print(f"| {name:<28} | {code:>4} | {seconds:>12.2f} | {peak:>7.0f} | {alone_s:>12.2f} "
              f"| {alone_mb:>7.0f} | {short} |")
    refused = all(row[1] == 2 for row in rows)
    full = refused and all(row[2] < 1.0 and row[3] < 100 for row in rows)
    alone = refused and all(row[4] < 1.0 and row[5] < 100 for row in rows)
    print(f"\nevery spec refused with exit code 2: {'yes' if refused else 'NO'}; in < 1 s and < 100 MB "
          f"by hpnb check: {'yes' if full else 'NO'}, by the check alone: {'yes' if alone else 'NO'}")
    return 0 if alone else 1


if __name__ == "__main__":
    sys.exit(main())
