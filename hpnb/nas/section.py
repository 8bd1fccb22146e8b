"""The ``nas:`` section of a spec: an architecture space in Katib's terms, searched by DARTS.

.. code-block:: yaml

    metric: Validation-Accuracy
    mode: max
    trials: 2                      # two supernets, each a trial (by default: two seeds)
    nas:
      layers: 3                    # cells; reduction cells at 1/3 and 2/3 (Katib's numLayers)
      nodes: 2                     # intermediate nodes per cell (Katib's num_nodes)
      operations:                  # Katib's operation types, with their filter sizes
        - {type: separable_convolution, filter_sizes: [3]}
        - max_pooling_3x3          # or a genotype's name
        - skip_connection
      darts: {num_epochs: 5, order: first}    # DARTS's settings by Katib's names

Every trial trains one supernet on the data the named function returns. The search's own strategy
samples the trial-level parameters: ``seed`` and any DARTS setting named in ``parameters:`` (e.g.
``alpha_lr: {min: 1e-4, max: 1e-2, distribution: logUniform}``); ``prepare`` adds a ``seed``
parameter when the spec has none. Everything is checked here, before anything starts.

Example:
    >>> from hpnb.core.spec import parse_spec
    >>> spec = parse_spec({"metric": "Validation-Accuracy", "mode": "max", "nas": {"layers": 1}})
    >>> prepared, objective = prepare(spec, lambda: None)
    >>> prepared.space.to_dict(), type(objective).__name__
    ({'seed': {'type': 'int', 'min': 0, 'max': 2147483647}}, 'DartsTrial')
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from hpnb.core.errors import SpecError, closest
from hpnb.core.spec import ExperimentSpec, parse_spec
from hpnb.nas.architecture_space import NasSection, parse_nas
from hpnb.nas.settings import DEFAULTS

__all__ = ["NasSection", "parse_nas", "prepare"]

#: the metrics a DARTS trial reports every epoch.
REPORTED = ("Validation-Accuracy", "Validation-Loss", "Train-Accuracy", "Train-Loss")
#: parameters a trial reads besides the DARTS settings.
TRIAL_PARAMETERS = ("seed", "layers")
#: the seed parameter added to a spec that has none.
SEED_PARAMETER = {"type": "int", "min": 0, "max": 2**31 - 1}


def prepare(spec: ExperimentSpec,
            given: Callable[..., Any] | None) -> tuple[ExperimentSpec, Callable[..., Any]]:
    """The spec with the trial-level parameters DARTS needs, and the objective that trains a supernet.

    ``given`` is the user's function returning the training and validation data. The spec comes back
    unchanged when it already has a ``seed`` parameter or one of DARTS's settings as parameters.

    Raises:
        SpecError: a field of ``nas:`` is wrong, the metric is not one a DARTS trial reports, its mode
            is not that metric's, or a parameter is none a DARTS trial reads.
    """
    from hpnb.nas.trial import DartsTrial

    section = parse_nas(spec.nas)
    _check_goal(spec)
    names = [p.name for p in spec.space]
    allowed = (*TRIAL_PARAMETERS, *DEFAULTS)
    for name in names:
        if name not in allowed:
            raise SpecError(f"parameters.{name}", "is not a parameter a DARTS trial reads", value=name,
                            allowed=allowed, suggestion=closest(name, allowed))
    if spec.resources.per_trial.is_gang:
        raise SpecError("resources.per_trial", "a DARTS trial trains its supernet in one process",
                        value=spec.resources.per_trial.describe(), allowed="one worker per trial: leave out "
                        "workers and procs_per_worker (give it a GPU with per_trial: {gpu: 1})")
    if given is None or not callable(given):
        raise SpecError("nas", "needs the function that returns the training and validation data",
                        allowed="hpnb.search(data_function, spec), or %%hpsearch data_function")
    if not names:
        spec = parse_spec({**spec.to_dict(), "parameters": {"seed": dict(SEED_PARAMETER)}})
    return spec, DartsTrial(section, given)


def _check_goal(spec: ExperimentSpec) -> None:
    for objective in spec.objectives:
        if objective.name not in REPORTED:
            raise SpecError("metric", "is not a metric a DARTS trial reports", value=objective.name,
                            allowed=REPORTED, suggestion=closest(objective.name, REPORTED))
        wanted = "max" if objective.name.endswith("Accuracy") else "min"
        if objective.mode != wanted:
            raise SpecError("mode", f"{objective.name} is better {'higher' if wanted == 'max' else 'lower'}",
                            value=objective.mode, allowed=f"mode: {wanted}")
