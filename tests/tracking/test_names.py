"""Names and values MLflow refuses, made to fit the same way every time."""

from __future__ import annotations

import pytest

from hpnb.tracking.names import MAX_PARAM_LENGTH, MetricNames, fitted_name, param_value


@pytest.mark.parametrize(("name", "fitted"), [
    ("val_loss", "val_loss"), ("acc@1", "acc_1"), ("loss (%)", "loss ___"), ("a//b", "a__b"),
    ("/abs", "_abs"), ("..", "__"), ("train/loss", "train/loss"), ("é", "_"), ("", "_"),
])
def test_a_name_is_fitted_to_what_mlflow_accepts(name: str, fitted: str) -> None:
    assert fitted_name(name) == fitted


def test_renaming_is_consistent_and_two_names_never_meet() -> None:
    names = MetricNames()
    first, second = names.safe("acc@1"), names.safe("acc#1")
    assert first == "acc_1" and second.startswith("acc_1-") and second != first
    assert names.safe("acc@1") == first and names.safe("acc#1") == second
    assert names.renamed == {first: "acc@1", second: "acc#1"}


def test_a_long_value_is_cut_with_a_note_and_a_short_one_kept() -> None:
    cut = param_value("v" * 10_000)
    assert len(cut) == MAX_PARAM_LENGTH and cut.endswith("(truncated: 10,000 characters; the full value "
                                                         "is in hpnb's store)")
    assert param_value([1, "a"]) == '[1, "a"]' and param_value("short") == "short"
