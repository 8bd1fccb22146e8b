"""The ``llm:`` section checked before anything starts: fields against the installed
``TrainingArguments`` and ``LoraConfig``, their types, the sources, the memory a model needs; the
parameters it adds to the spec; and all of it without loading a training library."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from hpnb.builtin_objective import prepared
from hpnb.core.errors import SpecError
from hpnb.core.spec import parse_spec
from hpnb.llm.objective import FineTune
from hpnb.llm.section import prepare


@pytest.fixture
def sources(tmp_path: Path) -> dict[str, str]:
    (tmp_path / "model").mkdir()
    (tmp_path / "model" / "config.json").write_text(
        json.dumps(
            {
                "model_type": "llama",
                "hidden_size": 64,
                "num_hidden_layers": 2,
                "intermediate_size": 128,
                "vocab_size": 300,
            }
        )
    )
    (tmp_path / "text.jsonl").write_text('{"text": "a line"}\n')
    return {"model": str(tmp_path / "model"), "dataset": str(tmp_path / "text.jsonl")}


def spec_of(sources: dict[str, str], **section: object) -> dict:
    return {"metric": "eval_loss", "llm": {**sources, **section}}


def test_searched_fields_become_parameters_named_by_their_field(sources: dict[str, str]) -> None:
    spec, objective = prepare(
        parse_spec(
            spec_of(
                sources,
                training={"learning_rate": {"min": 1e-5, "max": 1e-3, "log": True}, "num_train_epochs": 1},
                lora={"r": [4, 8, 16], "lora_alpha": 16, "target_modules": ["q_proj", "v_proj"]},
            )
        ),
        None,
    )
    assert spec.space.names == ("learning_rate", "r")
    assert spec.space.parameters[0].describe().startswith("logUniform")
    assert isinstance(objective, FineTune)
    assert objective.section.lora.values({"r": 8}) == {
        "r": 8,
        "lora_alpha": 16,
        "target_modules": ["q_proj", "v_proj"],
    }
    assert objective.section.training.values({"learning_rate": 1e-4}) == {
        "learning_rate": 1e-4,
        "num_train_epochs": 1,
    }
    again, _ = prepare(spec, None)  # a stored spec (resume) already holds them: unchanged
    assert again == spec and parse_spec(spec.to_dict()) == spec


def test_a_grids_budget_counts_the_sections_parameters(sources: dict[str, str]) -> None:
    given = {
        **spec_of(sources, training={"learning_rate": [0.1, 0.01]}, lora={"r": [4, 8, 16]}),
        "strategy": "grid",
    }
    assert prepare(parse_spec(given), None)[0].trials == 6
    assert prepare(parse_spec({**given, "trials": 4}), None)[0].trials == 4


def test_a_choice_between_lists_is_searched_as_labels_and_given_back_as_lists(
    sources: dict[str, str],
) -> None:
    spec, objective = prepare(
        parse_spec(
            spec_of(
                sources,
                lora={"target_modules": {"values": [["q_proj", "v_proj"], ["q_proj", "k_proj", "v_proj"]]}},
            )
        ),
        None,
    )
    assert spec.space.parameters[0].describe() == "categorical [q_proj,v_proj, q_proj,k_proj,v_proj]"
    assert isinstance(objective, FineTune)
    assert objective.section.lora.values({"target_modules": "q_proj,k_proj,v_proj"}) == {
        "target_modules": ["q_proj", "k_proj", "v_proj"]
    }


@pytest.mark.parametrize(
    ("section", "message"),
    [
        (
            {"training": {"learning_rat": 0.1}},
            "llm.training.learning_rat: is not a field of the installed TrainingArguments "
            "(got 'learning_rat'); allowed: a field of TrainingArguments; did you mean 'learning_rate'?",
        ),
        ({"lora": {"lora_alfa": 16}}, "did you mean 'lora_alpha'?"),
        (
            {"training": {"per_device_train_batch_size": "big"}},
            "llm.training.per_device_train_batch_size: is of the wrong type for this field (int) "
            "(got 'big'); allowed: an integer",
        ),
        ({"lora": {"r": {"min": 4.0, "max": 16.5}}}, "llm.lora.r: is of the wrong type for this field (int)"),
        ({"lora": {"r": [4, "eight"]}}, "llm.lora.r.values[1]: is of the wrong type"),
        ({"training": {"bf16": 1}}, "llm.training.bf16: is of the wrong type for this field (bool)"),
        ({"training": {"output_dir": "/tmp/x"}}, "llm.training.output_dir: is set by hpnb"),
        (
            {"training": {"lr_scheduler_type": {"values": ["linear", "cosin"]}}},
            "llm.training.lr_scheduler_type.values[1]: is not a value this field takes (SchedulerType | str) "
            "(got 'cosin'); allowed: linear, cosine,",
        ),
        ({"training": {"eval_strategy": "step"}}, "did you mean 'steps'?"),
        ({"lora": {"bias": "lora"}}, "allowed: none, all, lora_only; did you mean 'lora_only'?"),
        ({"task": "translation"}, "llm.task: is not a task hpnb fine-tunes"),
        ({"dataset": {"source": "x.jsonl", "eval": 1.5}}, "llm.dataset.eval: is not what to evaluate on"),
        ({"modle": "x"}, "did you mean 'model'?"),
    ],
)
def test_a_wrong_field_is_one_error_naming_it(sources: dict[str, str], section: dict, message: str) -> None:
    with pytest.raises(SpecError) as caught:
        prepare(parse_spec(spec_of(sources, **section)), None)
    assert message in str(caught.value)


def test_an_error_in_a_cell_names_its_line(sources: dict[str, str]) -> None:
    text = (
        f"metric: eval_loss\nllm:\n  model: {sources['model']}\n  dataset: {sources['dataset']}\n"
        "  training:\n    learning_rat: 0.1\n"
    )
    with pytest.raises(SpecError, match=r"learning_rat.*\[line 6\]"):
        prepared(parse_spec(text), None, text)


def test_a_parameter_declared_twice_is_refused(sources: dict[str, str]) -> None:
    given = {
        **spec_of(sources, training={"learning_rate": [0.1, 0.01]}),
        "parameters": {"learning_rate": [1, 2]},
    }
    with pytest.raises(
        SpecError, match=r"parameters\.learning_rate: is also a field searched in the llm: section"
    ):
        prepare(parse_spec(given), None)


def test_sources_that_cannot_be_reached_are_said_before_anything_starts(
    sources: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    with pytest.raises(SpecError, match=r"llm\.model: no such folder on this machine"):
        prepare(parse_spec(spec_of({**sources, "model": "/nowhere/tiny"})), None)
    with pytest.raises(SpecError, match=r"llm\.dataset\.source: no such file or folder"):
        prepare(parse_spec(spec_of({**sources, "dataset": "/nowhere/text.jsonl"})), None)
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    with pytest.raises(SpecError) as caught:
        prepare(parse_spec(spec_of({**sources, "model": "hf://meta-llama/Llama-3.2-1B"})), None)
    said = str(caught.value)
    assert "the model 'meta-llama/Llama-3.2-1B' cannot be fetched from the Hugging Face hub" in said
    assert "give that folder or URL instead (llm.model: /shared/Llama-3.2-1B)" in said


def test_a_model_too_large_for_a_trials_memory_is_refused_from_its_config(
    sources: dict[str, str], tmp_path: Path
) -> None:
    big = tmp_path / "big"
    big.mkdir()
    (big / "config.json").write_text(
        json.dumps(
            {
                "model_type": "llama",
                "hidden_size": 4096,
                "num_hidden_layers": 32,
                "intermediate_size": 11008,
                "vocab_size": 32000,
            }
        )
    )
    spec = {**spec_of({**sources, "model": str(big)}), "resources": {"per_trial": {"memory": "4Gi"}}}
    with pytest.raises(
        SpecError, match=r"llm.model: needs about 2\d\.\d GiB to fine-tune \(6,6\d\dM parameters"
    ):
        prepare(parse_spec(spec), None)
    prepare(parse_spec({**spec, "resources": {"per_trial": {"memory": "64Gi"}}}), None)


def test_quantization_without_a_gpu_is_refused(sources: dict[str, str]) -> None:
    with pytest.raises(SpecError, match=r"llm\.quantization: 4bit loading \(bitsandbytes\) needs a GPU"):
        prepare(parse_spec(spec_of(sources, quantization="4bit")), None)


def test_checking_a_section_loads_no_training_library(sources: dict[str, str]) -> None:
    spec = json.dumps(spec_of(sources, training={"learning_rate": [0.1, 0.2]}))
    script = (
        "import sys, json\n"
        "from hpnb.core.spec import parse_spec\n"
        "from hpnb.builtin_objective import prepared\n"
        f"spec, f = prepared(parse_spec(json.loads({spec!r})), None)\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in "
        "{'torch', 'transformers', 'peft', 'datasets', 'accelerate'}))"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == "[]"
