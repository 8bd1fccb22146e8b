"""Katib Experiments written in Katib's documented v1beta1 format, and Katib's Experiment schemas."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import jsonschema
import yaml

FIXTURES = Path(__file__).parent / "fixtures"
#: one Experiment per Katib algorithm the tests cover (and medianstop).
EXAMPLES = ("random", "grid", "tpe", "cmaes", "hyperband", "pbt", "medianstop")


def example_path(name: str) -> Path:
    return FIXTURES / f"{name}.yaml"


def example_text(name: str) -> str:
    return example_path(name).read_text(encoding="utf-8")


def _schemas() -> dict[str, Any]:
    loaded: dict[str, Any] = yaml.safe_load((FIXTURES / "katib_experiment_schema.yaml").read_text())
    return loaded


def _closed(schema: Any) -> Any:
    """Katib's objects with ``additionalProperties: false``, so that a misspelt field fails.

    The generated schema leaves unknown fields open; Kubernetes drops them from a structural
    schema without a word, which is what this check must catch.
    """
    if isinstance(schema, list):
        return [_closed(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    closed = {key: _closed(value) for key, value in schema.items()}
    if "properties" in closed and "additionalProperties" not in closed:
        closed["additionalProperties"] = False
    return closed


def experiment_errors(document: Any) -> list[str]:
    """Every way ``document`` breaks the Experiment CRD's schema or Katib's (closed) OpenAPI schema."""
    schemas = _schemas()
    errors = [f"CRD: {e.message}" for e in jsonschema.Draft7Validator(schemas["crd_openAPIV3Schema"])
              .iter_errors(document)]
    openapi = dict(_closed(schemas["openapi"]))
    # the Unstructured trialSpec stays open: it is any Kubernetes object
    openapi["components"]["schemas"]["io.k8s.apimachinery.pkg.apis.meta.v1.unstructured.Unstructured"] = \
        {"type": "object"}
    openapi["$ref"] = "#/components/schemas/v1beta1.Experiment"
    validator = jsonschema.Draft7Validator(openapi)
    errors += [f"OpenAPI at {'/'.join(map(str, e.absolute_path))}: {e.message}"
               for e in validator.iter_errors(document)]
    return errors
