"""The search spec: what to vary, how to search, when to stop, where to run.

:func:`parse_spec` reads a spec written as YAML text (the body of a
``%%hpsearch`` cell) or as a Python dict and returns an immutable
:class:`ExperimentSpec`, or raises one :class:`SpecError` naming the field,
the value, what is allowed and the YAML line. See ``docs/spec.md``.

Example:
    >>> spec = parse_spec('''
    ... metric: val_loss
    ... strategy: grid
    ... parameters:
    ...   lr: [0.01, 0.1]
    ...   layers: {type: int, min: 1, max: 3}
    ... ''')
    >>> spec.mode, spec.strategy.name, spec.trials
    ('min', 'grid', 6)
    >>> parse_spec(spec.to_dict()) == spec
    True
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from hpnb.core.constraints import Constraint
from hpnb.core.constraints import to_dict as constraints_dict
from hpnb.core.early_stopping import STOPPING_RULES, stopping_rule_class
from hpnb.core.errors import SpecError, closest
from hpnb.core.frozen import FrozenDict, freeze, thaw
from hpnb.core.objectives import Objective
from hpnb.core.space import SearchSpace
from hpnb.core.spec.checkpoints import CheckpointsSpec, parse_checkpoints
from hpnb.core.spec.constraints import parse_constraints
from hpnb.core.spec.detach import parse_detach
from hpnb.core.spec.noise import parse_noise, strategy_options
from hpnb.core.spec.objectives import parse_objectives
from hpnb.core.spec.parameters import check_parameter_sizes, parse_parameters
from hpnb.core.spec.resources import Resources, parse_resources
from hpnb.core.spec.sections import SECTIONS, Section, parse_section
from hpnb.core.spec.tracking import TrackingSpec, parse_tracking
from hpnb.core.spec.values import (
    MAX_PARALLEL,
    MAX_RETRIES,
    MAX_SEED,
    MAX_TRIALS,
    as_int,
    as_mapping,
    as_optional_int,
    check_experiment_name,
    check_keys,
    choose,
    parse_optional_duration,
)
from hpnb.core.spec.warm_start import parse_enqueue, parse_warm_start
from hpnb.core.spec.yaml_lines import LineTable, load_yaml
from hpnb.core.strategies import STRATEGIES, strategy_class

#: every top-level key, canonical names first, then synonyms from Legion and Katib.
TOP_LEVEL_KEYS = ("name", "metric", "mode", "metrics", "strategy", "trials", "parallel", "seed", "parameters",
                  "early_stopping", "resources", "max_failures", "retries", "timeout", "trial_timeout",
                  "enqueue", "warm_start", "checkpoints", "constraints", "noise", "detach", "tracking",
                  *SECTIONS)
SYNONYMS: dict[str, str] = {"countOfSelections": "trials", "maxTrialCount": "trials",
                            "parallelTrialCount": "parallel", "maxFailedTrialCount": "max_failures"}
#: the budget of a sampling strategy when ``trials`` is not given.
DEFAULT_TRIALS = 20
DEFAULT_STRATEGY = "auto"


def described(name: str, options: Mapping[str, Any]) -> str:
    """``name (option=value, ...)``, or the name alone without options.

    Example:
        >>> described("asha", {"grace": 2})
        'asha (grace=2)'
    """
    shown = ", ".join(f"{key}={value!r}" for key, value in thaw(options).items())
    return f"{name} ({shown})" if shown else name


@dataclass(frozen=True)
class StrategySpec:
    """``strategy: NAME`` or ``strategy: {name: NAME, option: value, ...}``."""

    name: str
    options: Mapping[str, Any] = field(default_factory=FrozenDict)

    def describe(self) -> str:
        return described(self.name, self.options)


@dataclass(frozen=True)
class EarlyStoppingSpec:
    """``early_stopping: RULE`` or ``early_stopping: {rule: RULE, option: value, ...}``."""

    rule: str = "none"
    options: Mapping[str, Any] = field(default_factory=FrozenDict)

    def describe(self) -> str:
        return described(self.rule, self.options)


@dataclass(frozen=True)
class ExperimentSpec:
    """A validated search spec; :meth:`to_dict` and :func:`parse_spec` round-trip it."""

    metric: str
    mode: Literal["min", "max"]
    strategy: StrategySpec
    trials: int
    parallel: int | None
    seed: int | None
    space: SearchSpace
    early_stopping: EarlyStoppingSpec
    resources: Resources
    max_failures: int = 5
    retries: int = 2
    name: str | None = None
    #: the longest the whole search may run, in seconds (None: no limit).
    timeout: float | None = None
    #: the longest one trial may run, in seconds (None: no limit).
    trial_timeout: float | None = None
    #: what the search optimises: ``metric`` and ``mode`` first, then any others (``metrics:``).
    objectives: tuple[Objective, ...] = ()
    #: configurations to run first, in order (``enqueue:``; frozen mappings).
    enqueue: tuple[Mapping[str, Any], ...] = ()
    #: the stored search whose completed trials the strategy learns first (``warm_start: {from: NAME}``).
    warm_start: str | None = None
    #: where trials keep their checkpoints and artifacts (``checkpoints: {store: URL, keep: N}``).
    checkpoints: CheckpointsSpec = field(default_factory=CheckpointsSpec)
    #: bounds on reported metrics a trial must satisfy to be feasible (``constraints:``).
    constraints: tuple[Constraint, ...] = ()
    #: the metric is noisy (``noise: true``), not (``false``), or None: found out
    #: (:mod:`hpnb.core.spec.noise`).
    noise: bool | None = None
    #: where the driver runs: None (the starting process), "process" or "cluster"
    #: (:mod:`hpnb.core.spec.detach`).
    detach: str | None = None
    #: where else the search is recorded while it runs (``tracking:``: MLflow, TensorBoard).
    tracking: TrackingSpec = field(default_factory=TrackingSpec)
    #: a built-in objective's section (``nas:`` or ``llm:``), as written: its room checks it and
    #: makes the objective (:mod:`hpnb.core.spec.sections`); None when the user gives the objective.
    section: Section | None = None

    def __post_init__(self) -> None:
        if not self.objectives:
            object.__setattr__(self, "objectives", (Objective(self.metric, self.mode),))

    @property
    def is_multi_objective(self) -> bool:
        """Whether the search has several objectives (a Pareto front, not one best trial)."""
        return len(self.objectives) > 1

    @property
    def nas(self) -> dict[str, Any] | None:
        """The ``nas:`` section as written (a new dict), or None."""
        return self._section_fields("nas")

    @property
    def llm(self) -> dict[str, Any] | None:
        """The ``llm:`` section as written (a new dict), or None."""
        return self._section_fields("llm")

    def _section_fields(self, kind: str) -> dict[str, Any] | None:
        if self.section is None or self.section.kind != kind:
            return None
        return dict(thaw(self.section.fields))

    def to_dict(self) -> dict[str, Any]:
        """A JSON-serialisable dict that :func:`parse_spec` reads back to an equal spec."""
        goal: dict[str, Any] = ({"metrics": [o.to_dict() for o in self.objectives]} if self.is_multi_objective
                                else {"metric": self.metric, "mode": self.mode})
        return {
            "name": self.name,
            **goal,
            "strategy": {"name": self.strategy.name, **thaw(self.strategy.options)},
            "trials": self.trials,
            "parallel": self.parallel,
            "seed": self.seed,
            "parameters": self.space.to_dict(),
            "early_stopping": {"rule": self.early_stopping.rule, **thaw(self.early_stopping.options)},
            "resources": self.resources.to_dict(),
            "max_failures": self.max_failures,
            "retries": self.retries,
            "timeout": self.timeout,
            "trial_timeout": self.trial_timeout,
            **({"enqueue": thaw(self.enqueue)} if self.enqueue else {}),
            **({"warm_start": {"from": self.warm_start}} if self.warm_start else {}),
            **({"checkpoints": self.checkpoints.to_dict()} if self.checkpoints != CheckpointsSpec() else {}),
            **({"constraints": constraints_dict(self.constraints)} if self.constraints else {}),
            **({"noise": self.noise} if self.noise is not None else {}),
            **({"detach": self.detach} if self.detach is not None else {}),
            **({"tracking": self.tracking.to_dict()} if self.tracking.enabled else {}),
            **(self.section.to_dict() if self.section is not None else {}),
        }

    def strategy_options(self) -> dict[str, Any]:
        """The options the strategy is built with (``noise: true`` added where it models noise)."""
        cls = _load_class(strategy_class, self.strategy.name)
        return strategy_options(thaw(self.strategy.options), getattr(cls, "options", ()), self.noise)


def parse_spec(source: str | Mapping[str, Any], *,
               overrides: Mapping[str, Any] | None = None) -> ExperimentSpec:
    """Validate a spec (YAML text or a dict) into an :class:`ExperimentSpec`.

    Args:
        source: YAML text (line numbers in errors count from its first line) or a mapping.
        overrides: top-level keys that replace the spec's own (command-line options);
            None values are ignored.

    Raises:
        SpecError: for any invalid field; nothing else escapes.

    Example:
        >>> parse_spec({"metric": "acc", "mode": "max", "parameters": {"c": [1, 2]}},
        ...            overrides={"trials": 3}).trials
        3
    """
    lines = LineTable()
    try:
        if isinstance(source, str):
            data, lines = load_yaml(source)
            _check_sizes(data)
        elif isinstance(source, Mapping):
            _check_sizes(source)
            data = thaw(source)
        else:
            raise SpecError("", "a spec is YAML text or a mapping", value=type(source).__name__)
        return _build(_canonical(data, lines, overrides or {}), lines)
    except SpecError as err:
        raise err.with_line(lines.find(err.path)) from None
    except Exception as err:  # never let an internal error surface as a traceback
        raise SpecError("", f"the spec could not be read ({type(err).__name__}: {err})") from err


def _check_sizes(data: Any) -> None:
    """Refuse too many keys, parameters or values before any of them is read (cheap: counts only)."""
    if not isinstance(data, Mapping):
        return
    known = TOP_LEVEL_KEYS + tuple(SYNONYMS)
    if len(data) > len(known):
        check_keys(data, "", known)
    check_parameter_sizes(data.get("parameters"))


def _canonical(data: Any, lines: LineTable, overrides: Mapping[str, Any]) -> dict[str, Any]:
    """The top-level mapping with overrides applied and synonyms renamed."""
    if data is None:
        raise SpecError("", "the spec is empty", allowed="a mapping with at least metric: and parameters:")
    if not isinstance(data, Mapping):
        raise SpecError("", "the spec must be a mapping of fields (metric:, parameters:, ...)",
                        value=data, line=lines.find("0"))
    data = dict(as_mapping(data, ""))
    check_keys(data, "", TOP_LEVEL_KEYS + tuple(SYNONYMS))
    for key, value in overrides.items():
        if value is None:
            continue
        check_keys({key: value}, "", TOP_LEVEL_KEYS)
        for name in [k for k in data if SYNONYMS.get(k, k) == key]:
            del data[name]
            lines.drop(name)
        data[key] = value
    for synonym, key in SYNONYMS.items():
        if synonym in data:
            if key in data:
                raise SpecError(synonym, f"give either {key} or {synonym}, not both", value=data[synonym])
            data[key] = data.pop(synonym)
            lines.alias(synonym, key)
    return data


def _build(data: Mapping[str, Any], lines: LineTable) -> ExperimentSpec:
    objectives = parse_objectives(data)
    metric, mode = objectives[0].name, objectives[0].mode
    seed = as_optional_int(data.get("seed"), "seed", minimum=0, maximum=MAX_SEED)
    explicit_trials = as_optional_int(data.get("trials"), "trials", minimum=1, maximum=MAX_TRIALS)
    space = parse_parameters(data.get("parameters"), lines)
    strategy = _parse_strategy(data.get("strategy", DEFAULT_STRATEGY))
    noise = parse_noise(data.get("noise"))
    size = _check_strategy(strategy, space, objectives, seed, explicit_trials, noise)
    enqueue = parse_enqueue(data.get("enqueue"), space)
    return ExperimentSpec(
        metric=metric,
        mode=mode,
        objectives=objectives,
        enqueue=freeze(enqueue),
        warm_start=parse_warm_start(data.get("warm_start"), strategy.name),
        strategy=strategy,
        trials=_budget(explicit_trials, size, strategy, len(enqueue)),
        parallel=as_optional_int(data.get("parallel"), "parallel", minimum=1, maximum=MAX_PARALLEL),
        seed=seed,
        space=space,
        early_stopping=_paired(strategy, _parse_early_stopping(data.get("early_stopping"), mode), mode),
        resources=parse_resources(data.get("resources"), space=space),
        max_failures=as_int(data.get("max_failures", 5), "max_failures", minimum=0, maximum=MAX_TRIALS),
        retries=as_int(data.get("retries", 2), "retries", minimum=0, maximum=MAX_RETRIES),
        name=None if data.get("name") is None else check_experiment_name(data["name"]),
        timeout=parse_optional_duration(data.get("timeout"), "timeout"),
        trial_timeout=parse_optional_duration(data.get("trial_timeout"), "trial_timeout"),
        checkpoints=parse_checkpoints(data.get("checkpoints")),
        constraints=parse_constraints(data.get("constraints")),
        noise=noise,
        detach=parse_detach(data.get("detach")),
        tracking=parse_tracking(data.get("tracking")),
        section=parse_section(data),
    )


def _budget(explicit: int | None, size: int | None, strategy: StrategySpec, enqueued: int) -> int:
    """``trials``: as given (at least the enqueued configurations), else the strategy's own budget
    and, for a strategy that runs them besides its own (all but pbt), the enqueued ones."""
    cls = _load_class(strategy_class, strategy.name)
    extra = cls is None or bool(getattr(cls, "enqueued_are_extra", True))
    if not extra and size is not None and enqueued > size:
        raise SpecError("enqueue", f"has {enqueued} configurations, more than the {size} trials the "
                        f"{strategy.name} strategy runs", allowed=f"at most {size} configurations")
    if explicit is not None:
        if explicit < enqueued:
            raise SpecError("trials", f"is fewer than the {enqueued} configurations of enqueue",
                            value=explicit, allowed=f"trials: at least {enqueued}")
        return explicit
    own = _check_size(size, strategy) or DEFAULT_TRIALS
    return min(MAX_TRIALS, own + enqueued) if extra else own


def _check_size(size: int | None, strategy: StrategySpec) -> int | None:
    """The number of configurations of a finite strategy, refused above MAX_TRIALS."""
    if size is not None and size > MAX_TRIALS:
        raise SpecError("trials", f"the {strategy.name} search has {size:,} configurations, more than "
                        f"the limit of {MAX_TRIALS:,} trials (MAX_TRIALS)",
                        allowed=f"trials: at most {MAX_TRIALS:,}, or fewer values per parameter")
    return size


def _split_named(value: Any, path: str, key: str, what: str) -> tuple[Any, dict[str, Any]]:
    """``NAME`` or ``{key: NAME, **options}`` as (name, options)."""
    if isinstance(value, Mapping):
        value = as_mapping(value, path)
        if key not in value:
            raise SpecError(f"{path}.{key}", f"is missing: name the {what}",
                            allowed=f"{{{key}: ..., options}}")
        return value[key], {k: v for k, v in value.items() if k != key}
    return value, {}


def _load_class(lookup: Callable[[str], type], name: str) -> type | None:
    """The implementing class, or None while its module is not importable."""
    try:
        return lookup(name)
    except (ImportError, AttributeError):
        return None


def _check_options(cls: type | None, options: Mapping[str, Any], path: str, what: str) -> None:
    if cls is None:
        return
    allowed: tuple[str, ...] = tuple(getattr(cls, "options", ()))
    for key in options:
        if key not in allowed:
            raise SpecError(f"{path}.{key}", f"is not an option of {what}", value=key,
                            allowed=allowed or "no options", suggestion=closest(key, allowed))


def _parse_strategy(value: Any) -> StrategySpec:
    name, options = _split_named(value, "strategy", "name", "strategy")
    path = "strategy.name" if options or isinstance(value, Mapping) else "strategy"
    if isinstance(name, str) and name.startswith("default/"):  # Legion's namespaced names
        name = name[len("default/"):]
    name = choose(name, path, STRATEGIES, "strategy")
    _check_options(_load_class(strategy_class, name), options, "strategy", f"the {name} strategy")
    return StrategySpec(name, freeze(options))


def _check_strategy(strategy: StrategySpec, space: SearchSpace, objectives: tuple[Objective, ...],
                    seed: int | None, trials: int | None, noise: bool | None = None) -> int | None:
    """Build the strategy once so it checks its options against the space and the objectives;
    its size or None."""
    cls = _load_class(strategy_class, strategy.name)
    if cls is None:
        return space.grid_size() if strategy.name == "grid" else None
    modes = tuple(o.mode for o in objectives)
    options = strategy_options(thaw(strategy.options), getattr(cls, "options", ()), noise)
    instance = cls(space, modes[0] if len(modes) == 1 else modes, seed, trials, **options)
    return instance.max_trials()


def _paired(strategy: StrategySpec, early_stopping: EarlyStoppingSpec, mode: Any) -> EarlyStoppingSpec:
    """The early stopping of a multi-fidelity strategy (``pairs_with``): the first rule it pairs with
    (keeping ``max_t``) when the spec names none, else one of them."""
    pairs: tuple[str, ...] = tuple(getattr(_load_class(strategy_class, strategy.name), "pairs_with", ()))
    if not pairs or early_stopping.rule in pairs:
        return early_stopping
    if early_stopping.rule != "none":
        raise SpecError("early_stopping", f"the {strategy.name} strategy models the results at the rungs of "
                        "a bracketed rule", value=early_stopping.rule, allowed=", ".join(pairs))
    paired = EarlyStoppingSpec(pairs[0], early_stopping.options)
    stopping_rule_class(paired.rule)(mode, **thaw(paired.options))
    return paired


def _parse_early_stopping(value: Any, mode: str) -> EarlyStoppingSpec:
    if value is None or value is False:
        return EarlyStoppingSpec()
    rule, options = _split_named(value, "early_stopping", "rule", "early-stopping rule")
    path = "early_stopping.rule" if isinstance(value, Mapping) else "early_stopping"
    rule = choose(rule, path, STOPPING_RULES, "early-stopping rule")
    cls = _load_class(stopping_rule_class, rule)
    _check_options(cls, options, "early_stopping", f"the {rule} rule")
    if cls is not None:
        cls(mode, **thaw(options))
    return EarlyStoppingSpec(rule, freeze(options))
