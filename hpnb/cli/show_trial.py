"""``hpnb show NAME --trial ID``: what one trial printed, its traceback, its worker and peak memory.

Example:
    >>> from hpnb.cli import main
    >>> main(["show", "mlp-lr", "--trial", "3"])  # doctest: +SKIP
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

from hpnb.cli.store_option import open_store
from hpnb.core.store import ExperimentRecord
from hpnb.core.trial_log import TrialLog, read_trial_log


def show_trial(args: argparse.Namespace) -> int:
    """Print the log of trial ``args.trial`` of ``args.name`` (exit 0); an unknown name or trial
    id is an error (exit 2) that names the ids the search has."""
    with open_store(args) as store:
        record = store.experiment(args.name)
        log = read_trial_log(store, record, args.trial, time.time())
        artifacts = trial_artifacts(store.path, record, args.trial)
    if getattr(args, "json", False):
        import json

        print(json.dumps({**log.to_json(), "artifacts": artifacts}, indent=1))
        return 0
    sys.stdout.write("\n".join([*trial_log_lines(args.name, log), *artifact_lines(artifacts)]) + "\n")
    return 0


def trial_artifacts(store_path: Path, record: ExperimentRecord, trial_id: int) -> list[dict[str, Any]]:
    """The trial's artifacts in its search's checkpoint store (none when that cannot be read)."""
    from hpnb.runner.checkpoint_store import CheckpointStore, search_location

    try:
        location = search_location(store_path, record.name, record.id, record.created, record.spec)
        return CheckpointStore(location).artifacts(int(trial_id))
    except (OSError, ImportError, ValueError):
        return []


def artifact_lines(artifacts: list[dict[str, Any]]) -> list[str]:
    """The artifacts as text: name, size and where the store keeps each."""
    if not artifacts:
        return []
    width = max(len(a["name"]) for a in artifacts)
    return ["", "artifacts", *(f"  {a['name']:<{width}}  {format_bytes(a['size']):>10}  {a['path']}"
                               for a in artifacts)]


def trial_log_lines(name: str, log: TrialLog) -> list[str]:
    """The log as text: a header, then stdout, stderr and the traceback, each under its title."""
    attempt = "" if not log.attempt else f" (attempt {log.attempt + 1})"
    lines = [
        f"{name} trial {log.trial_id}  [{log.state}]{attempt}",
        f"  worker       {log.worker or '-'}",
        f"  peak memory  {format_bytes(log.peak_memory_bytes)}",
    ]
    if log.note:
        lines.append(f"  note         {log.note}")
    for title, text, written in (("stdout", log.stdout, log.stdout_bytes),
                                 ("stderr", log.stderr, log.stderr_bytes)):
        lines += ["", _title(title, text, written, log.truncated)]
        lines += [f"  {line}" for line in text.splitlines()] or ["  (nothing)"]
    if log.traceback:
        lines += ["", "traceback"]
        lines += [f"  {line}" for line in log.traceback.splitlines()]
    return lines


def _title(stream: str, text: str, written: int, truncated: bool) -> str:
    if truncated and text:
        lines = len(text.splitlines())
        return f"{stream} (the last {lines} lines of {format_bytes(written)} written)"
    return stream


def format_bytes(size: int | None) -> str:
    """A size in bytes for people: ``512 B``, ``64.0 KiB``, ``1.2 GiB``; ``-`` when unknown.

    Example:
        >>> format_bytes(65536), format_bytes(None)
        ('64.0 KiB', '-')
    """
    if size is None:
        return "-"
    units = ("B", "KiB", "MiB", "GiB", "TiB")
    value, unit = float(size), 0
    while value >= 1024 and unit < len(units) - 1:
        value, unit = value / 1024, unit + 1
    return f"{size} B" if unit == 0 else f"{value:.1f} {units[unit]}"
