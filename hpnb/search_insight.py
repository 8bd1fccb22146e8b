"""What a search's trials say, as the ``Search`` handle offers it: the optimization history,
parameter importance, slices and the contour of two parameters.

Each reads the store when called, so a live search answers with the trials finished so
far. The computing is in :mod:`hpnb.core.analysis`; the dashboard and the JupyterLab views
draw from the same functions.

Example:
    >>> search = hpnb.load("mlp-lr")  # doctest: +SKIP
    >>> search.importance()  # doctest: +SKIP
    parameter
    lr           0.81
    layers       0.11
    optimizer    0.08
    Name: importance, dtype: float64
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from hpnb.core.analysis.history import Order

if TYPE_CHECKING:
    import pandas as pd

    from hpnb.core.analysis import ContourData, ParameterSlice
    from hpnb.core.spec import ExperimentSpec
    from hpnb.core.store import Store, TrialRecord


class SearchInsight:
    """The analyses of a search (a base of :class:`hpnb.Search`)."""

    store: Store
    experiment_id: int
    spec: ExperimentSpec

    def _trials(self) -> list[TrialRecord]:
        return self.store.trials(self.experiment_id)

    def importance(self, evaluator: str = "fanova", metric: str | None = None) -> pd.Series | pd.DataFrame:
        """How much each parameter explains the scores of the completed trials, most important first.

        With several objectives (and no ``metric``), a DataFrame: one column per objective, the
        parameters ordered by the first objective's importance.

        Args:
            evaluator: "fanova" (Optuna's fANOVA, seeded) or "ped-anova".
            metric: rate by another reported metric (its final value) instead of the target.

        Raises:
            NotEnoughTrials: fewer than 4 completed trials with a score.

        See :mod:`hpnb.core.analysis.importance` for which trials and parameters count.

        Example:
            >>> search.importance().head(3)  # doctest: +SKIP
        """
        import pandas as pd

        from hpnb.core.analysis import importance_per_objective, parameter_importance

        if metric is None and self.spec.is_multi_objective:
            each = importance_per_objective(self._trials(), self.spec.space, self.spec.objectives, evaluator)
            frame = pd.DataFrame(each, dtype="float64").rename_axis("parameter")
            return frame.loc[list(each[self.spec.objectives[0].name])]
        mode = next((o.mode for o in self.spec.objectives if o.name == metric), self.spec.mode)
        found = parameter_importance(self._trials(), self.spec.space, mode, evaluator, metric=metric)
        return pd.Series(found, name="importance", dtype="float64").rename_axis("parameter")

    def optimization_history(self, order: Order = "trial", metric: str | None = None) -> pd.DataFrame:
        """Each finished trial's score with the best so far, one row per trial: trial_id, state,
        score, end (a UTC timestamp), best, is_best (it set a new best).

        Args:
            order: "trial" (by trial number) or "end" (by end time): the order of the rows and
                of the best so far.
            metric: follow another reported metric instead of the target.

        Example:
            >>> search.optimization_history().plot(x="trial_id", y=["score", "best"])  # doctest: +SKIP
        """
        import pandas as pd

        from hpnb.core.analysis import optimization_history

        points = optimization_history(self._trials(), self.spec.mode, order, metric)
        frame = pd.DataFrame([vars(point) for point in points],
                             columns=["trial_id", "state", "score", "end", "best", "is_best"])
        frame["end"] = pd.to_datetime(frame["end"].astype("float64"), unit="s", utc=True)
        return frame.astype({"trial_id": "int64", "score": "float64", "best": "float64", "is_best": "bool"})

    def slices(self, metric: str | None = None) -> list[ParameterSlice]:
        """The score of every finished trial against each varied parameter, with its axis
        (real, integer or categorical; log-scaled or not).

        Example:
            >>> [(s.axis.name, len(s.values)) for s in search.slices()]  # doctest: +SKIP
        """
        from hpnb.core.analysis import parameter_slices

        return parameter_slices(self._trials(), self.spec.space, metric)

    def contour(self, x: str | None = None, y: str | None = None, metric: str | None = None) -> ContourData:
        """Scores interpolated on a grid over parameters ``x`` and ``y`` (default: the two most
        important, else the first two varied), with the trials.

        Raises:
            HpnbError: fewer than two varied parameters, or ``x``/``y`` not one of them.
            NotEnoughTrials: fewer than 3 finished trials with a score.

        Example:
            >>> contour = search.contour()  # doctest: +SKIP
            >>> go.Figure(go.Contour(x=contour.x_grid, y=contour.y_grid, z=contour.z))  # doctest: +SKIP
        """
        from hpnb.core.analysis import contour_data

        if x is None or y is None:
            x, y = self._contour_axes(x, y, metric)
        return contour_data(self._trials(), self.spec.space, x, y, metric=metric)

    def _contour_axes(self, x: str | None, y: str | None, metric: str | None) -> tuple[str, str]:
        """``x`` and ``y``, the missing ones filled with the most important other parameters."""
        from hpnb.core.analysis import ranked_parameters
        from hpnb.core.errors import HpnbError

        try:
            importance = self.importance(metric=metric or self.spec.metric).to_dict()
        except HpnbError:  # too few trials to rate: the space's order
            importance = {}
        others = [name for name in ranked_parameters(self.spec.space, importance) if name not in (x, y)]
        if len(others) < (x is None) + (y is None):
            raise HpnbError("contour: needs two varied parameters; this search varies "
                            f"{', '.join(ranked_parameters(self.spec.space)) or 'none'}")
        x = x if x is not None else others.pop(0)
        y = y if y is not None else others.pop(0)
        return x, y
