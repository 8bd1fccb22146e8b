"""Metric values: every real number training code produces, and a clear refusal for the rest."""

from __future__ import annotations

import decimal
import fractions
import math

import numpy as np
import pytest

from hpnb.core.numbers import NotANumber, metric_number, metric_numbers


class Meter:
    def __float__(self) -> float:
        return 0.25


class OneValueTensor:
    ndim = 0
    shape = ()

    def item(self) -> float:
        return 0.75


@pytest.mark.parametrize(("value", "expected", "kind"), [
    (0.5, 0.5, float), (3, 3, int), (np.float64(0.5), 0.5, float), (np.float32(0.5), 0.5, float),
    (np.float16(0.5), 0.5, float), (np.longdouble(0.5), 0.5, float), (np.int8(-3), -3, int),
    (np.uint64(2**63 + 1), float(2**63 + 1), float), (np.int64(7), 7, int), (np.array(0.5), 0.5, float),
    (np.array(4), 4, int), (decimal.Decimal("1.5"), 1.5, float), (fractions.Fraction(1, 4), 0.25, float),
    (Meter(), 0.25, float), (OneValueTensor(), 0.75, float), (2**70, float(2**70), float),
])
def test_real_numbers_become_plain_python_numbers(value, expected, kind):
    number = metric_number("loss", value)
    assert number == expected and type(number) is kind


def test_non_finite_floats_and_none_pass_through_for_the_driver_to_judge():
    assert math.isnan(metric_number("loss", np.float64("nan")))
    assert metric_number("loss", np.float32("inf")) == math.inf
    assert metric_number("loss", None) is None


@pytest.mark.parametrize(("value", "words"), [
    ("adam", "is a str"), (True, "is a bool"), (np.bool_(True), "is a bool"), (1 + 2j, "is a complex"),
    (np.complex64(1), "is a complex64"), (np.array([1.0, 2.0]), "of shape (2,)"), ([1.0], "is a list"),
    ({"a": 1}, "is a dict"), (object(), "is a object"),
])
def test_anything_else_is_refused_naming_the_metric_and_its_type(value, words):
    with pytest.raises(NotANumber, match=r"metric 'acc'") as caught:
        metric_number("acc", value)
    assert words in str(caught.value)
    assert len(str(caught.value)) < 160  # never the whole value


def test_a_dict_of_metrics_has_text_keys_and_plain_values():
    assert metric_numbers({1: np.float32(0.5), "acc": np.array(1)}) == {"1": 0.5, "acc": 1}
