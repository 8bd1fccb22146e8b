"""The dashboard's Importance and Contour plots: models fitted to the trials, off the main thread.

Both fit a model (fANOVA; the contour's pair is the two most important parameters), so
:class:`AnalysisPanels` draws them on a :class:`~.throttle.Throttled` thread at most every
:data:`ANALYSIS_INTERVAL` seconds and only while one of them is shown (see
:class:`~hpnb.jupyter.dashboard.tabs.InsightTabs`); the kernel's main thread never waits for them.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import ipywidgets as widgets

from hpnb.core.analysis.analysis_errors import NotEnoughTrials
from hpnb.core.analysis.importance import importance_per_objective
from hpnb.core.analysis.slices import contour_data, contour_pair
from hpnb.core.errors import HpnbError
from hpnb.core.space import SearchSpace
from hpnb.core.trial import TrialState
from hpnb.jupyter.dashboard import insight, insight_figures, pareto
from hpnb.jupyter.dashboard.model import View
from hpnb.jupyter.dashboard.panels import note_html
from hpnb.jupyter.dashboard.throttle import Throttled

IMPORTANCE, CONTOUR = "Importance", "Contour"
#: the importance evaluators (:data:`hpnb.core.analysis.importance.EVALUATORS`) as people name them.
EVALUATOR_TITLES = {"fANOVA": "fanova", "PED-ANOVA": "ped-anova"}
#: seconds between two computations of importance (or of a contour) at most.
ANALYSIS_INTERVAL = 5.0


class AnalysisPanels:
    """Draws importance and the contour of the last view, whichever is shown, on its own thread.

    Args:
        space: the search space (None: nothing to analyse).
        state: returns the last view (or None) and the name of the plot shown.
        figure: the figure of a plot by name (made on first use).
        notes: the note above each plot, by name.
        evaluator: the importance evaluator chosen (fANOVA by default).
    """

    def __init__(self, space: SearchSpace | None, state: Callable[[], tuple[View | None, str]],
                 figure: Callable[[str], Any], notes: Mapping[str, widgets.HTML],
                 evaluator: Callable[[], str] = lambda: "fanova") -> None:
        self.space = space
        self._evaluator = evaluator
        self._state = state
        self._figure = figure
        self._notes = notes
        self._sent: dict[str, Any] = {}
        #: the importance the contour picks its pair from (the first objective's, with several)
        self._importance: dict[str, float] | None = None
        self._thread = Throttled(self._analyse, ANALYSIS_INTERVAL)

    def request(self) -> None:
        """Draw the analysis shown soon (at once if none ran for :data:`ANALYSIS_INTERVAL` s)."""
        self._thread.request()

    def _analyse(self) -> None:
        view, shown = self._state()
        if view is None or self.space is None or shown not in (IMPORTANCE, CONTOUR):
            return
        trials = insight.importance_trials(view.trials)
        if shown == IMPORTANCE or self._importance is None:
            self._rate(view, trials)
        if shown == CONTOUR:
            self._contour(view)

    def _rate(self, view: View, trials: list[Any]) -> None:
        assert self.space is not None
        evaluator = self._evaluator()
        key = (IMPORTANCE, evaluator, tuple(t.trial_id for t in trials))
        if self._sent.get(IMPORTANCE) == key:
            return
        objectives = view.header.objectives
        several = view.header.is_multi_objective
        try:
            per_objective = importance_per_objective(trials, self.space, objectives, evaluator)
        except (NotEnoughTrials, HpnbError) as err:  # said plainly where the bars would be
            self._notes[IMPORTANCE].value = note_html(str(err))
            insight_figures.update_importance(self._figure(IMPORTANCE), {}, "")
            return
        importance = next(iter(per_objective.values()))
        self._sent[IMPORTANCE], self._importance = key, importance
        completed = sum(1 for t in view.trials if t.state == TrialState.COMPLETED)
        basis = f"{len(trials)} completed trials" + ("" if len(trials) == completed else f" of {completed}")
        self._notes[IMPORTANCE].value = ""
        title = next(t for t, name in EVALUATOR_TITLES.items() if name == evaluator)
        heading = f"{title} importance for {' and '.join(per_objective)} ({basis})"
        if several:  # one bar set per objective
            insight_figures.update_importance_per_objective(self._figure(IMPORTANCE), per_objective, heading)
        else:
            insight_figures.update_importance(self._figure(IMPORTANCE), importance, heading)

    def _contour(self, view: View) -> None:
        assert self.space is not None
        pair = contour_pair(self.space, self._importance)
        if pair is None or self._sent.get(CONTOUR) == (view.version, pair):
            return
        self._sent[CONTOUR] = (view.version, pair)
        try:
            contour = contour_data(view.trials, self.space, *pair)
        except (NotEnoughTrials, HpnbError) as err:
            self._notes[CONTOUR].value = note_html(str(err))
            return
        self._notes[CONTOUR].value = ""
        insight_figures.update_contour(self._figure(CONTOUR), contour, pareto.target_label(view.header))

    def join(self, timeout: float) -> None:
        """Wait at most ``timeout`` seconds for the analysis asked for to be drawn."""
        self._thread.join(timeout)

    def close(self) -> None:
        self.join(0.0)
