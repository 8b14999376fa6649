"""The shipped pipeline as a wheel: built by ``spacy package``, installed offline, loaded by name.

A user gets a packaged pipeline with ``pip install en_pii_...whl`` and loads it with
``spacy.load("en_pii_...")``, never importing spacy_pii. That works only if spaCy finds
``pii_rules``, ``pii_ner`` and ``pii_merge`` through spacy-pii's ``spacy_factories`` entry
points (pyproject.toml): the wheel is built here without ``--code``, so nothing in it
imports spacy_pii. A second run hides spacy-pii's entry points and must fail to load, which
shows the first run's success depends on them.

``spacy package --build wheel`` runs ``python -m build`` in an isolated environment, which
downloads setuptools; tests take nothing from the network, so the package folder is built
with ``--build none`` and the wheel with ``python -m build --no-isolation`` (the same
``setup.py``, this environment's setuptools).
"""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
import zipfile
from importlib.metadata import PackageNotFoundError, distribution
from importlib.util import find_spec
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
MODEL = REPO / "spacy_pii" / "models" / "en_pii_default"
NAME, VERSION = "pii_wheelcheck", "0.0.1"
PACKAGE = f"en_{NAME}"
PIPE_NAMES = ["pii_rules", "tok2vec", "span_finder", "pii_ner", "pii_merge"]
# One text with a name for pii_ner and two structured values for pii_rules: an RFC 5322
# address and the Visa test number 4111 1111 1111 1111 (Luhn-valid).
TEXT = (
    "Please ask Maria Gonzalez (maria.gonzalez@example.com) to pay with card 4111 1111 1111 1111."
)

# The whole user program: import spaCy, load the package by name. It reports which
# spacy_pii modules were loaded before and after, and where each pipe's class comes from.
LOAD_SCRIPT = f"""
import json
import sys

import spacy

before = sorted(m for m in sys.modules if m.split(".")[0] == "spacy_pii")
nlp = spacy.load({PACKAGE!r})
doc = nlp({TEXT!r})
print(json.dumps({{
    "package_file": sys.modules[{PACKAGE!r}].__file__,
    "before": before,
    "pipe_names": nlp.pipe_names,
    "pipe_modules": {{name: type(pipe).__module__ for name, pipe in nlp.pipeline}},
    "spans": [[s.label_, s.text] for s in doc.spans["pii"]],
}}))
"""

# Prepended for the control run: spaCy reads factories from catalogue's entry-point table,
# so dropping spacy-pii's entries from it is what an install without them would look like.
HIDE_SPACY_PII_ENTRY_POINTS = """
from importlib.metadata import EntryPoints, entry_points

import catalogue

found = entry_points()
catalogue.AVAILABLE_ENTRY_POINTS = EntryPoints(
    point for group in found.groups for point in found.select(group=group)
    if point.dist is None or point.dist.name.lower().replace("_", "-") != "spacy-pii"
)
"""


def _imported_modules(source: str) -> set[str]:
    found = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            found.add(node.module or "")
    return found


def _installed() -> bool:
    try:
        distribution("spacy-pii")
    except PackageNotFoundError:
        return False
    return True


def _run(args: list[str], cwd: Path, **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run(args, cwd=cwd, capture_output=True, text=True, check=False, **kwargs)


def _load_in_fresh_process(
    site: Path, cwd: Path, preamble: str = ""
) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(site), "PYTHONNOUSERSITE": "1"}
    return _run([sys.executable, "-c", preamble + LOAD_SCRIPT], cwd, env=env, timeout=300)


