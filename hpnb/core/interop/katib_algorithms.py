"""Katib's ``algorithm`` and ``earlyStopping`` read as a strategy and an early-stopping rule.

=====================  ==========================================================
Katib                  hpnb
=====================  ==========================================================
random, grid, sobol    the strategy of the same name
tpe, multivariate-tpe  ``tpe`` (``multivariate: true`` for the second)
cmaes                  ``cmaes``
bayesianoptimization   ``tpe``, with a note (hpnb has no Gaussian-process strategy)
hyperband              ``random`` and the ``hyperband`` early-stopping rule
pbt                    ``pbt`` with its population, quantile and resampling
medianstop             the ``median`` early-stopping rule (``use: average``)
=====================  ==========================================================

``random_state`` is the seed of every algorithm. A setting hpnb has no option for is
reported, not dropped.

Example:
    >>> from hpnb.core.space import FloatParameter
    >>> notes, origin, out = [], {}, {}
    >>> reader = AlgorithmReader(notes, origin)
    >>> reader.read({"algorithmName": "multivariate-tpe",
    ...              "algorithmSettings": [{"name": "random_state", "value": "7"}]},
    ...             [FloatParameter("lr", low=0.1, high=1.0)], out)
    >>> out
    {'seed': 7, 'strategy': {'name': 'tpe', 'multivariate': True}}
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from hpnb.core.early_stopping.hyperband import largest_bracket
from hpnb.core.errors import SpecError
from hpnb.core.interop.katib_format import (
    ALGORITHMS,
    EARLY_STOPPING_ALGORITHMS,
    HYPERBAND_DEFAULT_ETA,
    MEDIANSTOP_DEFAULTS,
    NAS_ALGORITHMS,
    Note,
    Setting,
    describe,
    read_settings,
)
from hpnb.core.space import FixedParameter, Parameter
from hpnb.core.spec.values import as_float, as_int, as_mapping, check_keys, choose

#: Katib sampling algorithm -> (hpnb strategy, {Katib setting: hpnb option}); every option is an int.
SAMPLERS: dict[str, tuple[str, dict[str, str]]] = {
    "random": ("random", {}),
    "grid": ("grid", {}),
    "sobol": ("sobol", {}),
    "tpe": ("tpe", {"n_startup_trials": "n_startup_trials", "n_ei_candidates": "n_ei_candidates",
                    "n_EI_candidates": "n_ei_candidates"}),
    "multivariate-tpe": ("tpe", {"n_startup_trials": "n_startup_trials",
                                 "n_ei_candidates": "n_ei_candidates"}),
    "cmaes": ("cmaes", {}),
    "bayesianoptimization": ("tpe", {"n_initial_points": "n_startup_trials"}),
}
_SEED = "random_state"


def refuse_enas(algorithm: Any) -> None:
    """Katib's enas (a controller trained with its own trial image) is refused, naming darts."""
    name = algorithm.get("algorithmName") if isinstance(algorithm, Mapping) else None
    if name in NAS_ALGORITHMS and name != "darts":
        raise SpecError("spec.algorithm.algorithmName", "is Katib's controller of architectures, which hpnb "
                        "does not import: hpnb searches architectures with darts (its nas: section)",
                        value=name, allowed=(*ALGORITHMS, "darts"))


