"""Data captured by the objective: a search over a closure of a large array against tiny data.

Each case runs in a fresh process, as a new notebook would: it makes its data (a float64 array of
the case's size), starts hpnb's local cluster (``cluster: local``), then times a search of 16
trials of a trivial objective that reads the array (``hpnb.search`` to ``wait()``). Reported: that
wall time, the process's peak RSS (the notebook's), and the largest worker's peak RSS.

Goals (300 MB, 2 workers, against tiny data): wall <= tiny + 3 s; notebook peak <= tiny peak +
1.5 x 300 MB; each worker's peak <= tiny's + 2 x 300 MB. The 2 GB case (4 workers) must complete.

Usage:
    python benchmarks/data_closure.py [--quick]      # --quick: tiny and 300 MB only
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

MB = 2**20
TRIALS = 16


def peak_rss_mb() -> float:
    """This process's peak resident memory (VmHWM), in MiB."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def run_case(size_mb: int, workers: int) -> dict[str, Any]:
    """One case, in this process: data, cluster, then the timed search."""
    import numpy as np

    import hpnb
    from hpnb.cluster.connect import local_client
    from hpnb.core.spec.resources import Resources

    data = np.full(max(1000, size_mb * MB // 8), 0.5)

    def train(x: float) -> float:
        return x + float(data[:10].sum())

    client = local_client(Resources(workers=workers))
    client.wait_for_workers(workers, timeout=120)
    with tempfile.TemporaryDirectory() as home:
        start = time.perf_counter()
        search = hpnb.search(train, name="closure", store=Path(home) / "hpnb.sqlite", metric="loss",
                             parameters={"x": {"min": 0.0, "max": 1.0}}, trials=TRIALS, parallel=workers,
                             resources={"workers": workers})
        search.wait()
        wall = time.perf_counter() - start
        state = search.state
    worker_peaks = client.run(peak_rss_mb)
    return {"wall": wall, "notebook_peak": peak_rss_mb(), "worker_peak": max(worker_peaks.values()),
            "state": state}


def in_child(size_mb: int, workers: int) -> dict[str, Any]:
    out = subprocess.run([sys.executable, __file__, "--case", str(size_mb), str(workers)],
                         capture_output=True, text=True, check=False)
    lines = [line for line in out.stdout.splitlines() if line.startswith("{")]
    if not lines:
        raise RuntimeError(f"case {size_mb} MB failed:\n{out.stdout[-2000:]}\n{out.stderr[-4000:]}")
    return json.loads(lines[-1])


def main() -> int:
    quick = "--quick" in sys.argv
    cases = [(0, 2), (300, 2)] + ([] if quick else [(2048, 4)])
    rows = {case: in_child(*case) for case in cases}
    print(f"{'data':>8} {'workers':>7} {'state':>10} {'wall s':>7} {'notebook peak MiB':>18} "
          f"{'worker peak MiB':>16}")
    for (size, workers), row in rows.items():
        print(f"{size or 'tiny':>8} {workers:>7} {row['state']:>10} {row['wall']:>7.2f} "
              f"{row['notebook_peak']:>18.0f} {row['worker_peak']:>16.0f}")
    tiny, big = rows[(0, 2)], rows[(300, 2)]
    goals = [
        ("300 MB wall <= tiny + 3 s", big["wall"] <= tiny["wall"] + 3),
        ("300 MB notebook peak <= tiny + 450 MiB", big["notebook_peak"] <= tiny["notebook_peak"] + 1.5 * 300),
        ("300 MB worker peak <= tiny + 600 MiB", big["worker_peak"] <= tiny["worker_peak"] + 2 * 300),
        ("every search COMPLETED", all(r["state"] == "COMPLETED" for r in rows.values())),
    ]
    for name, met in goals:
        print(f"{name}: {'met' if met else 'MISSED'}")
    return 0 if all(met for _, met in goals) else 1


if __name__ == "__main__":
    if len(sys.argv) > 2 and sys.argv[1] == "--case":
        print(json.dumps(run_case(int(sys.argv[2]), int(sys.argv[3]))), flush=True)
        sys.exit(0)
    sys.exit(main())
