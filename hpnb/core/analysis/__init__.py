"""What a search's trials say: the optimization history, parameter importance, slices and
contours, the Pareto view of several objectives, comparisons of searches, and times as people
read them.

Plain data computed from store records (no Jupyter, no Dask; Optuna imported only for
importance): the ``Search`` handle, the command line, the notebook dashboard and the
JupyterLab views all draw from these.
"""

from __future__ import annotations

from hpnb.core.analysis.analysis_errors import NotEnoughTrials
from hpnb.core.analysis.compare import CurvePoint, SearchCurve, compare_searches, search_curve, search_start
from hpnb.core.analysis.history import HistoryPoint, optimization_history, scored_trials
from hpnb.core.analysis.humane_time import clock_time, duration, relative_time
from hpnb.core.analysis.importance import (
    EVALUATORS,
    MIN_TRIALS,
    importance_per_objective,
    parameter_importance,
)
from hpnb.core.analysis.pareto_view import ParetoPoint, ParetoView, pareto_view
from hpnb.core.analysis.slices import (
    Axis,
    ContourData,
    ParameterSlice,
    axis_of,
    contour_data,
    contour_pair,
    parameter_slices,
    ranked_parameters,
)

__all__ = [
    "EVALUATORS",
    "MIN_TRIALS",
    "Axis",
    "ContourData",
    "CurvePoint",
    "HistoryPoint",
    "NotEnoughTrials",
    "ParameterSlice",
    "ParetoPoint",
    "ParetoView",
    "SearchCurve",
    "axis_of",
    "clock_time",
    "compare_searches",
    "contour_data",
    "contour_pair",
    "duration",
    "importance_per_objective",
    "optimization_history",
    "parameter_importance",
    "parameter_slices",
    "pareto_view",
    "ranked_parameters",
    "relative_time",
    "scored_trials",
    "search_curve",
    "search_start",
]