class AlgorithmReader:
    """Reads ``spec.algorithm`` and ``spec.earlyStopping`` into spec data."""

    def __init__(self, notes: list[Note], origin: dict[str, str]) -> None:
        self.notes = notes
        self.origin = origin
        self.parameters: list[Parameter] = []
        #: False when Katib's maxTrialCount does not mean hpnb's trials (pbt).
        self.counts_trials = True

    def _unused(self, settings: Mapping[str, Setting], algorithm: str) -> None:
        for setting in settings.values():
            self.notes.append(Note(setting.item, f"{setting.name}: {describe(setting.value)} "
                                   f"not carried: hpnb's {algorithm} has no such option"))

    def read(self, value: Any, parameters: list[Parameter], out: dict[str, Any]) -> None:
        """Set ``out["strategy"]`` (and ``seed``, and ``early_stopping`` for hyperband)."""
        path = "spec.algorithm"
        if value is None:
            raise SpecError(path, "is missing", allowed="algorithm: {algorithmName: NAME}; NAME one of "
                                                        + ", ".join(ALGORITHMS))
        algorithm = as_mapping(value, path)
        check_keys(algorithm, path, ("algorithmName", "algorithmSettings"))
        refuse_enas(algorithm)
        name = choose(algorithm.get("algorithmName"), f"{path}.algorithmName", ALGORITHMS, "Katib algorithm")
        settings = read_settings(algorithm.get("algorithmSettings"), f"{path}.algorithmSettings")
        self.parameters = list(parameters)
        self.origin["strategy"] = f"{path}.algorithmName"
        if _SEED in settings:
            seed = settings.pop(_SEED)
            out["seed"], self.origin["seed"] = as_int(seed.value, seed.path, minimum=0), seed.path
        if name == "hyperband":
            self._hyperband(settings, out)
        elif name == "pbt":
            self._pbt(settings, out)
        else:
            self._sampler(name, settings, out)

    def _option(self, options: dict[str, Any], setting: Setting, option: str, value: Any) -> None:
        options[option] = value
        self.origin[f"strategy.{option}"] = setting.path

    def _sampler(self, name: str, settings: dict[str, Setting], out: dict[str, Any]) -> None:
        strategy, known = SAMPLERS[name]
        options: dict[str, Any] = {"multivariate": True} if name == "multivariate-tpe" else {}
        if name == "bayesianoptimization":
            self.notes.append(Note("spec.algorithm.algorithmName", "bayesianoptimization is read as tpe: "
                                   "hpnb has no Gaussian-process strategy; TPE is its model-based one"))
        for key in [k for k in settings if k in known]:
            setting = settings.pop(key)
            self._option(options, setting, known[key], as_int(setting.value, setting.path, minimum=0))
        self._unused(settings, strategy)
        out["strategy"] = {"name": strategy, **options} if options else strategy

    def _hyperband(self, settings: dict[str, Setting], out: dict[str, Any]) -> None:
        path = "spec.algorithm.algorithmSettings"
        for required in ("r_l", "resource_name"):
            if required not in settings:
                raise SpecError(path, f"hyperband needs the setting {required}",
                                allowed="r_l (the most resource, e.g. epochs, a trial gets) and "
                                        "resource_name (the parameter that passes it)")
        r_l = settings.pop("r_l")
        budget = as_float(r_l.value, r_l.path)
        if budget < 1:
            raise SpecError(r_l.path, "must be at least 1 (a trial's largest budget, in steps)",
                            value=r_l.value, allowed="a number >= 1")
        max_t = math.floor(budget)
        if max_t != budget:
            self.notes.append(Note(r_l.item, f"{describe(r_l.value)}: hpnb counts whole steps: "
                                             f"max_t {max_t}"))
        eta = settings.pop("eta", None)
        reduction = HYPERBAND_DEFAULT_ETA if eta is None else as_int(eta.value, eta.path, minimum=2)
        resource = settings.pop("resource_name")
        self._fix_resource(resource, max_t)
        grace = max_t // reduction ** largest_bracket(1, reduction, max_t)
        out["strategy"] = "random"
        out["early_stopping"] = {"rule": "hyperband", "max_t": max_t, "grace": grace, "reduction": reduction}
        self.origin.update({"early_stopping": "spec.algorithm.algorithmName",
                            "early_stopping.max_t": r_l.path, "early_stopping.grace": r_l.path})
        if eta is not None:
            self.origin["early_stopping.reduction"] = eta.path
        self._unused(settings, "hyperband rule")

    def _fix_resource(self, resource: Setting, max_t: int) -> None:
        """Katib's hyperband gives each trial its budget through a parameter: hpnb fixes it at max_t."""
        names = [p.name for p in self.parameters]
        if resource.value not in names:
            raise SpecError(resource.path, "names no parameter of the Experiment", value=resource.value,
                            allowed=names)
        index = names.index(resource.value)
        self.parameters[index] = FixedParameter(resource.value, max_t)
        own = f"spec.parameters[{index}]"  # what was said of its feasible space no longer holds
        self.notes[:] = [note for note in self.notes if not note.field.startswith(own)]
        self.notes.append(Note(resource.item, f"the parameter {describe(resource.value)} is fixed at r_l = "
                                              f"{max_t}: every trial may run that many steps and hpnb's "
                                              "hyperband rule stops the poor ones at its rungs"))

    def _pbt(self, settings: dict[str, Setting], out: dict[str, Any]) -> None:
        self.counts_trials = False
        options: dict[str, Any] = {}
        if "n_population" in settings:
            setting = settings.pop("n_population")
            self._option(options, setting, "population", as_int(setting.value, setting.path, minimum=2))
        if "truncation_threshold" in settings:
            setting = settings.pop("truncation_threshold")
            self._option(options, setting, "quantile", as_float(setting.value, setting.path))
        if "resample_probability" in settings:
            setting = settings.pop("resample_probability")
            self._option(options, setting, "resample_probability", as_float(setting.value, setting.path))
            options["explore"] = "resample"
            self.notes.append(Note(setting.item, "Katib keeps a parameter it does not resample; hpnb's "
                                                 "resample explore perturbs it instead"))
        if "suggestion_trial_dir" in settings:
            setting = settings.pop("suggestion_trial_dir")
            self.notes.append(Note(setting.item, f"suggestion_trial_dir {describe(setting.value)} not "
                                                 "carried: hpnb keeps checkpoints in its store"))
        self._unused(settings, "pbt")
        out["strategy"] = {"name": "pbt", **options}

    def read_early_stopping(self, value: Any, out: dict[str, Any]) -> None:
        """Set ``out["early_stopping"]`` from Katib's ``earlyStopping`` (medianstop)."""
        path = "spec.earlyStopping"
        if value is None:
            return
        spec = as_mapping(value, path)
        check_keys(spec, path, ("algorithmName", "algorithmSettings"))
        choose(spec.get("algorithmName"), f"{path}.algorithmName", EARLY_STOPPING_ALGORITHMS,
               "Katib early-stopping algorithm")
        settings = read_settings(spec.get("algorithmSettings"), f"{path}.algorithmSettings")
        if "early_stopping" in out:
            self.notes.append(Note(path, "medianstop not carried: hpnb runs one early-stopping rule and "
                                         "hyperband's already stops trials"))
            return
        rule: dict[str, Any] = {"rule": "median"}
        for katib, ours in (("start_step", "grace"), ("min_trials_required", "min_trials")):
            setting = settings.pop(katib, None)
            rule[ours] = MEDIANSTOP_DEFAULTS[katib] if setting is None else \
                as_int(setting.value, setting.path, minimum=1)
            self.origin[f"early_stopping.{ours}"] = path if setting is None else setting.path
        rule["use"] = "average"
        out["early_stopping"], self.origin["early_stopping"] = rule, f"{path}.algorithmName"
        self.notes.append(Note(f"{path}.algorithmName", "medianstop compares a trial's average with the "
                               "finished trials' averages over their first start_step steps; hpnb's "
                               "median rule compares running averages at every step from start_step on"))
        self._unused(settings, "median rule")
