"""The nas: section is checked before anything starts: one error naming the field and what is allowed."""

from __future__ import annotations

import pytest

import hpnb
from hpnb.builtin_objective import prepared
from hpnb.core.errors import SpecError
from hpnb.core.spec import parse_spec
from hpnb.nas.section import SEED_PARAMETER
from hpnb.nas.trial import DartsTrial
from tests.nas.data_functions import tiny_digits

GOAL = {"metric": "Validation-Accuracy", "mode": "max"}
NAS = {"layers": 3, "nodes": 2, "operations": ["separable_convolution", "max_pooling_3x3", "skip_connection"]}


def _error(spec: dict, given=tiny_digits) -> SpecError:
    with pytest.raises(SpecError) as caught:
        prepared(parse_spec(spec), given)
    return caught.value


@pytest.mark.parametrize(("nas", "path", "words"), [
    ({**NAS, "operations": ["separable_convolution", "max_pool_3x3", "seperable_convolution"]},
     "nas.operations[2]", "did you mean 'separable_convolution'"),
    ({**NAS, "operations": [{"type": "max_pooling", "filter_sizes": [3, 5]}]},
     "nas.operations[0].filter_sizes", "max_pooling has no form with filter size 5"),
    ({**NAS, "operations": [{"type": "skip_connection", "filter_sizes": [3]}]},
     "nas.operations[0].filter_sizes", "skip_connection takes no filter size"),
    ({**NAS, "operations": [{"type": "dilated_conv"}]}, "nas.operations[0].type", "dilated_convolution"),
    ({**NAS, "operations": ["max_pooling_3x3", "max_pooling"]}, "nas.operations[1]", "twice"),
    ({**NAS, "layers": 0}, "nas.layers", ">= 1"),
    ({k: v for k, v in NAS.items() if k != "layers"}, "nas.layers", "is missing"),
    ({**NAS, "darts": {"alpha_rate": 0.1}}, "nas.darts.alpha_rate", "did you mean 'alpha_lr'"),
    ({**NAS, "darts": {"order": "third"}}, "nas.darts.order", "first"),
    ({**NAS, "darts": {"w_lr": -1}}, "nas.darts.w_lr", "at least 0"),
    ({**NAS, "darts": {"num_nodes": 3}}, "nas.darts.num_nodes", "nas.nodes 2"),
    ({**NAS, "cells": 4}, "nas.cells", "layers"),
])
def test_a_wrong_field_of_the_section_is_one_error_naming_it(nas, path, words):
    error = _error({**GOAL, "nas": nas})
    assert error.path == path
    assert words in str(error)


def test_a_nas_spec_without_a_metric_maximises_the_validation_accuracy():
    spec, _ = prepared(parse_spec({"nas": NAS}), tiny_digits)
    assert (spec.metric, spec.mode) == ("Validation-Accuracy", "max")
    spec, _ = prepared(parse_spec({"metric": "Validation-Loss", "nas": NAS}), tiny_digits)
    assert (spec.metric, spec.mode) == ("Validation-Loss", "min")


def test_the_goal_must_be_a_metric_darts_reports_in_its_direction():
    assert "Validation-Loss" in str(_error({"metric": "val_acc", "mode": "max", "nas": NAS}).allowed)
    error = _error({"metric": "Validation-Accuracy", "mode": "min", "nas": NAS})
    assert error.path == "mode" and "mode: max" in str(error)


def test_parameters_are_the_seed_and_darts_settings_only():
    error = _error({**GOAL, "nas": NAS, "parameters": {"alpha_learning_rate": [0.1, 0.2]}})
    assert error.path == "parameters.alpha_learning_rate" and "alpha_lr" in str(error)


def test_a_darts_trial_runs_on_one_worker():
    error = _error({**GOAL, "nas": NAS, "resources": {"per_trial": {"workers": 2}}})
    assert error.path == "resources.per_trial" and "one process" in str(error)


def test_the_section_needs_the_data_function():
    assert "returns the training and validation data" in str(_error({**GOAL, "nas": NAS}, given=None))


def test_errors_of_a_cell_carry_their_line():
    text = "metric: Validation-Accuracy\nmode: max\nnas:\n  layers: 2\n  operations: [max_pooling_5x5]\n"
    with pytest.raises(SpecError) as caught:
        hpnb.search(tiny_digits, text)
    assert caught.value.path == "nas.operations[0]" and caught.value.line == 5


def test_prepare_adds_a_seed_once_and_keeps_the_section():
    spec, objective = prepared(parse_spec({**GOAL, "trials": 2, "nas": {**NAS, "darts": {"num_epochs": 3}}}),
                               tiny_digits)
    assert spec.space.to_dict() == {"seed": SEED_PARAMETER} and spec.trials == 2
    assert spec.nas == {**NAS, "darts": {"num_epochs": 3}}
    assert isinstance(objective, DartsTrial) and objective.section.settings["num_epochs"] == 3
    assert objective.section.operations == ("separable_convolution_3x3", "separable_convolution_5x5",
                                            "max_pooling_3x3", "skip_connection")
    again, _ = prepared(parse_spec(spec.to_dict()), tiny_digits)  # a stored spec, as on resume
    assert again == spec
    searched = parse_spec({**GOAL, "nas": NAS, "parameters": {"alpha_lr": [1e-3, 1e-2]}})
    assert prepared(searched, tiny_digits)[0] == searched
