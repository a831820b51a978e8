"""The quickstart notebook runs top to bottom, including the learning curve of a given run."""

from __future__ import annotations

from pathlib import Path

import nbclient
import nbformat

NOTEBOOK = Path(__file__).resolve().parents[1] / "notebooks" / "quickstart.ipynb"


def _text_outputs(nb) -> str:
    parts = []
    for cell in nb.cells:
        for out in cell.get("outputs", []):
            if "text" in out:
                parts.append(out["text"])
            parts.append(out.get("data", {}).get("text/plain", ""))
    return "\n".join(parts)


def test_quickstart_runs_and_reads_a_run_directory(tmp_path, monkeypatch):
    from torch.utils.tensorboard import SummaryWriter

    run = tmp_path / "runs" / "tiny"
    writer = SummaryWriter(str(run))
    for step, value in enumerate([0.9, 1.2, 1.6]):
        writer.add_scalar("eval/greedy/points_per_hand", value, (step + 1) * 1000)
        writer.add_scalar("losses/policy", 1.0 / (step + 1), (step + 1) * 1000)
    writer.close()
    monkeypatch.setenv("MURLAN_RUN_DIR", str(run))
    monkeypatch.setenv("TMPDIR", str(tmp_path))

    nb = nbformat.read(NOTEBOOK, as_version=4)
    client = nbclient.NotebookClient(
        nb, timeout=120, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}}
    )
    client.execute()  # raises CellExecutionError on the first failing cell

    text = _text_outputs(nb)
    assert "agents: ['player_0', 'player_1', 'player_2', 'player_3']" in text
    assert "decisions in" in text
    assert "murlan arena" in text and "rule" in text  # the arena table
    assert "eval/greedy/points_per_hand: 3 points, last 1.600 at step 3000" in text
    images = [
        out
        for cell in nb.cells
        for out in cell.get("outputs", [])
        if "image/png" in out.get("data", {})
    ]
    assert len(images) == 2  # the arena chart and the learning curve
    assert (tmp_path / "murlan_arena.png").exists()


def test_quickstart_skips_the_curve_without_a_run(tmp_path, monkeypatch):
    monkeypatch.delenv("MURLAN_RUN_DIR", raising=False)
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    nb = nbformat.read(NOTEBOOK, as_version=4)
    # Only the last two cells (the curve), after the imports: fast, in an empty directory.
    nb.cells = [nb.cells[1], *nb.cells[-2:]]
    client = nbclient.NotebookClient(
        nb, timeout=60, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}}
    )
    client.execute()
    assert "No training run found" in _text_outputs(nb)
