"""The control channel: user commands to a search's driver, and the driver's answers.

Any process sends a command by adding one row (a kernel's dashboard, the Lab's server, the
CLI, the Python handle); the search's driver, whichever process or host runs it, carries it
out and answers it: done, or refused with the reason. A row is written in one transaction, so
a sender killed while writing has sent the command or not, never half of it.

Example:
    >>> import tempfile, pathlib
    >>> from hpnb.core.store import Store
    >>> store = Store(pathlib.Path(tempfile.mkdtemp()) / "hpnb.sqlite")
    >>> exp = store.create_experiment("c", {}, metric="loss", mode="min", strategy="random",
    ...                               budget=4, parallel=1)
    >>> sent = store.send_command(exp.id, "extend", 2, source="cli")
    >>> [c.kind for c in store.pending_commands(exp.id)]
    ['extend']
    >>> store.answer_command(sent.id, DONE, "budget 6")
    >>> store.command(sent.id).state, store.command(sent.id).reply
    ('done', 'budget 6')
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from hpnb.core.errors import HpnbError
from hpnb.core.store import codec
from hpnb.core.store.base import StoreBase
from hpnb.core.store.dialect import Connection
from hpnb.core.store.store_errors import StoreError

#: what a command may ask; all but ``stop`` carry a number (a trial id or a count).
COMMAND_KINDS = ("stop", "stop_trial", "pause_trial", "resume_trial", "extend", "parallel")
#: the commands whose number is a trial id.
TRIAL_COMMANDS = ("stop_trial", "pause_trial", "resume_trial")
#: the states of a command: sent and not answered yet, carried out, or refused with a reason.
PENDING, DONE, REFUSED = "pending", "done", "refused"



class CommandRefused(HpnbError):
    """The driver (or the sender, before sending) refused a command; the message says why."""


def command_problem(kind: str, value: object) -> str | None:
    """Why ``kind`` with ``value`` is not a command a driver can carry out, or None.

    Example:
        >>> command_problem("extend", -3)
        'extend: the number of trials to add must be positive (got -3)'
        >>> command_problem("stop_trial", 7) is None
        True
    """
    if kind not in COMMAND_KINDS:
        return f"command: {kind!r} is not allowed; allowed: {', '.join(COMMAND_KINDS)}"
    if kind == "stop":
        return None
    what = "a trial id" if kind in TRIAL_COMMANDS else "a count"
    if isinstance(value, bool) or not isinstance(value, int):
        return f"{kind}: needs {what}, a whole number (got {value!r})"
    if kind in TRIAL_COMMANDS and value < 0:
        return f"{kind}: trial ids are 0 or more (got {value})"
    if kind == "extend" and value <= 0:
        return f"extend: the number of trials to add must be positive (got {value})"
    if kind == "parallel" and value < 1:
        return f"parallel: at least 1 trial must run at once (got {value})"
    return None


_COLUMNS = "id, experiment_id, kind, value, source, created, state, reply, answered"


@dataclass(frozen=True)
class CommandRecord:
    """One command as stored, with the driver's answer once it gave one."""

    id: int
    experiment_id: int
    kind: str
    value: int | None
    source: str | None
    created: float
    state: str
    reply: str | None
    answered: float | None

    @property
    def pending(self) -> bool:
        return self.state == PENDING


def _record(row: Sequence[Any]) -> CommandRecord:
    return CommandRecord(*row)


class CommandStore(StoreBase):
    """Command methods of :class:`~hpnb.core.store.Store`."""

    def send_command(self, experiment_id: int, kind: str, value: int | None = None,
                     source: str | None = None) -> CommandRecord:
        """Add a pending command for the driver of ``experiment_id``; allowed on a read-only
        store too (a viewer may steer: the file's own permissions are the boundary).

        A ``stop`` also raises the search's ``stop_requested`` flag, which views show as
        "Stopping…" until the driver answers.
        """
        if kind not in COMMAND_KINDS:
            raise StoreError(f"command: {kind!r} is not allowed; allowed: {', '.join(COMMAND_KINDS)}")
        values = (experiment_id, kind, None if value is None else codec.integer(value, "value"),
                  codec.text(source, "source"), time.time(), PENDING)

        def work(conn: Connection) -> int:
            if conn.execute("SELECT 1 FROM experiments WHERE id = ?", (experiment_id,)).fetchone() is None:
                raise StoreError(f"no experiment with id {experiment_id} in {self.location}")
            cursor = conn.execute("INSERT INTO commands (experiment_id, kind, value, source, created, state)"
                                  " VALUES (?, ?, ?, ?, ?, ?) RETURNING id", values)
            command_id = int(cursor.fetchone()[0])
            if kind == "stop":
                conn.execute("UPDATE experiments SET stop_requested = 1, updated = ? WHERE id = ?",
                             (values[4], experiment_id))
            return command_id

        return self.command(self._write_always(work, "send a command"))

    def command(self, command_id: int) -> CommandRecord:
        """The command ``command_id`` as stored now (its answer once the driver gave one)."""

        def work(conn: Connection) -> CommandRecord | None:
            row = conn.execute(f"SELECT {_COLUMNS} FROM commands WHERE id = ?", (command_id,)).fetchone()
            return None if row is None else _record(row)

        found = self._read(work, None)
        if found is None:
            raise StoreError(f"no command with id {command_id} in {self.location}")
        return found

    def pending_commands(self, experiment_id: int) -> list[CommandRecord]:
        """The search's commands not answered yet, oldest first."""

        def work(conn: Connection) -> list[CommandRecord]:
            rows = conn.execute(f"SELECT {_COLUMNS} FROM commands WHERE experiment_id = ? AND state = ?"
                                " ORDER BY id", (experiment_id, PENDING))
            return [_record(row) for row in rows]

        nothing: list[CommandRecord] = []
        return self._read(work, nothing)

    def answer_command(self, command_id: int, state: str, reply: str | None = None) -> None:
        """Record the answer to a pending command (an answered one keeps its first answer)."""
        if state not in (DONE, REFUSED):
            raise StoreError(f"answer: {state!r} is not allowed; allowed: {DONE}, {REFUSED}")
        values = (state, codec.text(reply, "reply"), time.time(), command_id, PENDING)

        def work(conn: Connection) -> None:
            conn.execute("UPDATE commands SET state = ?, reply = ?, answered = ? WHERE id = ? AND state = ?",
                         values)

        self._write_always(work, "answer a command")

    def refuse_pending(self, experiment_id: int, reply: str, before: float | None = None) -> int:
        """Refuse the search's pending commands (those sent before ``before`` when given, epoch
        seconds) with ``reply``; returns how many."""
        values = (REFUSED, codec.text(reply, "reply"), time.time(), experiment_id, PENDING,
                  float("inf") if before is None else codec.real(before, "before"))

        def work(conn: Connection) -> int:
            return int(conn.execute("UPDATE commands SET state = ?, reply = ?, answered = ?"
                                    " WHERE experiment_id = ? AND state = ? AND created < ?",
                                    values).rowcount)

        return self._write_always(work, "refuse commands")
