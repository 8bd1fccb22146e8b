"""A throwaway PostgreSQL server on 127.0.0.1, for tests and benchmarks of a server store.

It runs PostgreSQL's own binaries (``initdb``, ``pg_ctl``: Debian's ``postgresql`` package puts
them where ``pg_config --bindir`` says) in a folder of its own, with trust authentication on
loopback only, except for the members of the role ``password_users``, who must give their
password (as a team's server would ask it). PostgreSQL refuses to run as root, so as root it runs
as the ``postgres`` user.

As a command, it starts a server for a shell script and prints the variables the tests read,
then stops it: ``python -m hpnb.testing.postgres_server start DIR`` / ``stop DIR``.

Example:
    >>> server = PostgresServer.start(tempfile.mkdtemp())   # doctest: +SKIP
    >>> server.url("hpnb")                                  # doctest: +SKIP
    'postgresql://postgres@127.0.0.1:54321/hpnb'
    >>> server.stop()                                       # doctest: +SKIP
"""

from __future__ import annotations

import os
import shlex
import shutil
import socket
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

__all__ = ["PostgresServer", "postgres_bindir"]


def postgres_bindir() -> Path | None:
    """The folder of PostgreSQL's server binaries, or None when PostgreSQL is not installed."""
    if shutil.which("pg_config"):
        found = subprocess.run(["pg_config", "--bindir"], capture_output=True, text=True, check=False)
        folder = Path(found.stdout.strip())
        if (folder / "pg_ctl").exists():
            return folder
    for folder in sorted(Path("/usr/lib/postgresql").glob("*/bin"), reverse=True):
        if (folder / "pg_ctl").exists():
            return folder
    return None


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@dataclass
class PostgresServer:
    """A server started by :meth:`start`; :meth:`stop` ends it and removes its folder."""

    folder: Path
    port: int
    bindir: Path
    user: str = "postgres"

    @classmethod
    def start(cls, parent: str | os.PathLike[str], port: int | None = None) -> PostgresServer:
        """initdb a new cluster in a folder under ``parent`` and start it on 127.0.0.1.

        Raises:
            RuntimeError: PostgreSQL is not installed, or a step failed (its output attached).
        """
        bindir = postgres_bindir()
        if bindir is None:
            raise RuntimeError("PostgreSQL is not installed (apt-get install postgresql)")
        folder = Path(tempfile.mkdtemp(prefix="hpnb-pg-", dir=parent))
        folder.chmod(0o777)
        server = cls(folder, port or _free_port(), bindir)
        server._run(f"{bindir}/initdb -D {folder}/data -A trust -U {server.user} --no-sync -E UTF8")
        hba = folder / "data" / "pg_hba.conf"
        rules = "host all +password_users 127.0.0.1/32 scram-sha-256\n"
        server._run(f"printf {shlex.quote(rules)} | cat - {hba} > {hba}.new && mv {hba}.new {hba}")
        server._ctl("start")
        server.sql("CREATE ROLE password_users NOLOGIN")
        return server

    @classmethod
    def of_folder(cls, folder: str | os.PathLike[str]) -> PostgresServer:
        """The server :meth:`start` made in ``folder`` (its port is read from the folder)."""
        port = int((Path(folder) / "port").read_text())
        bindir = postgres_bindir()
        if bindir is None:
            raise RuntimeError("PostgreSQL is not installed (apt-get install postgresql)")
        return cls(Path(folder), port, bindir)

    def url(self, database: str = "postgres", user: str | None = None) -> str:
        """The URL of ``database`` on this server as ``user`` (default: the superuser)."""
        return f"postgresql://{user or self.user}@127.0.0.1:{self.port}/{database}"

    def sql(self, statement: str, database: str = "postgres") -> str:
        """Run one SQL statement as the superuser with ``psql``; its output."""
        return self._run(f"{self.bindir}/psql -h 127.0.0.1 -p {self.port} -U {self.user} -d {database} "
                         f"-v ON_ERROR_STOP=1 -qAt -c {shlex.quote(statement)}")

    def create_database(self, name: str) -> str:
        """A new empty database; its URL."""
        self.sql(f'CREATE DATABASE "{name}"')
        return self.url(name)

    def restart(self) -> None:
        """Stop the server (``-m fast``: connections are cut) and start it again."""
        self.halt()
        self.start_again()

    def halt(self) -> None:
        """Stop the server (``-m fast``: connections are cut), keeping its folder and port."""
        self._ctl("stop -m fast")

    def start_again(self) -> None:
        """Start a server :meth:`halt` stopped, on the same port."""
        self._ctl("start")

    def stop(self) -> None:
        """Stop the server and remove its folder."""
        try:
            self._ctl("stop -m fast")
        finally:
            shutil.rmtree(self.folder, ignore_errors=True)

    def _ctl(self, action: str) -> None:
        (self.folder / "port").write_text(str(self.port))
        options = f"-p {self.port} -k {self.folder} -h 127.0.0.1 -c fsync=off"
        self._run(f"{self.bindir}/pg_ctl -D {self.folder}/data -l {self.folder}/log "
                  f"-o {shlex.quote(options)} -w {action}")

    def _run(self, command: str) -> str:
        argv = ["sh", "-c", command]
        if hasattr(os, "geteuid") and os.geteuid() == 0:  # PostgreSQL refuses to run as root
            argv = ["su", "postgres", "-s", "/bin/sh", "-c", command]
        done = subprocess.run(argv, capture_output=True, text=True, check=False)
        if done.returncode != 0:
            raise RuntimeError(f"{command.split()[0]} failed ({done.returncode}): "
                               f"{done.stderr or done.stdout}")
        return done.stdout.strip()


def main(argv: list[str]) -> int:
    """``start PARENT``: start a server, print ``HPNB_TEST_POSTGRES=URL`` and
    ``HPNB_TEST_POSTGRES_DIR=FOLDER``; ``stop FOLDER``: stop it and remove its folder."""
    if len(argv) == 2 and argv[0] == "start":
        server = PostgresServer.start(argv[1])
        print(f"HPNB_TEST_POSTGRES={server.url()}")
        print(f"HPNB_TEST_POSTGRES_DIR={server.folder}")
        return 0
    if len(argv) == 2 and argv[0] == "stop":
        PostgresServer.of_folder(argv[1]).stop()
        return 0
    print("usage: python -m hpnb.testing.postgres_server start PARENT | stop FOLDER")
    return 2


if __name__ == "__main__":
    import sys

    raise SystemExit(main(sys.argv[1:]))
