"""Constraints through Katib: Katib has none, so the export says they are not enforced, records
the constrained metrics and keeps the constraints in an annotation that the import reads back."""

from __future__ import annotations

import pytest
import yaml

from hpnb.core.errors import SpecError
from hpnb.core.interop.katib_export import export_katib
from hpnb.core.interop.katib_import import import_katib
from hpnb.core.spec import parse_spec

SPEC = {"metric": "loss", "strategy": "tpe", "parameters": {"x": {"min": 0.0, "max": 1.0}},
        "constraints": {"latency_ms": {"max": 20}, "size": {"min": 1, "max": 5}}}


def test_an_export_records_the_constrained_metrics_and_says_what_katib_ignores():
    exported = export_katib(parse_spec(SPEC), name="sized")
    document = yaml.safe_load(exported.to_yaml())
    assert document["spec"]["objective"]["additionalMetricNames"] == ["latency_ms", "size"]
    assert "hpnb/constraints" in document["metadata"]["annotations"]
    [note] = [str(n) for n in exported.notes if n.field == "constraints"]
    assert "latency_ms <= 20, 1 <= size <= 5 not enforced: Katib has no constraints" in note


def test_an_import_of_an_export_has_the_same_constraints():
    spec = parse_spec(SPEC)
    imported = import_katib(export_katib(spec, name="sized").to_yaml())
    assert imported.spec.constraints == spec.constraints
    assert any("Katib ignored them" in str(n) for n in imported.notes)


def test_a_bad_constraints_annotation_is_an_error_naming_it():
    text = export_katib(parse_spec(SPEC), name="sized").to_yaml().replace(
        '{"latency_ms":{"max":20.0}', '{"latency_ms":{"max":"fast"}')
    with pytest.raises(SpecError, match="max"):
        import_katib(text)
    broken = export_katib(parse_spec(SPEC), name="sized").to_yaml().replace(
        "hpnb/constraints: '{", "hpnb/constraints: '[")
    with pytest.raises(SpecError, match="hpnb/constraints: is not a JSON mapping"):
        import_katib(broken)
