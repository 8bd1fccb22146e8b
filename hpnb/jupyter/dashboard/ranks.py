"""The ranks of a trial that spans several workers, in the dashboard: a line per rank under the
selected trial's log header (its worker and state, coloured as trial states are), and the "2 ranks"
its row in the table says. The data is :mod:`hpnb.core.rank_states`'; this module only draws it.

Example:
    >>> from hpnb.core.rank_states import RankState, TrialRanks
    >>> shown = ranks_html(TrialRanks(3, 0, (RankState(0, "tcp://10.0.0.5:40123", "running"),
    ...                                      RankState(1, "tcp://10.0.0.6:40411", "lost"))))
    >>> "10.0.0.6:40411" in shown and "lost" in shown
    True
"""

from __future__ import annotations

import html
from collections.abc import Mapping

from hpnb.core.rank_states import TrialRanks, worker_host
from hpnb.core.trial import TrialState
from hpnb.jupyter.dashboard.look import STATE_COLORS

#: the trial state whose colour a rank's state takes.
_AS_TRIAL_STATE = {
    "starting": TrialState.PENDING, "running": TrialState.RUNNING, "completed": TrialState.COMPLETED,
    "failed": TrialState.FAILED, "stopped": TrialState.STOPPED, "lost": TrialState.FAILED,
}
_CELL = "padding:0 10px 0 0;text-align:left"


def _state_cell(state: str) -> str:
    like = _AS_TRIAL_STATE.get(state)
    color = STATE_COLORS.get(like.value, "") if like is not None else ""
    style = f"{_CELL};color:{color}" if color else _CELL
    return f"<td class='hpnb-rank-state' style='{style}'>{html.escape(state)}</td>"


def ranks_html(ranks: TrialRanks | None) -> str:
    """The ranks block of the log panel: how many, then each rank's worker and state ("" for a
    trial of one worker, which has no ranks recorded)."""
    if ranks is None:
        return ""
    attempt = f" &middot; attempt {ranks.attempt + 1}" if ranks.attempt else ""
    rows = "".join(
        f"<tr data-rank='{rank.rank}'><td style='{_CELL}'>{rank.rank}</td>"
        f"<td style='{_CELL}'><code>{html.escape(worker_host(rank.worker))}</code></td>"
        f"{_state_cell(rank.state)}</tr>"
        for rank in ranks.ranks)
    head = "".join(f"<th style='{_CELL}'>{title}</th>" for title in ("rank", "worker", "state"))
    table = f"<table style='font-size:12px;margin:2px 0 6px'><tr>{head}</tr>{rows}</table>"
    return (f"<div class='hpnb-trial-ranks' title='{html.escape(ranks.summary())}'>"
            f"<b>{ranks.label()}</b>{attempt}{table}</div>")


def rank_labels(ranks: Mapping[int, TrialRanks]) -> dict[int, str]:
    """Trial id -> what its row in the table adds to its state (``2 ranks``), for trials whose
    ranks are recorded."""
    return {trial_id: shown.label() for trial_id, shown in ranks.items()}
