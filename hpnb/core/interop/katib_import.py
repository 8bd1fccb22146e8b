"""A Katib v1beta1 Experiment as an hpnb spec.

:func:`import_katib` reads the YAML text of a Katib ``Experiment``
(``apiVersion: kubeflow.org/v1beta1``) safely, with the line of every field,
and returns a :class:`KatibImport`: the validated :class:`ExperimentSpec`, the
same spec as plain data (what ``hpnb import katib`` writes) and the
:class:`~hpnb.core.interop.katib_format.Note` list of everything that does not
carry over exactly (the trial template, metrics collectors, the goal, ...). Of a
trial template that runs a PyTorchJob, the workers, processes per worker and each
worker's resources are read into ``resources.per_trial``. A
file that is not such an Experiment, or a field hpnb cannot read, is one
:class:`SpecError` naming the Katib field, the value, what is allowed and the line.

Example:
    >>> result = import_katib('''
    ... apiVersion: kubeflow.org/v1beta1
    ... kind: Experiment
    ... metadata: {name: random-example}
    ... spec:
    ...   objective: {type: maximize, objectiveMetricName: accuracy, goal: 0.99}
    ...   algorithm: {algorithmName: random}
    ...   maxTrialCount: 12
    ...   parameters:
    ...     - {name: lr, parameterType: double, feasibleSpace: {min: "0.01", max: "0.03"}}
    ... ''')
    >>> result.spec.mode, result.spec.strategy.name, result.spec.trials
    ('max', 'random', 12)
    >>> [str(note) for note in result.notes]  # doctest: +ELLIPSIS
    ['spec.objective.goal [line 6]: 0.99: ...']
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import yaml

from hpnb.core.errors import SpecError
from hpnb.core.interop.katib_algorithms import AlgorithmReader, refuse_enas
from hpnb.core.interop.katib_format import (
    API_VERSION,
    CONSTRAINTS_ANNOTATION,
    KIND,
    OBJECTIVE_TYPES,
    OBJECTIVES_ANNOTATION,
    Note,
    describe,
    read_settings,
)
from hpnb.core.interop.katib_nas import (
    GENOTYPE_METRIC,
    NAS_METRIC,
    is_darts,
    read_darts_settings,
    read_nas_config,
)
from hpnb.core.interop.katib_parameters import compact_parameter, parameters_from_katib
from hpnb.core.interop.katib_pytorchjob import is_pytorchjob, read_pytorchjob
from hpnb.core.spec.experiment import ExperimentSpec, parse_spec
from hpnb.core.spec.parameters import check_parameter_sizes
from hpnb.core.spec.values import as_mapping, as_text, check_keys, choose, experiment_name_problem
from hpnb.core.spec.yaml_lines import LineTable, load_yaml

#: fields of an Experiment's ``spec`` that hpnb reads; the others are reported.
_READ_FIELDS = ("objective", "algorithm", "parameters", "parallelTrialCount", "maxTrialCount",
                "maxFailedTrialCount", "earlyStopping", "trialTemplate")
#: what the report says of the fields of ``spec`` that hpnb does not read.
_NOT_READ = {
    "metricsCollectorSpec": "not carried: trials report their metrics with hpnb.report or return them",
    "nasConfig": "not carried: an architecture space is searched with algorithmName: darts",
    "resumePolicy": "not carried: every hpnb search can be resumed from its store (hpnb resume NAME)",
}
_ORDER = ("name", "metric", "mode", "metrics", "constraints", "strategy", "trials", "parallel", "seed",
          "max_failures", "parameters", "early_stopping", "resources", "nas")
#: the fields a darts Experiment has besides the others, read (or noted) by ``_Reader._darts``.
_DARTS_FIELDS = ("nasConfig", "metricsCollectorSpec", "parameters", "trialTemplate")
#: what the report says of a trial template that is not a PyTorchJob.
_TEMPLATE_NOT_READ = "not carried: hpnb runs a Python function of the notebook, not a container"


@dataclass(frozen=True)
class KatibImport:
    """The spec read from a Katib Experiment and what did not carry over."""

    spec: ExperimentSpec
    #: the spec as plain data, in the order it is written; ``parse_spec(data) == spec``.
    data: dict[str, Any]
    notes: tuple[Note, ...]

    def to_yaml(self) -> str:
        """The spec as YAML text (parameters and options one per line, in flow style)."""
        return yaml.safe_dump(self.data, sort_keys=False, default_flow_style=None, allow_unicode=True,
                              width=100)


def import_katib(text: str) -> KatibImport:
    """Read the YAML text of a Katib v1beta1 Experiment as a spec.

    Raises:
        SpecError: the text is not YAML, not a mapping, not a Katib v1beta1 Experiment, or a
            field cannot be read; the error names the Katib field and its line.
    """
    lines = LineTable()
    try:
        document, lines = load_yaml(text)
        reader = _Reader()
        data = reader.read(_experiment(document, text))
        spec = reader.validate(data)
    except SpecError as err:
        raise err.with_line(lines.find(err.path)) from None
    found = [Note(note.field, note.text, lines.find(note.field)) for note in reader.notes]
    notes = tuple(sorted(found, key=lambda note: (note.line is None, note.line or 0)))
    return KatibImport(spec, data, notes)


def _first_line(text: str) -> int | None:
    """The line of the first thing that is not blank, a comment or a document marker."""
    for number, line in enumerate(text.splitlines(), 1):
        stripped = line.strip()
        if stripped and not stripped.startswith("#") and stripped not in ("---", "..."):
            return number
    return None


def _experiment(document: Any, text: str) -> Mapping[str, Any]:
    """The document when it is a Katib v1beta1 Experiment, else the one error that says why."""
    allowed = f"a Katib Experiment: a mapping with apiVersion: {API_VERSION} and kind: {KIND}"
    if document is None:
        raise SpecError("", "the file is empty", allowed=allowed)
    if not isinstance(document, Mapping):
        raise SpecError("", f"is not a Katib Experiment: the YAML document is a "
                            f"{'list' if isinstance(document, list) else type(document).__name__}, "
                            "not a mapping", value=document, allowed=allowed, line=_first_line(text))
    if "kind" not in document:
        raise SpecError("kind", "is missing: this is not a Katib Experiment", allowed=f"kind: {KIND}",
                        line=_first_line(text))
    if document["kind"] != KIND:
        raise SpecError("kind", "is not a Katib Experiment", value=document["kind"], allowed=KIND)
    if "apiVersion" not in document:
        raise SpecError("apiVersion", "is missing", allowed=API_VERSION, line=_first_line(text))
    if document["apiVersion"] != API_VERSION:
        raise SpecError("apiVersion", "is not a Katib version hpnb reads", value=document["apiVersion"],
                        allowed=API_VERSION)
    if "spec" not in document:
        raise SpecError("spec", "is missing: the Experiment says nothing to search",
                        allowed="spec: {objective, algorithm, parameters, ...}", line=_first_line(text))
    return document


class _Reader:
    """Reads one Experiment into spec data, collecting notes and where each spec field came from."""

    def __init__(self) -> None:
        self.notes: list[Note] = []
        #: spec path -> the Katib path it was read from (to name Katib fields in errors).
        self.origin: dict[str, str] = {}
        #: the objectives the hpnb annotation names (metric -> Katib objective type), if any.
        self.annotated_objectives: dict[str, str] = {}
        #: the constraints the hpnb annotation keeps (Katib has none), if any.
        self.annotated_constraints: Any = None

    def note(self, field: str, text: str) -> None:
        self.notes.append(Note(field, text))

    def read(self, document: Mapping[str, Any]) -> dict[str, Any]:
        out: dict[str, Any] = {}
        self._metadata(document.get("metadata"), out)
        if self.annotated_constraints is not None:
            out["constraints"] = self.annotated_constraints
        for key in document:
            if key == "status":
                self.note("status", "not carried: the state of a Katib run")
            elif key not in ("apiVersion", "kind", "metadata", "spec"):
                self.note(key, "not carried: not a field of a Katib Experiment")
        spec = as_mapping(document["spec"], "spec",
                          allowed="a mapping of objective, algorithm, parameters, ...")
        self._objective(spec.get("objective"), out)
        algorithm = AlgorithmReader(self.notes, self.origin)
        darts = is_darts(spec.get("algorithm"))
        refuse_enas(spec.get("algorithm"))
        if darts:
            self._darts(spec, out)
        else:
            check_parameter_sizes(spec.get("parameters"), "spec.parameters")  # counts before any is read
            parameters = parameters_from_katib(spec.get("parameters"), "spec.parameters", self.notes)
            algorithm.read(spec.get("algorithm"), parameters, out)
        self._counts(spec, out, counts_trials=algorithm.counts_trials)
        algorithm.read_early_stopping(spec.get("earlyStopping"), out)
        if not darts:
            out["parameters"] = {p.name: compact_parameter(p) for p in algorithm.parameters}
            self._trial_template(spec.get("trialTemplate"), out)
        for index, parameter in enumerate(spec.get("parameters") or []):
            if isinstance(parameter, Mapping) and isinstance(parameter.get("name"), str):
                self.origin[f"parameters.{parameter['name']}"] = f"spec.parameters[{index}].feasibleSpace"
        for key in spec:
            if key not in _READ_FIELDS and not (darts and key in _DARTS_FIELDS):
                self.note(f"spec.{key}", _NOT_READ.get(key, "not carried: a field hpnb does not know"))
        return {key: out[key] for key in _ORDER if key in out}

    def _darts(self, spec: Mapping[str, Any], out: dict[str, Any]) -> None:
        """A darts Experiment: its settings and nasConfig as the ``nas:`` section; its genotype metric
        as the validation accuracy each trial reports."""
        path = "spec.algorithm"
        algorithm = as_mapping(spec["algorithm"], path)
        check_keys(algorithm, path, ("algorithmName", "algorithmSettings"))
        settings = read_settings(algorithm.get("algorithmSettings"), f"{path}.algorithmSettings")
        section = read_nas_config(spec.get("nasConfig"), "spec.nasConfig", self.notes)
        darts = read_darts_settings(settings, self.notes)
        if darts:
            section["darts"] = darts
        out["nas"] = section
        self.origin.update({"nas": "spec.nasConfig", "nas.layers": "spec.nasConfig.graphConfig.numLayers",
                            "nas.darts": f"{path}.algorithmSettings"})
        if out.get("metric") == GENOTYPE_METRIC:
            out["metric"], out["mode"] = NAS_METRIC, "max"
            self.note("spec.objective.objectiveMetricName",
                      f"{GENOTYPE_METRIC} is Katib's text of a genotype: hpnb optimises {NAS_METRIC} and "
                      "keeps each trial's genotype, that of its best epoch, in its artifact nas/genotype.txt")
        if spec.get("parameters"):
            self.note("spec.parameters", "not carried: a darts Experiment's trials take its settings")
        if spec.get("metricsCollectorSpec") is not None:
            self.note("spec.metricsCollectorSpec", "not carried: hpnb's DARTS trials report their metrics "
                                                   "each epoch")
        if spec.get("trialTemplate") is not None:
            self.note("spec.trialTemplate", "not carried: hpnb trains the supernet itself, on the data the "
                                            "function you name returns (Katib's image trains on CIFAR-10)")

    def validate(self, data: dict[str, Any]) -> ExperimentSpec:
        """``parse_spec(data)``, its errors naming the Katib field each spec field came from."""
        try:
            return parse_spec(data)
        except SpecError as err:
            raise SpecError(self._katib_path(err.path), err.problem, value=err.value, allowed=err.allowed,
                            suggestion=err.suggestion) from None

    def _katib_path(self, path: str) -> str:
        parts = path.split(".")
        for end in range(len(parts), 0, -1):
            known = self.origin.get(".".join(parts[:end]))
            if known is not None:
                return ".".join([known, *parts[end:]])
        return path

    def _metadata(self, value: Any, out: dict[str, Any]) -> None:
        if value is None:
            return
        metadata = as_mapping(value, "metadata")
        for key, item in metadata.items():
            if key == "name":
                problem = experiment_name_problem(item)
                if problem is None:
                    out["name"], self.origin["name"] = item, "metadata.name"
                else:
                    self.note("metadata.name", f"{describe(item)} not carried: as an hpnb name it {problem}")
            elif key == "namespace":
                self.note("metadata.namespace", f"{describe(item)} not carried: a search runs where its "
                                                "resources: say")
            elif key == "annotations":
                self._annotations(item)
            else:
                self.note(f"metadata.{key}", "not carried: Kubernetes metadata")

    def _annotations(self, value: Any) -> None:
        for key, item in as_mapping(value, "metadata.annotations").items():
            field = f"metadata.annotations.{key}"
            if key == CONSTRAINTS_ANNOTATION:
                self._constraints_annotation(field, item)
                continue
            if key != OBJECTIVES_ANNOTATION:
                self.note(field, "not carried: Kubernetes metadata")
                continue
            try:
                modes = json.loads(item) if isinstance(item, str) else None
            except ValueError:
                modes = None
            if not (isinstance(modes, dict) and all(m in ("min", "max") for m in modes.values())):
                raise SpecError(field, "is not a JSON mapping of metric to mode", value=item,
                                allowed='{"val_loss": "min", "latency_ms": "min"}')
            self.annotated_objectives = modes
            self.origin["metrics"] = field

    def _constraints_annotation(self, field: str, item: Any) -> None:
        """The constraints an hpnb export kept; the spec parser checks them (errors name the field)."""
        try:
            constraints = json.loads(item) if isinstance(item, str) else None
        except ValueError:
            constraints = None
        if not isinstance(constraints, dict):
            raise SpecError(field, "is not a JSON mapping of metric to its bounds", value=item,
                            allowed='{"latency_ms": {"max": 20}}')
        self.annotated_constraints = constraints
        self.origin["constraints"] = field
        self.note(field, "constraints: Katib ignored them; hpnb applies them to every trial")

    def _several_objectives(self, metric: str, mode: str, additional: Any, out: dict[str, Any]) -> bool:
        """The objective and the additional metrics the annotation names as objectives, if any."""
        listed = additional if isinstance(additional, list) else []
        named = [m for m in listed if m in self.annotated_objectives]
        if not named:
            return False
        out.pop("metric"), out.pop("mode")
        out["metrics"] = {metric: mode, **{m: self.annotated_objectives[m] for m in named}}
        rest = [m for m in listed if m not in named]
        self.note("spec.objective.additionalMetricNames",
                  f"{', '.join(named)}: objectives as the annotation {OBJECTIVES_ANNOTATION} says"
                  + (f"; {describe(rest)} recorded, as hpnb records every metric a trial reports" if rest
                     else ""))
        return True

    def _objective(self, value: Any, out: dict[str, Any]) -> None:
        path = "spec.objective"
        if value is None:
            raise SpecError(path, "is missing", allowed="objective: {type: minimize|maximize, "
                                                        "objectiveMetricName: NAME}")
        objective = as_mapping(value, path)
        if "type" not in objective:
            raise SpecError(f"{path}.type", "is missing", allowed=tuple(OBJECTIVE_TYPES))
        kind = choose(objective["type"], f"{path}.type", OBJECTIVE_TYPES, "objective type")
        metric = as_text(objective.get("objectiveMetricName"), f"{path}.objectiveMetricName",
                         allowed="the name of the metric to optimise")
        out["metric"], out["mode"] = metric, OBJECTIVE_TYPES[kind]
        self.origin.update({"metric": f"{path}.objectiveMetricName", "mode": f"{path}.type"})
        for key, item in objective.items():
            field = f"{path}.{key}"
            if key == "goal":
                self.note(field, f"{describe(item)}: hpnb has no target value; the search runs its whole "
                                 "budget (stop it from the dashboard, or give the spec a timeout)")
            elif key == "additionalMetricNames":
                if not self._several_objectives(metric, out["mode"], item, out):
                    self.note(field, f"{describe(item)}: metrics Katib records besides the objective; hpnb "
                                     "records every metric a trial reports, so nothing needs saying")
            elif key == "metricStrategies":
                self.note(field, "not carried: how Katib picks a trial's value from its reports; hpnb "
                                 "keeps a trial's final and best values")
            elif key not in ("type", "objectiveMetricName"):
                self.note(field, "not carried: a field hpnb does not know")

    def _trial_template(self, value: Any, out: dict[str, Any]) -> None:
        """A PyTorchJob template's workers, processes and per-worker resources; any other, a note."""
        if value is None:
            return
        path = "spec.trialTemplate"
        trial_spec = value.get("trialSpec") if isinstance(value, Mapping) else None
        if not is_pytorchjob(trial_spec):
            self.note(path, _TEMPLATE_NOT_READ)
            return
        job = f"{path}.trialSpec"
        per_trial = read_pytorchjob(trial_spec, job, self.notes)
        resources: dict[str, Any] = {"per_trial": per_trial}
        if per_trial.get("procs_per_worker", 1) > 1:  # each process of a worker runs in a thread of it
            resources["threads_per_worker"] = per_trial["procs_per_worker"]
        out["resources"] = resources
        replicas = f"{job}.spec.pytorchReplicaSpecs"
        self.origin.update({"resources.per_trial": f"{replicas}.Master.template.spec.containers[0]."
                                                   "resources.limits",
                            "resources.per_trial.workers": replicas,
                            "resources.per_trial.procs_per_worker": f"{job}.spec.nprocPerNode",
                            "resources.threads_per_worker": f"{job}.spec.nprocPerNode"})

    def _counts(self, spec: Mapping[str, Any], out: dict[str, Any], *, counts_trials: bool) -> None:
        for katib, ours in (("parallelTrialCount", "parallel"), ("maxTrialCount", "trials"),
                            ("maxFailedTrialCount", "max_failures")):
            if katib not in spec:
                continue
            if ours == "trials" and not counts_trials:
                self.note(f"spec.{katib}", f"{describe(spec[katib])} not carried: Katib counts every "
                                           "generation's trials; each hpnb pbt trial is one member of "
                                           "the population, trained to the end")
                continue
            out[ours], self.origin[ours] = spec[katib], f"spec.{katib}"
            if ours == "max_failures":
                self.note(f"spec.{katib}", "Katib counts every failed trial; hpnb ends a search after "
                                           "this many failures in a row")

