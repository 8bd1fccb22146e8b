"""``hpnb.compare``: several searches side by side, best score so far against trials and time.

Example:
    >>> import hpnb
    >>> comparison = hpnb.compare(["tpe-run", "random-run"])  # doctest: +SKIP
    >>> comparison.frame.groupby("search")["best"].last()  # doctest: +SKIP
    >>> comparison.figure(x="time")  # doctest: +SKIP
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from hpnb.core.analysis.compare import SearchCurve, compare_searches
from hpnb.core.errors import HpnbError, closest, quote
from hpnb.core.store import ExperimentRecord, Store

if TYPE_CHECKING:
    import pandas as pd
    import plotly.graph_objects as go

    from hpnb.api import Search, StoreLike

#: the columns of :attr:`Comparison.frame`.
FRAME_COLUMNS = ("search", "trial", "seconds", "score", "best", "best_at_time")
#: known names an unknown-name error lists at most.
MAX_NAMES_LISTED = 10


@dataclass(frozen=True)
class Comparison:
    """The best score so far of several searches (see :mod:`hpnb.core.analysis.compare`).

    Attributes:
        curves: one per search, in the order asked.
    """

    curves: tuple[SearchCurve, ...]

    @property
    def frame(self) -> pd.DataFrame:
        """Long format, one row per finished trial with a score: search, trial (its id), seconds
        (its end, from the search's start), score, best (so far by trial number) and
        best_at_time (so far by end time)."""
        import pandas as pd

        rows = [(curve.name, p.trial_id, p.seconds, p.score, p.best, p.best_at_time)
                for curve in self.curves for p in curve.points]
        frame = pd.DataFrame(rows, columns=list(FRAME_COLUMNS))
        return frame.astype({"search": "object", "trial": "int64", "seconds": "float64", "score": "float64",
                             "best": "float64", "best_at_time": "float64"})

    def figure(self, x: Literal["trial", "time"] = "trial") -> go.Figure:
        """A plotly figure, one step line per search: best so far against the trial number
        (``x="trial"``) or seconds since each search started (``x="time"``)."""
        import plotly.graph_objects as go

        if x not in ("trial", "time"):
            raise HpnbError(f"figure: x={x!r} is not allowed; allowed: trial, time")
        figure = go.Figure()
        for curve in self.curves:
            xs: list[float]
            if x == "trial":
                xs, ys = [float(p.trial_id) for p in curve.points], [p.best for p in curve.points]
            else:
                timed = sorted((p.seconds, p.best_at_time) for p in curve.points if p.seconds is not None)
                xs, ys = [s for s, _ in timed], [b for _, b in timed]
            figure.add_trace(go.Scatter(x=xs, y=ys, mode="lines+markers", line_shape="hv",
                                        name=f"{curve.name} ({curve.mode})"))
        metrics = ", ".join(dict.fromkeys(curve.metric for curve in self.curves))
        figure.update_layout(
            title=f"Best {metrics} so far", yaxis_title=f"best {metrics}", legend_title="search",
            xaxis_title="trial" if x == "trial" else "seconds since the search started")
        if x == "trial" and max((p.trial_id for c in self.curves for p in c.points), default=0) < 10:
            figure.update_xaxes(dtick=1)  # trial numbers, not ticks at 2.5
        return figure

    def __repr__(self) -> str:
        parts = [f"{curve.name!r} best {curve.points[-1].best:.6g} after {len(curve.points)} trials"
                 if curve.points else f"{curve.name!r} no finished trial" for curve in self.curves]
        return f"<hpnb.Comparison: {'; '.join(parts)}>"

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> Any:
        """Shown in a notebook as :meth:`figure` against trials."""
        return self.figure()._repr_mimebundle_(include, exclude)


def compare(names: Sequence[str | Search], store: StoreLike = None) -> Comparison:
    """Compare stored searches (live ones too, as far as they got).

    Args:
        names: the searches' names (or ``Search`` handles), in the order to show them.
        store: a :class:`~hpnb.core.store.Store`, its path or its URL (default: ``HPNB_STORE``, else
            ``$HPNB_HOME/hpnb.sqlite``).

    Raises:
        HpnbError: no names, or a name not in the store (the message lists the known ones).

    Example:
        >>> hpnb.compare(["tpe-run", "random-run"]).figure(x="time")  # doctest: +SKIP
    """
    from hpnb.api import open_store

    if isinstance(names, str) or not names:
        raise HpnbError(f"compare: give a list of search names, e.g. ['a', 'b'] (got {quote(names)})")
    wanted = list(dict.fromkeys(getattr(name, "name", name) for name in names))
    opened = open_store(store, readonly=True)
    try:
        records = {record.name: record for record in opened.experiments()}
        chosen = [_record(records, str(name), opened) for name in wanted]
        curves = compare_searches([(record, opened.trials(record.id)) for record in chosen])
    finally:
        if opened is not store:
            opened.close()
    return Comparison(tuple(curves))


def _record(records: dict[str, ExperimentRecord], name: str, store: Store) -> ExperimentRecord:
    if name in records:
        return records[name]
    known = list(records)  # newest first
    if not known:
        raise HpnbError(f"compare: no search named {quote(name)}: the store {store.location} has no "
                        "searches yet")
    guess = closest(name, known)
    listed = ", ".join(known[:MAX_NAMES_LISTED])
    more = f" and {len(known) - MAX_NAMES_LISTED} more" if len(known) > MAX_NAMES_LISTED else ""
    hint = f"; did you mean {guess!r}?" if guess else ""
    raise HpnbError(f"compare: no search named {quote(name)} in {store.location}{hint} "
                    f"(known: {listed}{more})")
