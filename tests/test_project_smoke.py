"""The spaCy project runs: the `ci` workflow end to end in a temporary copy of the repo.

Like explosion/projects' own tests, it calls weasel's ``project_run`` on the project
folder; the copy keeps the run's outputs out of the working tree. The workflow builds a
small corpus, trains configs/cpu.cfg for a few steps without static vectors and scores the
result with ``spacy evaluate`` and ``spacy-pii evaluate``.
"""

from __future__ import annotations

import json
import shutil
from importlib.metadata import entry_points
from pathlib import Path

import pytest
import srsly

REPO = Path(__file__).resolve().parents[1]
# What the ci workflow reads: the project file, configs, the thin scripts, and the two
# external corpora that the corpus builder folds in (the package itself is installed).
COPY = ("project.yml", "configs", "training/make_corpus.py", "training/convert.py",
        "corpus/external")  # fmt: skip


def _factory_installed(name: str) -> bool:
    return any(ep.name == name for ep in entry_points(group="spacy_factories"))


@pytest.fixture
def project(tmp_path):
    root = tmp_path / "project"
    for item in COPY:
        source, target = REPO / item, root / item
        target.parent.mkdir(parents=True, exist_ok=True)
        if source.is_dir():
            shutil.copytree(source, target)
        else:
            shutil.copyfile(source, target)
    return root


def test_project_file_names_the_documented_workflows():
    config = srsly.read_yaml(REPO / "project.yml")
    commands = {c["name"] for c in config["commands"]}
    assert config["workflows"]["all"] == [
        "corpus", "vectors", "convert", "train", "evaluate", "calibrate", "peer-silver",
        "train-peer", "add-peer", "fit-ranker", "evaluate-real", "evaluate-real-wide", "gate",
        "package",
    ]  # fmt: skip
    for workflow in config["workflows"].values():
        assert set(workflow) <= commands
    assert {"train-trf", "ship", "transformer"} <= commands


@pytest.mark.slow  # about 90 s on 2 shared cores: five processes, each importing spaCy
@pytest.mark.skipif(
    not _factory_installed("pii_ner"),
    reason="`spacy-pii evaluate` loads the model in a fresh process, which needs the "
    "pii_ner entry point in pyproject.toml installed (pip install -e .)",
)
def test_ci_workflow_trains_and_evaluates(project):
    from weasel.cli.run import project_run

    project_run(project, "ci", capture=True)
    out = project / "training" / "output" / "ci"
    model = out / "model" / "model-last"
    assert {"pii_rules", "tok2vec", "span_finder", "pii_ner", "pii_merge"} <= {
        p.name for p in model.iterdir() if p.is_dir()
    }
    scores = json.loads((out / "spacy_scores.json").read_text())
    assert "spans_pii_f" in scores and "spans_pii_ner_f" in scores
    metrics = json.loads((out / "metrics.json").read_text())
    assert metrics["kind"] == "spacy-pii.metrics"
    # The rule lane alone finds structured PII, so a 20-step model still scores on EMAIL.
    assert metrics["evaluation"]["per_label"]["EMAIL"]["tp"] > 0
