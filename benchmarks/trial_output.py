"""A trial printing 10,000 lines a second while the notebook works: ``1+1`` latency in a real
kernel, with the trial on a threads-based cluster inside the kernel process (its prints pass
through the kernel's own ``sys.stdout``) and on hpnb's local cluster (worker processes); then what
a 100 MB print costs the worker and the store.

Goals: ``1+1`` answers in under 100 ms at p99 while the trial prints; nothing the trial printed
reaches a cell; the 100 MB print allocates under 1 MiB besides the string; the store stays under
2 MiB.

    python benchmarks/trial_output.py [--seconds S]
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
import textwrap
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from tests.jupyter.kernel_session import KernelSession  # noqa: E402  (the repository's tests folder)

#: a line the trials print.
TRIAL_LINE = re.compile(r"^(steady line \d+|line \d+|after the big line|y{100,})$", re.MULTILINE)
#: the p99 goal of ``1+1``, in seconds.
P99_GOAL = 0.1

SETUP = textwrap.dedent(f"""\
    import json, re, sqlite3, sys, time
    sys.path.insert(0, {str(ROOT)!r})
    import cloudpickle
    import hpnb
    from distributed import Client, LocalCluster
    from tests.runner import printing

    cloudpickle.register_pickle_by_value(printing)
    threads = Client(LocalCluster(n_workers=1, threads_per_worker=2, processes=False,
                                  dashboard_address=None))

    def store_size(path):  # bytes as SQLite sees them: the main file and its write-ahead log
        conn = sqlite3.connect(path)
        pages = conn.execute("PRAGMA page_count").fetchone()[0]
        size = conn.execute("PRAGMA page_size").fetchone()[0]
        conn.close()
        return pages * size

    def wait_started(search):
        while not [t for t in search.store.trials(search.experiment_id) if t.start is not None]:
            time.sleep(0.05)
    """)

SEARCH = ("search = hpnb.search(printing.prints_steadily, name={name!r}, metric='loss', trials=1, "
          "parameters={{'seconds': [{seconds}]}}, overwrite=True, {where})")


def latencies(kernel: KernelSession, until_done: bool, samples: int = 200) -> list[float]:
    """Seconds of ``1+1`` round trips, every 20 ms: ``samples`` of them, or while the search runs."""
    found: list[float] = []
    while (kernel.run("print(search.state)").strip() == "RUNNING") if until_done else len(found) < samples:
        reply, seconds = kernel.execute("1+1")
        assert reply["content"]["status"] == "ok"
        found.append(seconds)
        kernel.drain_iopub()
        time.sleep(0.02)
    return found


def flood_row(kernel: KernelSession, label: str, where: str, seconds: float) -> dict[str, object]:
    kernel.run(SEARCH.format(name=label.split()[0], seconds=seconds, where=where))
    kernel.run("wait_started(search)")
    for _ in range(10):  # warm-up
        kernel.execute("1+1")
    measured = latencies(kernel, until_done=True)
    kernel.run("search.wait(120)")
    log = json.loads(kernel.run("print(json.dumps(search.logs(0).to_json()))"))
    lines = int(json.loads(kernel.run("print(json.dumps(search.best['metrics']))"))["lines"])
    return {"label": label, "times": measured, "lines": lines, "kept": len(log["stdout"].splitlines())}


def big_print(kernel: KernelSession) -> dict[str, float]:
    kernel.run("big = hpnb.search(printing.floods, name='big', metric='loss', trials=1, "
               "parameters={'lines': [5000]}, overwrite=True).wait(120)")
    figures = json.loads(kernel.run(
        "log = big.logs(0)\n"
        "print(json.dumps({'print_peak': big.best['metrics']['print_peak'], 'peak': log.peak_memory_bytes,"
        " 'kept': len(log.stdout.encode()), 'store': store_size(big.store.path)}))"))
    return {key: float(value) for key, value in figures.items()}


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[int(q * (len(ordered) - 1))]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=8.0, help="how long each trial prints")
    args = parser.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as home:
        kernel = KernelSession(Path(home))
        try:
            kernel.run(SETUP)
            for _ in range(10):
                kernel.execute("1+1")
            rows.append({"label": "idle kernel", "times": latencies(kernel, until_done=False),
                         "lines": 0, "kept": 0})
            rows.append(flood_row(kernel, "threads cluster in the kernel", "client=threads", args.seconds))
            rows.append(flood_row(kernel, "local cluster (2 worker processes)",
                                  "resources={'workers': 2}", args.seconds))
            big = big_print(kernel)
            kernel.drain_iopub()
            leaked = [m["content"]["text"] for m in kernel.iopub
                      if m["msg_type"] == "stream" and TRIAL_LINE.search(m["content"]["text"])]
        finally:
            kernel.run("threads.close(); import hpnb.cluster.connect as c; c.shutdown_local()")
            kernel.close()
    return report(rows, big, leaked)


def report(rows: list[dict[str, object]], big: dict[str, float], leaked: list[str]) -> int:
    print(f"{'while':38} {'samples':>7} {'p50 ms':>7} {'p99 ms':>7} {'max ms':>7} {'lines printed':>13} "
          f"{'lines kept':>10}")
    ok = not leaked
    for row in rows:
        times = row["times"]
        assert isinstance(times, list)
        p99 = percentile(times, 0.99)
        ok = ok and p99 < P99_GOAL
        print(f"{row['label']:38} {len(times):7d} {percentile(times, 0.5) * 1000:7.1f} {p99 * 1000:7.1f} "
              f"{max(times) * 1000:7.1f} {row['lines']:13,} {row['kept']:10,}")
    print(f"goal: p99 < {P99_GOAL * 1000:.0f} ms; stream messages with trial output in a cell: {len(leaked)}")
    print(f"100 MB print: allocated {big['print_peak'] / 2**10:.0f} KiB beyond the string (goal < 1024), "
          f"worker peak RSS {big['peak'] / 2**20:.0f} MiB, kept {big['kept'] / 2**10:.0f} KiB of stdout, "
          f"store {big['store'] / 2**20:.2f} MiB (goal < 2)")
    ok = ok and big["print_peak"] < 2**20 and big["store"] < 2 * 2**20
    print("all goals met" if ok else "a goal was missed")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
