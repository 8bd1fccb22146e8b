"""The demo notebooks load nothing from the internet: no plotly.js from a CDN in a cell or in a saved
output (they fail offline and on locked-down hubs); plots use the front end's own renderer."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

NOTEBOOKS = sorted((Path(__file__).resolve().parents[2] / "notebooks").glob("*.ipynb"))
REMOTE = re.compile(r"""(<script[^>]+src=["']https?://|import ["']https?://|notebook_connected)""")


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_a_demo_notebook_fetches_no_script(path: Path) -> None:
    cells = json.loads(path.read_text())["cells"]
    for cell in cells:
        texts = ["".join(cell["source"])]
        for output in cell.get("outputs", []):
            data = output.get("data", {}).values()
            texts += ["".join(v) if isinstance(v, list) else json.dumps(v) for v in data]
        found = [m.group(0) for text in texts for m in REMOTE.finditer(text)]
        assert not found, f"{path.name}: {found[:3]}"