@pytest.fixture(scope="module")
def installed_wheel(tmp_path_factory) -> tuple[Path, Path]:
    """Build the shipped pipeline's wheel and install it, offline and alone, into a folder."""
    if not (MODEL / "config.cfg").is_file():
        pytest.skip(
            "no shipped pipeline in spacy_pii/models/en_pii_default (spacy project run ship)"
        )
    if find_spec("build") is None:
        pytest.skip("building the wheel needs the 'build' package (the dev extra)")
    if not _installed():
        pytest.skip("spacy-pii is not installed, so it has no entry points (pip install -e .)")
    root = tmp_path_factory.mktemp("wheel")
    (root / "packages").mkdir()
    done = _run(
        [sys.executable, "-m", "spacy", "package", str(MODEL), str(root / "packages"),
         "--name", NAME, "--version", VERSION, "--build", "none"],
        root,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    done = _run(
        [sys.executable, "-m", "build", "--wheel", "--no-isolation", "--outdir", str(root / "dist"),
         str(root / "packages" / f"{PACKAGE}-{VERSION}")],
        root,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    (wheel,) = (root / "dist").glob(f"{PACKAGE}-{VERSION}-*.whl")
    done = _run(
        [sys.executable, "-m", "pip", "install", "--no-deps", "--no-index", "--no-compile",
         "--disable-pip-version-check", "--target", str(root / "site"), str(wheel)],
        root,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    return wheel, root / "site"


@pytest.mark.slow(reason="builds a 25 MB wheel and loads it in two fresh processes: about 1 min")
def test_wheel_requires_spacy_pii_for_its_factories(installed_wheel):
    # spacy package adds the distribution that registers the config's factories, so a plain
    # `pip install` of the model wheel brings spacy-pii (and so its entry points) along.
    wheel, _ = installed_wheel
    with zipfile.ZipFile(wheel) as archive:
        (metadata,) = [n for n in archive.namelist() if n.endswith(".dist-info/METADATA")]
        requires = [
            line.split(":", 1)[1].strip().replace(" ", "")
            for line in archive.read(metadata).decode("utf-8").splitlines()
            if line.startswith("Requires-Dist:")
        ]
    assert any(r.startswith("spacy-pii") and "<0.2.0" in r for r in requires), requires
    assert any(r.startswith("spacy") and not r.startswith("spacy-pii") for r in requires)


@pytest.mark.slow(reason="builds a 25 MB wheel and loads it in two fresh processes: about 1 min")
def test_installed_wheel_loads_by_name_through_entry_points(installed_wheel, tmp_path):
    # The program imports spaCy and nothing of spacy_pii; it loads the package by name.
    assert _imported_modules(LOAD_SCRIPT) == {"json", "sys", "spacy"}
    _, site = installed_wheel
    done = _load_in_fresh_process(site, tmp_path)
    assert done.returncode == 0, done.stderr[-3000:]
    result = json.loads(done.stdout.strip().splitlines()[-1])
    # Loaded from the installed wheel, not from the repository's folder.
    assert Path(result["package_file"]).is_relative_to(site)
    # Nothing had imported spacy_pii before spacy.load: the entry points brought it in.
    assert result["before"] == []
    assert result["pipe_names"] == PIPE_NAMES
    assert result["pipe_modules"]["pii_rules"] == "spacy_pii.pipeline.rules"
    assert result["pipe_modules"]["pii_ner"] == "spacy_pii.pipeline.ner"
    assert result["pipe_modules"]["pii_merge"] == "spacy_pii.pipeline.merge"
    assert ["PERSON", "Maria Gonzalez"] in result["spans"]
    assert ["EMAIL", "maria.gonzalez@example.com"] in result["spans"]
    assert ["PAYMENT", "4111 1111 1111 1111"] in result["spans"]


@pytest.mark.slow(reason="builds a 25 MB wheel and loads it in two fresh processes: about 1 min")
def test_installed_wheel_does_not_load_without_spacy_pii_entry_points(installed_wheel, tmp_path):
    _, site = installed_wheel
    done = _load_in_fresh_process(site, tmp_path, preamble=HIDE_SPACY_PII_ENTRY_POINTS)
    assert done.returncode != 0
    # spaCy's E002: "Can't find factory for 'pii_rules' ...", the first pipe of the config.
    assert "E002" in done.stderr and "'pii_rules'" in done.stderr
