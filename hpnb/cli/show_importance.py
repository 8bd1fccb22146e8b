"""``hpnb show NAME --importance [EVALUATOR]``: how much each parameter explains the scores, as bars.

Example:
    >>> from hpnb.cli import main
    >>> main(["show", "mlp-lr", "--importance"])  # doctest: +SKIP
    Parameter importance in mlp-lr (fANOVA over 38 completed trials; val_loss, min)
      lr          0.812  ████████████████████████████████████████
      layers      0.101  ████▉
      optimizer   0.087  ████▎
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Mapping

from hpnb.cli.store_option import open_store

#: characters of the longest bar.
BAR_WIDTH = 40
_EIGHTHS = " ▏▎▍▌▋▊▉"
_TITLES = {"fanova": "fANOVA", "ped-anova": "PED-ANOVA"}


def add_importance_option(parser: argparse.ArgumentParser) -> None:
    """Add ``--importance [fanova|ped-anova]`` to ``hpnb show``."""
    from hpnb.core.analysis.importance import EVALUATORS  # optuna itself is imported when it runs

    parser.add_argument("--importance", nargs="?", const="fanova", choices=EVALUATORS, metavar="EVALUATOR",
                        help="show how much each parameter explains the scores of the completed trials "
                             f"({', '.join(EVALUATORS)}; default fanova)")


def show_importance(args: argparse.Namespace) -> int:
    """Print the importance table (or, with ``--json``, ``{parameter: importance}``); exit 0."""
    from hpnb.core.analysis import importance_per_objective, scored_trials
    from hpnb.core.analysis.importance import MIN_TRIALS
    from hpnb.core.spec import parse_spec
    from hpnb.core.trial import TrialState

    with open_store(args) as store:
        experiment = store.experiment(args.name)
        trials = store.trials(experiment.id)
    spec = parse_spec(experiment.spec)
    space = spec.space
    each = importance_per_objective(trials, space, spec.objectives, args.importance)
    if args.json:  # one objective: {parameter: importance}; several: {objective: {parameter: importance}}
        print(json.dumps(each if spec.is_multi_objective else each[spec.metric], indent=1))
        return 0
    lines = []
    for objective in spec.objectives:
        metric = objective.name if spec.is_multi_objective else None
        completed = len(scored_trials(trials, metric, states=frozenset({TrialState.COMPLETED.value})))
        lines += [f"Parameter importance in {experiment.name} ({_TITLES[args.importance]} over {completed} "
                  f"completed trials; {objective.name}, {objective.mode})",
                  *importance_lines(each[objective.name])]
    found = each[spec.metric]
    missing = [p.name for p in space.free if p.name not in found and p.grid_size() != 1]
    if missing:
        lines.append(f"  not rated (in fewer than {MIN_TRIALS} trials): {', '.join(missing)}")
    sys.stdout.write("\n".join(lines) + "\n")
    return 0


def importance_lines(importance: Mapping[str, float], width: int = BAR_WIDTH) -> list[str]:
    """One line per parameter: its name, importance and a bar scaled to the largest.

    Example:
        >>> print("\\n".join(importance_lines({"lr": 0.8, "layers": 0.2}, width=8)))
          lr      0.800  ████████
          layers  0.200  ██
    """
    if not importance:
        return []
    name_width = max(len(name) for name in importance)
    top = max(importance.values()) or 1.0
    return [f"  {name:<{name_width}}  {value:.3f}  {bar(value / top, width)}".rstrip()
            for name, value in importance.items()]


def bar(fraction: float, width: int) -> str:
    """A bar of ``fraction`` of ``width`` characters, in eighths (``#`` where the terminal
    cannot print block characters)."""
    eighths = round(max(0.0, min(1.0, fraction)) * width * 8)
    full, part = divmod(eighths, 8)
    text = "█" * full + (_EIGHTHS[part] if part else "")
    encoding = getattr(sys.stdout, "encoding", None)  # None: a text buffer, which holds any character
    try:
        text.encode(encoding or "utf-8")
    except (UnicodeEncodeError, LookupError):
        return "#" * round(eighths / 8)
    return text
