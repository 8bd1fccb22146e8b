"""A real IPython shell with hpnb's magics loaded, for the tests that run ``%%hpsearch`` cells."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

from IPython.testing import globalipapp


@contextlib.contextmanager
def magic_shell(code: str) -> Iterator[Any]:
    """The shell with ``%load_ext hpnb.jupyter`` done and ``code`` (the objectives) run; on the way
    out, the local cluster the cells started is closed and the extension unloaded."""
    globalipapp.start_ipython()
    shell = globalipapp.get_ipython()
    shell.run_line_magic("load_ext", "hpnb.jupyter")
    shell.run_cell(code)
    try:
        yield shell
    finally:
        from hpnb.cluster.connect import shutdown_local

        shutdown_local()
        shell.run_line_magic("unload_ext", "hpnb.jupyter")
