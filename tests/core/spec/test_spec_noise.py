"""``noise: true`` in the spec: read, refused with one clear error when not a boolean, kept by
``to_dict``, and given to the strategies that model noise (gp, auto), not to the others."""

from __future__ import annotations

import pytest

from hpnb.core.errors import SpecError
from hpnb.core.spec import parse_spec
from hpnb.core.strategies.auto import AutoStrategy
from hpnb.core.strategies.gp import GPStrategy
from hpnb.driving.driver_parts import make_strategy

BASE = "metric: loss\ntrials: 20\nparameters:\n  x: {min: 0.0, max: 1.0}\n"


def test_noise_true_is_read_kept_and_given_to_gp_and_auto() -> None:
    spec = parse_spec(BASE + "strategy: gp\nnoise: true\n")
    assert spec.noise and spec.to_dict()["noise"] is True
    assert parse_spec(spec.to_dict()) == spec
    strategy = make_strategy(spec, spec.trials)
    assert isinstance(strategy, GPStrategy) and strategy.noise
    auto = make_strategy(parse_spec(BASE + "noise: true\n"), 20)
    assert isinstance(auto, AutoStrategy) and "noisy" in auto.choice.reason


def test_a_strategy_that_does_not_model_noise_ignores_it_and_absent_means_found_out() -> None:
    assert make_strategy(parse_spec(BASE + "strategy: tpe\nnoise: true\n"), 20).name == "tpe"
    spec = parse_spec(BASE)
    assert spec.noise is None and "noise" not in spec.to_dict()
    assert make_strategy(parse_spec(BASE + "strategy: gp\n"), 20).noise is None  # type: ignore[attr-defined]
    quiet = parse_spec(BASE + "strategy: gp\nnoise: false\n")
    assert quiet.to_dict()["noise"] is False and parse_spec(quiet.to_dict()) == quiet
    assert make_strategy(quiet, 20).noise is False  # type: ignore[attr-defined]
    auto = make_strategy(parse_spec(BASE + "noise: false\n"), 20)
    assert isinstance(auto, AutoStrategy) and auto.inner.noise is False  # type: ignore[attr-defined]


def test_noise_that_is_not_a_boolean_is_one_clear_error_with_its_line() -> None:
    with pytest.raises(SpecError) as raised:
        parse_spec(BASE + "noise: yes please\n")
    text = str(raised.value)
    assert "noise" in text and "yes please" in text and "true" in text and "line 5" in text
