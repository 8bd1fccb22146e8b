"""What the store hands back: frozen records of experiments, trials and reported results."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, fields
from typing import Any

from hpnb.core.errors import SpecError
from hpnb.core.spec.values import check_experiment_name
from hpnb.core.store import codec
from hpnb.core.store.store_errors import InvalidName, StoreError
from hpnb.core.trial import ExperimentState, TrialState

MODES = ("min", "max")

def validate_name(name: object) -> str:
    """Return ``name`` if it is a valid experiment name, else raise :class:`InvalidName`.

    Example:
        >>> validate_name("mlp-lr.v2")
        'mlp-lr.v2'
    """
    try:
        return check_experiment_name(name, "experiment name")  # the one name rule of hpnb
    except SpecError as err:
        raise InvalidName(str(err)) from None


def validate_choice(value: object, allowed: tuple[str, ...], what: str) -> str:
    """``value`` as a plain string if it is one of ``allowed`` (enums accepted), else StoreError."""
    plain = getattr(value, "value", value)
    if plain not in allowed:
        raise StoreError(f"{what}: {value!r} is not allowed; allowed: {', '.join(allowed)}")
    return str(plain)


def validate_state(value: object, states: type[ExperimentState] | type[TrialState]) -> str:
    """``value`` as the stored name of one of ``states`` (a member or its name), else StoreError.

    Example:
        >>> validate_state(TrialState.PAUSED, TrialState) == TrialState.PAUSED.value
        True
    """
    return validate_choice(value, tuple(state.value for state in states), "state")


@dataclass(frozen=True)
class ExperimentRecord:
    """One search as stored."""

    id: int
    name: str
    spec: dict[str, Any]
    source: str | None
    state: str
    budget: int
    parallel: int | None
    metric: str
    mode: str
    strategy: str
    created: float
    updated: float
    message: str | None
    stop_requested: bool
    strategy_state: dict[str, Any] | None
    scheduler_state: dict[str, Any] | None
    driver: str | None
    #: when the driving process last said it was alive (epoch seconds), None if never
    heartbeat: float | None = None
    #: who started it, ``user@host`` (None for searches stored before owners were kept)
    owner: str | None = None


@dataclass(frozen=True)
class TrialRecord:
    """One trial as stored; ``value`` is its final target metric, ``best`` the best seen (by mode)."""

    experiment_id: int
    trial_id: int
    params: dict[str, Any]
    state: str
    start: float | None
    end: float | None
    worker: str | None
    error: str | None
    retries: int
    parent: int | None
    last_step: int | None
    value: float | None
    best: float | None
    metrics: dict[str, Any]
    checkpoint: str | None
    stop_reason: str | None
    checkpoint_step: int | None = None


@dataclass(frozen=True)
class ResultRow:
    """One report of a trial; ``seq`` numbers a trial's reports from 1, ``time`` is epoch seconds."""

    trial_id: int
    seq: int
    step: int | None
    time: float
    value: float | None
    metrics: dict[str, Any] = field(default_factory=dict)


# Column kinds: how a value is checked before it is bound to a placeholder.
_JSON, _REAL, _INT, _TEXT = "json", "real", "int", "text"

#: TrialRecord fields that update_trial may change -> (column, kind). Also the whitelist of columns.
TRIAL_COLUMNS: dict[str, tuple[str, str]] = {
    "params": ("params", _JSON),
    "state": ("state", _TEXT),
    "start": ("started", _REAL),
    "end": ("ended", _REAL),
    "worker": ("worker", _TEXT),
    "error": ("error", _TEXT),
    "retries": ("retries", _INT),
    "parent": ("parent", _INT),
    "last_step": ("last_step", _INT),
    "value": ("value", _REAL),
    "best": ("best", _REAL),
    "metrics": ("metrics", _JSON),
    "checkpoint": ("checkpoint", _TEXT),
    "checkpoint_step": ("checkpoint_step", _INT),
    "stop_reason": ("stop_reason", _TEXT),
}

#: ExperimentRecord fields that update_experiment may change -> (column, kind).
EXPERIMENT_COLUMNS: dict[str, tuple[str, str]] = {
    "state": ("state", _TEXT),
    "message": ("message", _TEXT),
    "budget": ("budget", _INT),
    "parallel": ("parallel", _INT),
    "driver": ("driver", _TEXT),
    "heartbeat": ("heartbeat", _REAL),
    "owner": ("owner", _TEXT),
    "strategy_state": ("strategy_state", _JSON),
    "scheduler_state": ("scheduler_state", _JSON),
}


def column_value(kind: str, value: Any, field_name: str) -> Any:
    """``value`` checked and converted for a column of ``kind``."""
    if kind == _JSON:
        return None if value is None else codec.dumps(value, field_name)
    if kind == _REAL:
        return codec.real(value, field_name)
    if kind == _INT:
        return codec.integer(value, field_name)
    return codec.text(value, field_name)


#: record fields stored as JSON text.
_JSON_FIELDS = frozenset({"spec", "strategy_state", "scheduler_state", "params", "metrics"})
#: TrialRecord fields whose column has another name.
_TRIAL_COLUMN_NAMES = {"start": "started", "end": "ended"}


def _select(record: type, table: str, renamed: dict[str, str]) -> str:
    """``SELECT`` of every field of ``record`` from ``table``."""
    return f"SELECT {', '.join(renamed.get(f.name, f.name) for f in fields(record))} FROM {table}"


def _decoders(record: type) -> tuple[tuple[str, bool], ...]:
    """Each field of ``record`` in order, and whether its column holds JSON (worked out once)."""
    return tuple((f.name, f.name in _JSON_FIELDS) for f in fields(record))


def _field_values(row: Sequence[Any], decoders: tuple[tuple[str, bool], ...]) -> dict[str, Any]:
    """The fields read from ``row`` (a row of a ``_select``, in field order), JSON decoded."""
    return {name: codec.loads(value) if is_json else value
            for (name, is_json), value in zip(decoders, row, strict=True)}


EXPERIMENT_SELECT = _select(ExperimentRecord, "experiments", {})
_EXPERIMENT_DECODERS = _decoders(ExperimentRecord)


def experiment_from_row(row: Sequence[Any]) -> ExperimentRecord:
    """The record of one row of :data:`EXPERIMENT_SELECT`."""
    values = _field_values(row, _EXPERIMENT_DECODERS)
    return ExperimentRecord(**values | {"stop_requested": bool(values["stop_requested"])})


TRIAL_SELECT = _select(TrialRecord, "trials", _TRIAL_COLUMN_NAMES)
_TRIAL_DECODERS = _decoders(TrialRecord)


def trial_from_row(row: Sequence[Any]) -> TrialRecord:
    """The record of one row of :data:`TRIAL_SELECT`."""
    return TrialRecord(**_field_values(row, _TRIAL_DECODERS))
