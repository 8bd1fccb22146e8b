"""The worker-side capture of a trial's output, in this process: routing by thread and the
ring buffer's edge cases (progress bars, multi-byte text, bytes split between writes)."""

from __future__ import annotations

import sys
import threading

from hpnb.core.trial_output import MAX_BYTES, MAX_LINES
from hpnb.runner.worker.capture import OutputTail, capturing, output_so_far
from tests.waiting import patience


def test_a_progress_bar_keeps_its_last_state_like_a_terminal() -> None:
    tail = OutputTail()
    for percent in (0, 50, 100):
        tail.write(f"\repoch 1: {percent:3d}%|{'#' * (percent // 10):10}|")
    tail.write("\n")
    tail.write("done\r\n")
    assert tail.text() == "epoch 1: 100%|##########|\ndone\n"


def test_multi_byte_text_stays_within_the_byte_limit() -> None:
    tail = OutputTail()
    for i in range(3 * MAX_LINES):
        tail.write(f"{i} " + "数据" * 100 + "\n")
    kept = tail.text()
    assert len(kept.encode()) <= MAX_BYTES
    assert kept.endswith(f"{3 * MAX_LINES - 1} " + "数据" * 100 + "\n")
    assert tail.dropped


def test_a_character_split_between_two_byte_writes_is_joined() -> None:
    tail = OutputTail()
    encoded = "naïve ✓\n".encode()
    tail.write_bytes(encoded[:3])
    tail.write_bytes(encoded[3:])
    assert tail.text() == "naïve ✓\n"


def test_only_the_trial_thread_is_captured_and_its_output_can_be_read_while_it_runs(capsys) -> None:
    started, release = threading.Event(), threading.Event()
    seen: list[dict | None] = []

    def trial() -> None:
        with capturing("demo", 7, 0) as capture:
            print("from the trial")
            sys.stderr.write("trial warning\n")
            started.set()
            release.wait(patience(10))
        seen.append(capture.output(0).to_message())

    thread = threading.Thread(target=trial)
    thread.start()
    started.wait(patience(10))
    print("from the notebook")
    so_far = output_so_far("demo", 7, 0)
    release.set()
    thread.join(10)
    assert so_far is not None and so_far["stdout"] == "from the trial\n"
    assert seen[0] is not None and seen[0]["stderr"] == "trial warning\n"
    assert output_so_far("demo", 7, 0) is None  # ended: nothing running here any more
    shown = capsys.readouterr()
    assert "from the notebook" in shown.out
    assert "from the trial" not in shown.out + shown.err
