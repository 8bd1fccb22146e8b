"""``tracking:`` in a spec: what is accepted, and every mistake named before anything starts."""

from __future__ import annotations

import pytest

from hpnb.core.errors import SpecError
from hpnb.core.spec import parse_spec
from hpnb.core.spec.tracking import masked

BASE = "metric: loss\nparameters:\n  x: [1, 2]\n"


def test_tracking_round_trips_and_a_bare_uri_is_accepted(tmp_path) -> None:
    spec = parse_spec(BASE + f"tracking:\n  mlflow: http://127.0.0.1:5000\n  tensorboard: {tmp_path}/tb\n")
    assert spec.tracking.mlflow is not None and spec.tracking.mlflow.uri == "http://127.0.0.1:5000"
    assert spec.tracking.mlflow.required is False and spec.tracking.tensorboard == f"{tmp_path}/tb"
    assert parse_spec(spec.to_dict()) == spec


@pytest.mark.parametrize(("tracking", "path", "allowed"), [
    ("{mlfow: http://h:5000}", "tracking.mlfow", "did you mean 'mlflow'"),
    ("{mlflow: {uri: http://h:5000, required: yes please}}", "tracking.mlflow.required", "true, false"),
    ("{mlflow: {experiment: x}}", "tracking.mlflow.uri", "http://127.0.0.1:5000"),
    ("{mlflow: 5000}", "tracking.mlflow", "a URI"),
    ("{tensorboard: ''}", "tracking.tensorboard", "a folder"),
])
def test_a_mistake_names_the_field_and_what_is_allowed(tracking: str, path: str, allowed: str) -> None:
    with pytest.raises(SpecError) as caught:
        parse_spec(BASE + f"tracking: {tracking}\n")
    assert caught.value.path == path
    assert allowed in str(caught.value)
    assert "[line 4]" in str(caught.value)


def test_a_password_in_the_uri_is_refused_and_never_shown() -> None:
    with pytest.raises(SpecError) as caught:
        parse_spec(BASE + "tracking: {mlflow: 'https://me:s3cret@mlflow.example.com'}\n")
    text = str(caught.value)
    assert "s3cret" not in text and "me:***@mlflow.example.com" in text
    assert "MLFLOW_TRACKING_PASSWORD" in text
    assert masked("https://me:s3cret@h:5000/x") == "https://me:***@h:5000/x"
