"""What the front door (:mod:`hpnb.builtin_objective`) calls for a spec with an ``llm:`` section:
:func:`prepare` checks it (:mod:`hpnb.llm.section_spec`), adds the search parameters it declares
and makes the objective.

Example:
    >>> from hpnb.core.spec import parse_spec
    >>> spec = parse_spec({"metric": "eval_loss", "llm": {"model": "./tiny", "dataset": "d.jsonl",
    ...                    "training": {"learning_rate": [0.001, 0.01]}}})
    >>> with_parameters(spec, parse_llm(spec.llm)).space.names
    ('learning_rate',)
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from hpnb.core.errors import SpecError
from hpnb.core.spec import ExperimentSpec, parse_spec
from hpnb.core.spec.parameters import parse_parameters
from hpnb.llm.searched_fields import check_no_clash
from hpnb.llm.section_spec import NOTEBOOK_SOURCE, LlmSection, parse_llm


def with_parameters(spec: ExperimentSpec, section: LlmSection) -> ExperimentSpec:
    """``spec`` with the section's parameters added; the same spec when it holds them already
    (a stored search's, on resume). SpecError when ``parameters:`` declares one differently."""
    declared = section.parameters()
    mine = {p.name: p for p in parse_parameters(declared, path="llm")}
    others = {p.name: p for p in spec.space.parameters if p.name not in mine or p != mine[p.name]}
    check_no_clash(section.training, section.lora, others)
    if all(name in {p.name for p in spec.space.parameters} for name in mine):
        return spec
    written = spec.to_dict()
    unbudgeted = {key: value for key, value in written.items() if key != "trials"}
    if parse_spec(unbudgeted).trials == spec.trials:  # a budget derived from the space (a grid's), not given
        written = unbudgeted
    return parse_spec({**written, "parameters": {**_written_parameters(written), **declared}})


def _written_parameters(written: Mapping[str, Any]) -> dict[str, Any]:
    given = written.get("parameters") or {}
    if isinstance(given, list):  # a Katib list, as written back
        return {item["name"]: {k: v for k, v in item.items() if k != "name"} for item in given}
    return dict(given)


def prepare(spec: ExperimentSpec,
            given: Callable[..., Any] | None) -> tuple[ExperimentSpec, Callable[..., Any]]:
    """The spec with the ``llm:`` section's parameters, and the objective its trials run: hpnb's
    fine-tuning (:class:`hpnb.llm.trial.FineTune`), or ``given`` (a function of the user's that
    calls :func:`hpnb.llm.load`) wrapped so that ``load()`` finds the section.

    Raises:
        SpecError: a field of the section is wrong (its path, what is allowed, a likely spelling).
    """
    from hpnb.llm.objective import FineTune, OwnObjective
    from hpnb.llm.preflight import check_before_start

    section = parse_llm(spec.llm or {})
    spec = with_parameters(spec, section)
    if isinstance(given, (FineTune, OwnObjective)):
        return spec, given
    if section.dataset.source == NOTEBOOK_SOURCE and not isinstance(given, FineTune):
        raise SpecError("llm.dataset.source", "names data given in Python, which this start does not hold",
                        value=NOTEBOOK_SOURCE, allowed="give it again: hpnb.llm.search(spec, dataset=frame, "
                        "resume=True), or a file the workers can read")
    check_before_start(section, spec)
    if given is None:
        return spec, FineTune(section)
    return spec, OwnObjective(given, section)
