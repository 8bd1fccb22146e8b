"""The warm-up of ``%load_ext hpnb`` never makes a cell wait for more than the step under way: a
cell that comes while the first module is imported waits for that import, then runs while the
thread takes no further step, and the thread takes the rest once the cell is done."""

from __future__ import annotations

import ast
import subprocess
import sys
import textwrap
from pathlib import Path

SCENARIO = """
import sys, threading
sys.path.insert(0, {folder!r})
import probe
from hpnb.jupyter import warmup

warmup.MODULES = ("slow_first", "second")
warmup.LATER = ()
warmup._send_plotly_js = lambda: probe.seen.append("plotly")
warmup.start()
probe.first_started.wait(60)
entered = threading.Event()
leave = threading.Event()

def cell():
    with warmup.cell():
        probe.seen.append("cell")
        entered.set()
        leave.wait(60)
    probe.seen.append("cell done")

runner = threading.Thread(target=cell)
runner.start()
probe.first_may_end.set()          # the step under way ends: the cell goes on
assert entered.wait(60), probe.seen
inside = list(probe.seen)          # what the thread did before the cell ran
leave.set()
runner.join(60)
warmup._thread.join(60)
print(inside)
print(probe.seen)
"""


def _modules(folder: Path) -> None:
    (folder / "probe.py").write_text(textwrap.dedent("""
        import threading
        seen = []
        first_started = threading.Event()
        first_may_end = threading.Event()
    """))
    (folder / "slow_first.py").write_text(textwrap.dedent("""
        import probe
        probe.seen.append("first")
        probe.first_started.set()
        probe.first_may_end.wait(60)
    """))
    (folder / "second.py").write_text("import probe\nprobe.seen.append('second')\n")


def test_a_cell_waits_only_for_the_step_under_way_and_the_rest_follows_the_cell(tmp_path: Path) -> None:
    _modules(tmp_path)
    script = SCENARIO.format(folder=str(tmp_path))
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    inside, everything = (ast.literal_eval(line) for line in done.stdout.splitlines()[-2:])
    assert inside == ["first", "cell"]  # the import under way, then the cell: no other step before it
    assert everything[:3] == ["first", "cell", "cell done"]
    assert everything[3:] == ["plotly", "second"]  # the steps left, once the cell is done
