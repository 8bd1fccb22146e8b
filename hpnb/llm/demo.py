"""A language model and a dataset that need no download: English text that ships with Python
(``pydoc_data.topics``), a byte-level BPE tokenizer trained on it in seconds, and a tiny
Llama-style (or GPT-2) model built from a configuration and saved as a hub model would be.
For tests, benchmarks and the notebook that shows fine-tuning on any machine.

Example (not run here: it needs torch)::

    write_text_dataset("data/text.jsonl", rows=400)
    tiny_model("models/tiny-llama")          # config.json, model.safetensors, tokenizer files
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any


def english_lines(rows: int, min_chars: int = 40) -> list[str]:
    """Up to ``rows`` lines of English prose from Python's own help topics.

    Example:
        >>> lines = english_lines(5)
        >>> len(lines), all(len(line) >= 40 for line in lines)
        (5, True)
    """
    from pydoc_data.topics import topics

    found: list[str] = []
    for name in sorted(topics):
        for line in topics[name].splitlines():
            line = re.sub(r"\s+", " ", line).strip()
            if len(line) >= min_chars and not line.startswith(("*", ">>>", "...")):
                found.append(line)
                if len(found) == rows:
                    return found
    return found


def write_text_dataset(path: str | Path, rows: int = 400) -> Path:
    """A JSON-lines file of ``{"text": ...}`` rows."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = "".join(json.dumps({"text": line}) + "\n" for line in english_lines(rows))
    path.write_text(lines, encoding="utf-8")
    return path


def train_tokenizer(vocab_size: int = 512) -> Any:
    """A byte-level BPE tokenizer trained on the help topics, as a ``PreTrainedTokenizerFast``
    with an end-of-sequence token and no padding token (as many causal models ship)."""
    import tokenizers
    import transformers

    bpe = tokenizers.ByteLevelBPETokenizer()
    bpe.train_from_iterator(english_lines(3000, min_chars=1), vocab_size=vocab_size, min_frequency=2,
                            special_tokens=["<s>", "</s>"])
    return transformers.PreTrainedTokenizerFast(tokenizer_object=bpe._tokenizer, bos_token="<s>",
                                                eos_token="</s>")


def tiny_model(folder: str | Path, kind: str = "llama", hidden: int = 64, layers: int = 2,
               vocab_size: int = 512, seed: int = 0) -> Path:
    """Build a tiny ``kind`` (``llama`` or ``gpt2``) model from a configuration and save it, with
    its tokenizer, to ``folder`` (loadable with ``from_pretrained(folder)``)."""
    import torch
    import transformers

    torch.manual_seed(seed)
    tokenizer = train_tokenizer(vocab_size)
    ends = {"bos_token_id": tokenizer.bos_token_id, "eos_token_id": tokenizer.eos_token_id}
    if kind == "gpt2":
        config: Any = transformers.GPT2Config(vocab_size=len(tokenizer), n_embd=hidden, n_layer=layers,
                                              n_head=4, n_positions=256, **ends)
        model: Any = transformers.GPT2LMHeadModel(config)
    else:
        config = transformers.LlamaConfig(vocab_size=len(tokenizer), hidden_size=hidden,
                                          intermediate_size=2 * hidden, num_hidden_layers=layers,
                                          num_attention_heads=4, num_key_value_heads=2,
                                          max_position_embeddings=256, **ends)
        model = transformers.LlamaForCausalLM(config)
    folder = Path(folder)
    model.save_pretrained(str(folder))
    tokenizer.save_pretrained(str(folder))
    return folder
