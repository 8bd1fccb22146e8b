"""The Binder environment, built the way Binder builds it, runs the quickstart notebook.

A copy of the repository as a fresh clone has it (tracked and new files, nothing that git ignores,
so no prebuilt JupyterLab extension and no node_modules) gets a new virtual environment with
``binder/requirements.txt``; ``binder/postBuild`` then runs from the copy's root with that
environment first on the PATH, as repo2docker runs it. The quickstart notebook must execute
without an error in that environment, and JupyterLab must list the extension postBuild built.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

REPO = Path(__file__).resolve().parents[2]
QUICKSTART = "notebooks/01-quickstart.ipynb"


def _copy_as_cloned(destination: Path) -> Path:
    files = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard", "-z"],
        cwd=REPO, check=True, capture_output=True, text=True,
    ).stdout.split("\0")
    for name in filter(None, files):
        source = REPO / name
        if source.is_file():
            target = destination / name
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target)
    return destination


def _run(command: list[str], cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True)
    assert done.returncode == 0, f"{' '.join(command)} failed:\n{done.stdout[-4000:]}\n{done.stderr[-4000:]}"
    return done


@pytest.mark.slow
@pytest.mark.timeout(1500)
def test_binder_environment_builds_and_runs_the_quickstart(tmp_path: Path) -> None:
    if shutil.which("git") is None or not (REPO / ".git").exists():
        pytest.skip("needs the git work tree to copy the repository as a clone would have it")
    repo = _copy_as_cloned(tmp_path / "repo")
    assert not (repo / "hpnb" / "labextension").exists()  # the extension must be built from source

    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    bin_dir = venv / "bin"
    env = {key: value for key, value in os.environ.items() if key not in ("PYTHONPATH", "JUPYTER_PATH")}
    env.update(
        PATH=f"{bin_dir}{os.pathsep}{env.get('PATH', '')}", VIRTUAL_ENV=str(venv),
        JUPYTER_DATA_DIR=str(tmp_path / "jupyter-data"),  # no kernels or extensions of this user
        JUPYTER_CONFIG_DIR=str(tmp_path / "jupyter-config"),
        HPNB_HOME=str(tmp_path / "hpnb-home"), PIP_DISABLE_PIP_VERSION_CHECK="1",
    )
    _run([str(bin_dir / "pip"), "install", "-r", "binder/requirements.txt"], repo, env)
    built = _run(["bash", "binder/postBuild"], repo, env)
    assert "hpnb and its JupyterLab extension are installed" in built.stdout
    assert (venv / "share" / "jupyter" / "labextensions" / "hpnb" / "package.json").exists()

    executed = tmp_path / "quickstart-executed.ipynb"
    _run([str(bin_dir / "jupyter"), "nbconvert", "--to", "notebook", "--execute", QUICKSTART,
          "--ExecutePreprocessor.timeout=600", "--output", str(executed)], repo, env)
    notebook = nbformat.read(executed, as_version=4)
    outputs = [out for cell in notebook.cells if cell.cell_type == "code" for out in cell.outputs]
    assert not [out for out in outputs if out.output_type == "error"]
    text = "".join(out.get("text", "") + out.get("data", {}).get("text/plain", "") for out in outputs)
    assert "24/24 trials done: 24 completed" in text
    assert "test accuracy above 0.97: True" in text
