"""hpnb.compare and Search.importance over searches run on a real LocalCluster."""

from __future__ import annotations

from functools import partial

import pandas as pd
import pytest

import hpnb
from hpnb.core.errors import HpnbError
from tests.runner import objectives
from tests.waiting import patience

SPACE = {"x": {"min": 0.0, "max": 1.0}, "y": {"type": "int", "min": 0, "max": 3}}


def _run(store, dask_client, name, strategy, trials):
    objective = partial(objectives.quadratic, steps=2)
    return hpnb.search(objective, name=name, store=store, client=dask_client, metric="loss", mode="min",
                       strategy=strategy, trials=trials, parallel=2, seed=1, parameters=SPACE)


@pytest.mark.slow
def test_two_real_searches_compared_by_trial_and_by_time(store, dask_client):
    first = _run(store, dask_client, "random-run", "random", 12).wait(patience(120))
    second = _run(store, dask_client, "sobol-run", "sobol", 8).wait(patience(120))
    assert first.state == second.state == "COMPLETED"

    comparison = hpnb.compare(["random-run", second], store=store.path)
    frame = comparison.frame
    assert list(frame.columns) == ["search", "trial", "seconds", "score", "best", "best_at_time"]
    assert frame.groupby("search", sort=False).size().to_dict() == {"random-run": 12, "sobol-run": 8}
    for search in (first, second):
        rows = frame[frame["search"] == search.name]
        assert rows["trial"].tolist() == sorted(rows["trial"])
        assert rows["best"].is_monotonic_decreasing and rows["best"].iloc[-1] == search.best["value"]
        by_time = rows.sort_values("seconds")
        assert by_time["best_at_time"].is_monotonic_decreasing
        assert by_time["best_at_time"].iloc[-1] == search.best["value"]
        assert (rows["seconds"] > 0).all()
        ends = {t.trial_id: t.end for t in store.trials(search.experiment_id)}
        start = min(t.start for t in store.trials(search.experiment_id))
        assert rows["seconds"].tolist() == pytest.approx([ends[t] - start for t in rows["trial"]])

    assert repr(comparison) == (
        f"<hpnb.Comparison: 'random-run' best {first.best['value']:.6g} after 12 trials; "
        f"'sobol-run' best {second.best['value']:.6g} after 8 trials>")
    figure = comparison.figure(x="time")
    assert [trace.name for trace in figure.data] == ["random-run (min)", "sobol-run (min)"]
    assert figure.data[0].y[-1] == first.best["value"]
    assert figure.layout.xaxis.title.text == "seconds since the search started"
    assert list(comparison.figure().data[1].x) == frame[frame["search"] == "sobol-run"]["trial"].tolist()

    with pytest.raises(HpnbError, match=r"no search named 'sobol-rn' .*did you mean 'sobol-run'\? "
                                        r"\(known: sobol-run, random-run\)"):
        hpnb.compare(["random-run", "sobol-rn"], store=store)


@pytest.mark.slow
def test_importance_of_a_real_search(store, dask_client):
    search = _run(store, dask_client, "importance-run", "random", 16).wait(patience(120))
    importance = search.importance()
    assert importance.index.tolist() == ["y", "x"]  # loss = (x - 0.3)^2 + y: y moves it by up to 3
    assert importance.name == "importance" and importance.sum() == pytest.approx(1.0)
    assert hpnb.load("importance-run", store=store).importance().equals(importance)


@pytest.mark.slow
def test_history_slices_and_contour_of_a_real_search(store, dask_client):
    search = _run(store, dask_client, "insight-run", "random", 10).wait(patience(120))
    trials = {t.trial_id: t for t in store.trials(search.experiment_id)}
    history = search.optimization_history()
    assert history["trial_id"].tolist() == list(range(10))
    assert history["score"].tolist() == [trials[i].value for i in range(10)]
    assert history["best"].tolist() == history["score"].cummin().tolist()
    assert history["end"].tolist() == [pd.Timestamp(trials[i].end, unit="s", tz="UTC") for i in range(10)]
    by_end = search.optimization_history(order="end")
    assert by_end["end"].is_monotonic_increasing and by_end["best"].iloc[-1] == search.best["value"]

    x, y = search.slices()
    assert (x.axis.kind, y.axis.kind) == ("float", "int")
    assert list(y.values) == [trials[i].params["y"] for i in y.trial_ids]
    contour = search.contour()  # the most important first: y, then x
    assert (contour.x.name, contour.y.name) == ("y", "x")
    assert sorted(contour.trial_ids) == list(range(10))
    assert set(contour.x_grid) <= {0.0, 1.0, 2.0, 3.0}
    assert search.contour(y="y").x.name == "x"
    with pytest.raises(HpnbError, match="'z' is not a varied parameter"):
        search.contour(x="z")
