"""The search spec: what to vary, how to search, when to stop, where to run.

One package, one concept per module:

- :mod:`~hpnb.core.spec.experiment`: :func:`parse_spec` and the :class:`ExperimentSpec` it returns;
- :mod:`~hpnb.core.spec.parameters`: the ``parameters:`` section (every accepted form);
- :mod:`~hpnb.core.spec.resources` and :mod:`~hpnb.core.spec.quantity`: ``resources:`` and
  Kubernetes quantities;
- :mod:`~hpnb.core.spec.values`: how a field's value is checked, the size limits, the one
  experiment-name rule and durations;
- :mod:`~hpnb.core.spec.yaml_lines`: safe YAML with line numbers for errors;
- :mod:`~hpnb.core.spec.file`: reading a spec file (size and encoding checked).

Example:
    >>> parse_spec("metric: loss\\nparameters:\\n  lr: [0.1, 0.01]").trials
    2
"""

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from hpnb.core.spec.experiment import (
        DEFAULT_STRATEGY,
        DEFAULT_TRIALS,
        SYNONYMS,
        TOP_LEVEL_KEYS,
        EarlyStoppingSpec,
        ExperimentSpec,
        StrategySpec,
        parse_spec,
    )
    from hpnb.core.spec.objectives import MODES
    from hpnb.core.spec.values import check_experiment_name, describe_duration, parse_duration


def __getattr__(name: str) -> Any:
    # lazily: the space and the store use the spec's value checks without the whole parser
    if name in __all__:
        from hpnb.core.spec import experiment, values

        return getattr(experiment, name) if hasattr(experiment, name) else getattr(values, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "DEFAULT_STRATEGY",
    "DEFAULT_TRIALS",
    "MODES",
    "SYNONYMS",
    "TOP_LEVEL_KEYS",
    "EarlyStoppingSpec",
    "ExperimentSpec",
    "StrategySpec",
    "check_experiment_name",
    "describe_duration",
    "parse_duration",
    "parse_spec",
]
