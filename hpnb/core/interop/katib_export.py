"""A spec as a Katib v1beta1 Experiment.

:func:`export_katib` writes everything Katib can say: the objective, the
algorithm and its settings, the parameters, the trial counts, median stopping,
and, in a trial template whose image and command are placeholders marked
``FILL-IN``, the workers' resource requests and limits, the retries (the Job's
``backoffLimit``) and the trial timeout (its ``activeDeadlineSeconds``). A trial that
spans several workers or processes (``resources.per_trial.workers``,
``procs_per_worker``) is written as a PyTorchJob (:mod:`~hpnb.core.interop.katib_pytorchjob`). What
Katib cannot say is returned as :class:`~hpnb.core.interop.katib_format.Note`
items. The mapping is the inverse of :mod:`~hpnb.core.interop.katib_import`'s.

Example:
    >>> from hpnb.core.spec import parse_spec
    >>> spec = parse_spec("metric: loss\\nstrategy: grid\\nparameters:\\n  opt: [sgd, adam]")
    >>> result = export_katib(spec, name="opt_sweep")
    >>> result.document["metadata"], result.document["spec"]["algorithm"]
    ({'name': 'opt-sweep'}, {'algorithmName': 'grid'})
    >>> print(result.notes[0])  # doctest: +NORMALIZE_WHITESPACE
    metadata.name: 'opt_sweep' is written 'opt-sweep': Kubernetes names are lower case letters,
    digits, '-' and '.'
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import yaml

from hpnb.core.constraints import to_dict as constraints_dict
from hpnb.core.early_stopping.hyperband import largest_bracket
from hpnb.core.frozen import thaw
from hpnb.core.interop.katib_format import (
    API_VERSION,
    CONSTRAINTS_ANNOTATION,
    HYPERBAND_DEFAULT_ETA,
    KIND,
    OBJECTIVES_ANNOTATION,
    PLACEHOLDER_IMAGE,
    TRIAL_CONTAINER,
    Note,
    describe,
    settings_list,
)
from hpnb.core.interop.katib_nas import (
    GENOTYPE_METRIC,
    darts_algorithm,
    darts_trial_template,
    genotype_collector,
    nas_config,
)
from hpnb.core.interop.katib_parameters import parameter_to_katib
from hpnb.core.interop.katib_pytorchjob import CONTAINER as PYTORCH_CONTAINER
from hpnb.core.interop.katib_pytorchjob import (
    FAILURE_CONDITION,
    PRIMARY_POD_LABELS,
    SUCCESS_CONDITION,
    pytorchjob,
    worker_limits,
)
from hpnb.core.kubernetes_names import kubernetes_name
from hpnb.core.space import FixedParameter, Parameter
from hpnb.core.spec.experiment import ExperimentSpec
from hpnb.core.spec.resources import parse_resources
from hpnb.core.spec.trial_workers import worker_counts
from hpnb.core.strategies.auto_choice import choose

#: hpnb strategy -> Katib algorithm; the others are written as random.
_ALGORITHMS = {"random": "random", "grid": "grid", "sobol": "sobol", "tpe": "tpe", "cmaes": "cmaes",
               "pbt": "pbt", "gp": "bayesianoptimization"}
#: (hpnb strategy, option) -> Katib setting.
_SETTINGS = {("tpe", "n_ei_candidates"): "n_EI_candidates",
             ("multivariate-tpe", "n_ei_candidates"): "n_ei_candidates",
             ("multivariate-tpe", "n_startup_trials"): "n_startup_trials"}
#: Katib algorithms that take random_state.
_SEEDED = ("random", "grid", "sobol", "tpe", "multivariate-tpe", "cmaes")
#: the name of an Experiment written from a spec without one.
DEFAULT_NAME = "hpnb-search"
#: where Katib's pbt keeps checkpoints (its examples' path); the trial template must write there.
PBT_TRIAL_DIR = "/var/log/katib/checkpoints/"
_PLACEHOLDER_COMMENT = (
    "# FILL-IN: the trial template below is a placeholder. Replace the image and the command\n"
    "# with your training code: it gets each parameter as ${trialParameters.NAME} and must print\n"
    "# its metrics as NAME=VALUE lines (Katib's default StdOut metrics collector).\n"
)

DARTS_IMAGE_COMMENT = (
    "# The trial template below runs Katib's DARTS trial image, which trains on CIFAR-10 only:\n"
    "# for your own data, build an image that reads it and prints Best-Genotype=Genotype(...).\n"
)


@dataclass(frozen=True)
class KatibExport:
    """A Katib Experiment (plain data) and what it could not say."""

    document: dict[str, Any]
    notes: tuple[Note, ...]
    #: what the YAML says above the trial template.
    comment: str = _PLACEHOLDER_COMMENT

    def to_yaml(self) -> str:
        """The Experiment as YAML, the placeholder trial template marked with a comment."""
        text = yaml.safe_dump(self.document, sort_keys=False, default_flow_style=False, width=100)
        marker = "  trialTemplate:\n"
        head, _, tail = text.partition(marker)
        comment = "".join(f"  {line}\n" for line in self.comment.splitlines())
        return f"---\n{head}{comment}{marker}{tail}"


def export_katib(spec: ExperimentSpec, *, name: str | None = None, budget: int | None = None,
                 recorded_metrics: Sequence[str] = ()) -> KatibExport:
    """Write ``spec`` as a Katib v1beta1 Experiment.

    Args:
        spec: the search.
        name: the Experiment's name (default: the spec's, else :data:`DEFAULT_NAME`).
        budget: ``maxTrialCount`` (default: the spec's trials; a stored search may have been extended).
        recorded_metrics: metrics the trials reported besides the objective
            (``additionalMetricNames``).
    """
    writer = _Writer(spec)
    if not (name or spec.name):
        writer.note("metadata.name", f"a Katib Experiment needs a name: written {DEFAULT_NAME}")
    if spec.nas is not None:
        document = writer.darts_document(name or spec.name or DEFAULT_NAME, budget or spec.trials)
        return KatibExport(document, tuple(writer.notes), DARTS_IMAGE_COMMENT)
    document = writer.document(name or spec.name or DEFAULT_NAME, budget or spec.trials, recorded_metrics)
    return KatibExport(document, tuple(writer.notes))


class _Writer:
    def __init__(self, spec: ExperimentSpec) -> None:
        self.spec = spec
        self.notes: list[Note] = []
        self.parameters: list[Parameter] = list(spec.space)
        self.parallel = spec.parallel

    def note(self, field: str, text: str) -> None:
        self.notes.append(Note(field, text))

    def document(self, name: str, budget: int, recorded: Sequence[str]) -> dict[str, Any]:
        spec = self.spec
        written = kubernetes_name(name) or DEFAULT_NAME
        if written != name:
            self.note("metadata.name", f"{describe(name)} is written {describe(written)}: Kubernetes names "
                                       "are lower case letters, digits, '-' and '.'")
        objective: dict[str, Any] = {"type": "minimize" if spec.mode == "min" else "maximize",
                                     "objectiveMetricName": spec.metric}
        goals = [o.name for o in spec.objectives[1:]]
        metadata: dict[str, Any] = {"name": written}
        if goals:
            self.note("metrics", f"Katib optimises one objective: {spec.metric} is written as the objective, "
                                 f"{', '.join(goals)} as additional metrics (recorded, not optimised); "
                                 f"the annotation {OBJECTIVES_ANNOTATION} keeps them objectives for "
                                 "hpnb import katib")
            modes = {o.name: o.mode for o in spec.objectives}
            metadata["annotations"] = {OBJECTIVES_ANNOTATION: json.dumps(modes, separators=(",", ":"))}
        self._constraints(metadata)
        constrained = [c.metric for c in spec.constraints]
        others = goals + sorted((set(recorded) | set(constrained)) - {spec.metric, *goals})
        if others:
            objective["additionalMetricNames"] = others
        algorithm = self._algorithm()
        early_stopping = self._early_stopping(algorithm)
        body: dict[str, Any] = {"objective": objective, "algorithm": algorithm}
        if early_stopping:
            body["earlyStopping"] = early_stopping
        if self.parallel is not None:
            body["parallelTrialCount"] = self.parallel
        body["maxTrialCount"] = budget
        body["maxFailedTrialCount"] = spec.max_failures
        self.note("max_failures", "Katib counts every failed trial; hpnb counted failures in a row")
        if algorithm["algorithmName"] == "pbt":
            body["resumePolicy"] = "FromVolume"
            self.note("trials", f"Katib's pbt counts every generation's trial: maxTrialCount {budget} "
                                "allows about one generation; raise it for more")
        body["parameters"] = [parameter_to_katib(p, self.notes) for p in self.parameters]
        body["trialTemplate"] = self._trial_template()
        self._unsaid()
        return {"apiVersion": API_VERSION, "kind": KIND, "metadata": metadata, "spec": body}

    def darts_document(self, name: str, budget: int) -> dict[str, Any]:
        """A spec with a ``nas:`` section as Katib's darts Experiment (its example's shape)."""
        spec, nas = self.spec, self.spec.nas or {}
        written = kubernetes_name(name) or DEFAULT_NAME
        if written != name:
            self.note("metadata.name", f"{describe(name)} is written {describe(written)}: Kubernetes names "
                                       "are lower case letters, digits, '-' and '.'")
        self.note("metric", f"{spec.metric} is written as Katib's {GENOTYPE_METRIC}: its DARTS trial prints "
                            "the genotype of its best epoch")
        if len(spec.space):
            self.note("parameters", f"{', '.join(p.name for p in spec.space)} not carried: every trial of a "
                                    "Katib darts Experiment runs its algorithm settings")
        darts = dict(nas.get("darts") or {})
        if "nodes" in nas:
            darts.setdefault("num_nodes", nas["nodes"])
        body: dict[str, Any] = {"objective": {"type": "maximize", "objectiveMetricName": GENOTYPE_METRIC},
                                "metricsCollectorSpec": genotype_collector(),
                                "algorithm": darts_algorithm(darts, self.notes)}
        if self.parallel is not None:
            body["parallelTrialCount"] = self.parallel
        body.update({"maxTrialCount": budget, "maxFailedTrialCount": spec.max_failures,
                     "nasConfig": nas_config(nas), "trialTemplate": darts_trial_template()})
        self._unsaid()
        return {"apiVersion": API_VERSION, "kind": KIND, "metadata": {"name": written}, "spec": body}

    def _constraints(self, metadata: dict[str, Any]) -> None:
        """Katib has no constraints: the constrained metrics are recorded (additional metrics) and
        the constraints kept in an annotation for ``hpnb import katib``; said in a note."""
        constraints = self.spec.constraints
        if not constraints:
            return
        bounds = ", ".join(c.describe() for c in constraints)
        self.note("constraints", f"{bounds} not enforced: Katib has no constraints, its algorithms and its "
                                 "best trial ignore them; the metrics are written as additional metrics "
                                 f"(recorded) and the annotation {CONSTRAINTS_ANNOTATION} keeps the "
                                 "constraints for hpnb import katib")
        annotations = metadata.setdefault("annotations", {})
        annotations[CONSTRAINTS_ANNOTATION] = json.dumps(constraints_dict(constraints), separators=(",", ":"))

    # -- algorithm ------------------------------------------------------------------
    def _algorithm(self) -> dict[str, Any]:
        strategy, options = self.spec.strategy.name, dict(thaw(self.spec.strategy.options))
        if self.spec.early_stopping.rule == "hyperband" and strategy in ("random", "auto"):
            return self._hyperband()
        if strategy == "auto":
            choice = choose(self.spec.space, self.spec.trials, len(self.spec.objectives))
            self.note("strategy", f"auto written as the strategy it chooses ({choice.reason})")
            strategy = choice.name
        if strategy == "pbt":
            return self._pbt(options)
        name = _ALGORITHMS.get(strategy)
        if name is None:
            self.note("strategy", f"{strategy} has no Katib algorithm: written as random")
            name = "random"
        if name == "tpe" and options.pop("multivariate", False):
            name = "multivariate-tpe"
        settings: dict[str, Any] = {}
        for option, value in options.items():
            setting = _SETTINGS.get((name, option))
            if setting is None:
                self.note(f"strategy.{option}", f"{describe(value)} not carried: Katib's {name} has no "
                                                "such setting")
            else:
                settings[setting] = value
        return self._with_seed(name, settings)

    def _with_seed(self, name: str, settings: dict[str, Any]) -> dict[str, Any]:
        if self.spec.seed is not None:
            if name in _SEEDED:
                settings["random_state"] = self.spec.seed
            else:
                self.note("seed", f"{self.spec.seed} not carried: Katib's {name} takes no random_state")
        algorithm: dict[str, Any] = {"algorithmName": name}
        if settings:
            algorithm["algorithmSettings"] = settings_list(settings)
        return algorithm

    def _pbt(self, options: dict[str, Any]) -> dict[str, Any]:
        population = options.pop("population", self.spec.trials)
        settings: dict[str, Any] = {"suggestion_trial_dir": PBT_TRIAL_DIR, "n_population": population,
                                    "truncation_threshold": options.pop("quantile", 0.2)}
        if population < 5:
            self.note("strategy.population", f"{population}: Katib's pbt needs n_population >= 5")
        if options.get("explore") == "resample":
            options.pop("explore")
            settings["resample_probability"] = options.pop("resample_probability", 0.25)
        elif options.get("explore", "perturb") == "perturb":
            options.pop("explore", None)
            options.pop("resample_probability", None)  # unused by perturb
        self.note("strategy", f"suggestion_trial_dir is {PBT_TRIAL_DIR}: the trial template must keep its "
                              "checkpoints there")
        for option, value in options.items():
            self.note(f"strategy.{option}", f"{describe(value)} not carried: Katib's pbt has no such setting")
        return self._with_seed("pbt", settings)

    def _hyperband(self) -> dict[str, Any]:
        options = dict(thaw(self.spec.early_stopping.options))
        max_t, reduction = options.pop("max_t", None), options.pop("reduction", HYPERBAND_DEFAULT_ETA)
        if max_t is None:
            self.note("early_stopping", "hyperband without max_t not carried: Katib's hyperband needs r_l")
            return self._with_seed("random", {})
        grace = options.pop("grace", 1)
        if grace != max_t // reduction ** largest_bracket(1, reduction, max_t):
            self.note("early_stopping.grace", f"{grace} not carried: Katib derives the first rung from r_l "
                                              "and eta")
        for option, value in options.items():
            self.note(f"early_stopping.{option}", f"{describe(value)} not carried: Katib's hyperband has "
                                                  "no such setting")
        needed = reduction ** largest_bracket(1, reduction, max_t)
        if self.parallel is None or self.parallel < needed:
            self.note("parallel", f"{self.parallel}: Katib's hyperband needs parallelTrialCount >= "
                                  f"eta ** s_max = {needed}: written {needed}")
            self.parallel = needed
        settings = {"resource_name": self._resource(max_t), "eta": reduction, "r_l": max_t}
        return self._with_seed("hyperband", settings)

    def _resource(self, max_t: int) -> str:
        """The parameter that passes Katib's hyperband budget to a trial: a fixed max_t, else a new one."""
        for parameter in self.parameters:
            if isinstance(parameter, FixedParameter) and parameter.value == max_t \
                    and not isinstance(parameter.value, bool):
                return parameter.name
        taken = {p.name for p in self.parameters}
        name = next(n for n in ("max_t", "hyperband-max-t", "hpnb-hyperband-budget") if n not in taken)
        self.parameters.append(FixedParameter(name, max_t))
        self.note(f"parameters.{name}", f"added: Katib's hyperband passes each trial its budget ({max_t} "
                                        "steps at most) in a parameter")
        return name

    def _early_stopping(self, algorithm: dict[str, Any]) -> dict[str, Any] | None:
        rule, options = self.spec.early_stopping.rule, dict(thaw(self.spec.early_stopping.options))
        if rule == "hyperband" and algorithm["algorithmName"] == "hyperband":
            return None
        if rule == "median":
            settings = {"min_trials_required": options.pop("min_trials", 3),
                        "start_step": max(1, options.pop("grace", 1))}
            use = options.pop("use", "best")
            if use != "average":
                self.note("early_stopping.use", f"{describe(use)} not carried: Katib's medianstop compares "
                                                "averages")
            for option, value in options.items():
                self.note(f"early_stopping.{option}", f"{describe(value)} not carried: Katib's medianstop "
                                                      "has no such setting")
            return {"algorithmName": "medianstop", "algorithmSettings": settings_list(settings)}
        if rule == "hyperband":
            self.note("early_stopping", f"hyperband not carried: Katib runs hyperband as its own algorithm "
                                        f"(random sampling), and the strategy is {self.spec.strategy.name}")
        elif rule != "none":
            self.note("early_stopping", f"{rule} not carried: Katib's only early-stopping rule is medianstop")
        if "max_t" in options and rule != "hyperband":
            self.note("early_stopping.max_t", f"{options['max_t']} not carried: how long a trial runs is "
                                              "up to the trial template")
        return None

    # -- trial template ---------------------------------------------------------------
    def _trial_template(self) -> dict[str, Any]:
        names: dict[str, str] = {}  # parameter -> its name in ${trialParameters.NAME}: a plain word
        for parameter in self.parameters:
            base = re.sub(r"[^A-Za-z0-9_]+", "_", parameter.name).strip("_") or "parameter"
            name, count = base, 1
            while name in names.values():
                count += 1
                name = f"{base}{count}"
            names[parameter.name] = name
        arguments = [f"--{name}=${{trialParameters.{name}}}" for name in names.values()]
        parameters = [{"name": name, "description": f"the hpnb parameter {describe(original)}",
                       "reference": original} for original, name in names.items()]
        if self.spec.resources.per_trial.is_gang:
            return self._pytorchjob_template(arguments, parameters)
        container: dict[str, Any] = {
            "name": TRIAL_CONTAINER, "image": PLACEHOLDER_IMAGE,
            "command": ["python3", "FILL-IN/train.py", *arguments]}
        amounts = self.spec.resources.to_dict()
        kept = {key: amounts[key] for key in ("requests", "limits") if key in amounts}
        if kept:
            container["resources"] = kept
        job: dict[str, Any] = {"backoffLimit": self.spec.retries}
        if self.spec.trial_timeout is not None:
            job["activeDeadlineSeconds"] = math.ceil(self.spec.trial_timeout)
        job["template"] = {"spec": {"containers": [container], "restartPolicy": "Never"}}
        return {"primaryContainerName": TRIAL_CONTAINER, "trialParameters": parameters,
                "trialSpec": {"apiVersion": "batch/v1", "kind": "Job", "spec": job}}

    def _pytorchjob_template(self, arguments: list[str], parameters: list[dict[str, str]]) -> dict[str, Any]:
        """A trial of several workers or processes: a PyTorchJob whose Master is rank 0."""
        need, resources = self.spec.resources.per_trial, self.spec.resources
        workers = need.workers
        if need.workers_parameter is not None:
            counts = worker_counts(self.spec.space[need.workers_parameter])
            workers = counts[1] if counts else 1
            self.note("resources.per_trial.workers", f"{{parameter: {need.workers_parameter}}} not carried: "
                      f"a PyTorchJob's replicas are fixed; written as its largest value, {workers}")
        for key in ("requests", "limits"):
            if getattr(resources, key):
                self.note(f"resources.{key}", "not carried: each replica of the PyTorchJob holds what "
                                              "resources.per_trial gives a trial's worker")
        container: dict[str, Any] = {"name": PYTORCH_CONTAINER, "image": PLACEHOLDER_IMAGE,
                                     "command": ["torchrun", "FILL-IN/train.py", *arguments]}
        limits = worker_limits(need, self.notes)
        if limits:
            container["resources"] = {"limits": limits}
        job = pytorchjob(need, workers, container, retries=self.spec.retries,
                         timeout=self.spec.trial_timeout)
        return {"primaryContainerName": PYTORCH_CONTAINER, "primaryPodLabels": dict(PRIMARY_POD_LABELS),
                "successCondition": SUCCESS_CONDITION, "failureCondition": FAILURE_CONDITION,
                "trialParameters": parameters, "trialSpec": job}

    def _unsaid(self) -> None:
        """Notes for the spec's fields that Katib has no place for."""
        for condition in self.spec.space.conditions:
            self.note(f"parameters.{condition.parameter}.when", f"{condition.describe()} not carried: Katib "
                      "has no conditional parameters, so every trial gets this one")
        if self.spec.timeout is not None:
            self.note("timeout", f"{self.spec.timeout:g} s not carried: a Katib Experiment has no time limit")
        resources, default = self.spec.resources, parse_resources(None)
        for key in ("cluster", "workers", "threads_per_worker", "kubernetes", "adapt"):
            value = getattr(resources, key)
            if value != getattr(default, key) and not (key == "threads_per_worker"
                                                       and value == resources.per_trial.procs_per_worker):
                self.note(f"resources.{key}", f"{describe(thaw(value))} not carried: Katib runs each "
                                              "trial as its trial template says")
        if resources.per_trial and not resources.per_trial.is_gang:
            self.note("resources.per_trial", f"{resources.per_trial.describe()} not carried: the Job of "
                                             "the trial template holds resources.requests and limits")

