"""Katib's DARTS Experiments (algorithmName: darts, nasConfig) imported as a nas: section and
exported back in Katib's shape."""

from __future__ import annotations

import pytest
import yaml

from hpnb.core.errors import SpecError
from hpnb.core.interop.katib_export import export_katib
from hpnb.core.interop.katib_import import import_katib
from hpnb.core.spec import parse_spec
from hpnb.nas.section import parse_nas
from tests.core.interop.katib_examples import example_text, experiment_errors


def test_katibs_darts_example_imports_as_a_nas_section():
    result = import_katib(example_text("darts"))
    spec = result.spec
    assert (spec.metric, spec.mode, spec.trials, spec.parallel) == ("Validation-Accuracy", "max", 1, 1)
    assert spec.nas == {"layers": 8, "operations": [
        {"type": "separable_convolution", "filter_sizes": [3]},
        {"type": "dilated_convolution", "filter_sizes": [3, 5]},
        {"type": "avg_pooling", "filter_sizes": [3]}, {"type": "max_pooling", "filter_sizes": [3]},
        "skip_connection"], "darts": {"num_epochs": 3, "num_nodes": 3, "alpha_lr": 0.0003}}
    assert parse_spec(result.to_yaml()) == spec  # what `hpnb import katib` writes reads back the same
    section = parse_nas(spec.nas)  # and the nas room takes it
    assert section.operations == ("separable_convolution_3x3", "dilated_convolution_3x3",
                                  "dilated_convolution_5x5", "avg_pooling_3x3", "max_pooling_3x3",
                                  "skip_connection")
    assert section.settings["num_nodes"] == 3 and section.settings["w_lr"] == 0.025  # Katib's default


def test_what_a_darts_import_does_not_carry_is_said_with_its_line():
    notes = {note.field: note for note in import_katib(example_text("darts")).notes}
    assert "Validation-Accuracy" in notes["spec.objective.objectiveMetricName"].text
    assert "num_workers" in notes["spec.algorithm.algorithmSettings[3]"].text
    assert "CIFAR-10" in notes["spec.trialTemplate"].text
    assert "spec.metricsCollectorSpec" in notes
    assert all(note.line for note in notes.values())


def test_the_export_is_katibs_darts_experiment_and_imports_back_the_same():
    spec = import_katib(example_text("darts")).spec
    exported = export_katib(spec)
    document = yaml.safe_load(exported.to_yaml())
    assert experiment_errors(document) == []
    katib = yaml.safe_load(example_text("darts"))["spec"]
    body = document["spec"]
    assert body["nasConfig"] == katib["nasConfig"]
    assert body["objective"] == katib["objective"]
    assert body["metricsCollectorSpec"] == katib["metricsCollectorSpec"]
    assert body["algorithm"]["algorithmName"] == "darts"
    settings = [s["name"] for s in body["algorithm"]["algorithmSettings"]]
    assert settings == ["num_epochs", "num_nodes", "alpha_lr"]
    assert import_katib(exported.to_yaml()).spec == spec


def test_a_written_nas_section_exports_its_operations_by_type_and_says_what_katib_lacks():
    operations = ["sep_conv_3x3", "separable_convolution_5x5", "max_pooling", "skip_connection"]
    spec = parse_spec({"metric": "Validation-Accuracy", "mode": "max", "trials": 2,
                       "parameters": {"seed": {"type": "int", "min": 0, "max": 99}},
                       "nas": {"layers": 3, "nodes": 2, "operations": operations,
                               "darts": {"order": "first", "num_epochs": 4}}})
    exported = export_katib(spec)
    assert experiment_errors(exported.document) == []
    operations = exported.document["spec"]["nasConfig"]["operations"]
    assert [(o["operationType"], o.get("parameters", [{}])[0].get("feasibleSpace")) for o in operations] == [
        ("separable_convolution", {"list": ["3", "5"]}), ("max_pooling", {"list": ["3"]}),
        ("skip_connection", None)]
    settings = {s["name"]: s["value"] for s in exported.document["spec"]["algorithm"]["algorithmSettings"]}
    assert settings == {"num_epochs": "4", "num_nodes": "2"}
    noted = {note.field: note.text for note in exported.notes}
    assert "second order only" in noted["nas.darts.order"] and "seed" in noted["parameters"]
    back = import_katib(exported.to_yaml()).spec
    assert parse_nas(back.nas).operations == parse_nas(spec.nas).operations
    assert parse_nas(back.nas).layers == 3 and back.trials == 2


@pytest.mark.parametrize(("old", "new", "path", "words"), [
    ("operationType: avg_pooling", "operationType: average_pooling",
     "spec.nasConfig.operations[2].operationType", "did you mean 'avg_pooling'"),
    ('                - "5"', '                - "7"',
     "spec.nasConfig.operations[1].parameters[0].feasibleSpace.list[1]",
     "dilated_convolution has no form with filter size 7"),
    ("name: alpha_lr", "name: alpha_rate", "spec.algorithm.algorithmSettings[2].name",
     "did you mean 'alpha_lr'"),
    ("numLayers: 8", "numLayers: 0", "spec.nasConfig.graphConfig.numLayers", ">= 1"),
    ("algorithmName: darts", "algorithmName: enas", "spec.algorithm.algorithmName", "darts"),
])
def test_a_wrong_darts_experiment_is_one_error_naming_katibs_field_and_line(old, new, path, words):
    text = example_text("darts")
    assert old in text
    with pytest.raises(SpecError) as caught:
        import_katib(text.replace(old, new, 1))
    assert caught.value.path == path and words in str(caught.value)
    assert caught.value.line == next(n for n, line in enumerate(text.replace(old, new, 1).splitlines(), 1)
                                     if new.strip() in line)
