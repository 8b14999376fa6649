"""The shipped pipeline as a wheel: built by ``spacy package``, installed offline, loaded by name.

A user gets a packaged pipeline with ``pip install en_pii_...whl`` and loads it with
``spacy.load("en_pii_...")``, never importing spacy_pii. That works only if spaCy finds
``pii_rules``, ``pii_ner`` and ``pii_merge`` through spacy-pii's ``spacy_factories`` entry
points (pyproject.toml): the wheel is built here without ``--code``, so nothing in it
imports spacy_pii. A second run hides spacy-pii's entry points and must fail to load, which
shows the first run's success depends on them. A third installs both wheels, spacy-pii's and
the model's, into a fresh virtual environment, offline, and runs the user's commands there:
``spacy.load`` by name, an override of a setting, and ``spacy evaluate`` with no ``--code``.

``spacy package --build wheel`` runs ``python -m build`` in an isolated environment, which
downloads setuptools; tests take nothing from the network, so the package folder is built
with ``--build none`` and the wheel with ``python -m build --no-isolation`` (the same
``setup.py``, this environment's setuptools).
"""

from __future__ import annotations

import ast
import json
import os
import shutil
import subprocess
import sys
import zipfile
from importlib.metadata import PackageNotFoundError, distribution
from pathlib import Path

import pytest
import srsly

import spacy_pii

REPO = Path(__file__).resolve().parents[1]
MODEL = REPO / "spacy_pii" / "models" / "en_pii_default"
NAME, VERSION = "pii_default", spacy_pii.__version__
PACKAGE = f"en_{NAME}"
PIPE_NAMES = [
    "pii_rules",
    "tok2vec",
    "span_finder",
    "pii_ner",
    "pii_peer_tagger",
    "pii_peer_spans",
    "pii_span_ranker",
    "pii_merge",
]
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
def wheels(tmp_path_factory) -> tuple[Path, Path]:
    """Build the shipped pipeline's wheel and spacy-pii's wheel, offline, as `package` does."""
    if not (MODEL / "config.cfg").is_file():
        pytest.skip(
            "no shipped pipeline in spacy_pii/models/en_pii_default (spacy project run ship)"
        )
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
    # spacy-pii is built from a copy of what its wheel holds: a build in the repository
    # would leave build/ and an egg-info there, whose metadata shadows the installed one
    # for any process started in the repository's root.
    source_tree = root / "spacy-pii"
    source_tree.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy2(REPO / name, source_tree / name)
    shutil.copytree(
        REPO / "spacy_pii",
        source_tree / "spacy_pii",
        ignore=shutil.ignore_patterns("__pycache__", "*.pyc"),
    )
    for source in (root / "packages" / f"{PACKAGE}-{VERSION}", source_tree):
        done = _run(
            [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation",
             "--no-index", "--wheel-dir", str(root / "dist"), str(source)],
            root,
        )  # fmt: skip
        assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    (model_wheel,) = (root / "dist").glob(f"{PACKAGE}-{VERSION}-*.whl")
    (pii_wheel,) = (root / "dist").glob(f"spacy_pii-{VERSION}-*.whl")
    return model_wheel, pii_wheel


@pytest.fixture(scope="module")
def installed_wheel(wheels, tmp_path_factory) -> tuple[Path, Path]:
    """The model wheel installed alone, offline, into a folder (spacy-pii from this env)."""
    wheel, _ = wheels
    root = tmp_path_factory.mktemp("site")
    done = _run(
        [sys.executable, "-m", "pip", "install", "--no-deps", "--no-index", "--no-compile",
         "--disable-pip-version-check", "--target", str(root / "site"), str(wheel)],
        root,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    return wheel, root / "site"


# The user's program in the fresh environment: load by name, run, override, report.
VENV_SCRIPT = f"""
import json
import sys
from importlib.metadata import distribution, requires

import spacy
from packaging.requirements import Requirement

text = "Ruf 030 1234567 an. " + {TEXT!r}
nlp = spacy.load({PACKAGE!r})
doc = nlp(text)
tuned = spacy.load({PACKAGE!r}, config={{"components": {{
    "pii_rules": {{"phone_regions": ["DE"]}}, "pii_merge": {{"write_ents": True}},
    "pii_ner": {{"threshold": 1.0}}}}}})
tuned_doc = tuned(text)
import spacy_pii
needs = [Requirement(r) for r in requires({PACKAGE!r}) if r.startswith("spacy-pii")]
print(json.dumps({{
    "spacy_pii_file": spacy_pii.__file__,
    "spacy_pii_version": distribution("spacy-pii").version,
    "needs": [str(r) for r in needs],
    "met": all(r.specifier.contains(distribution("spacy-pii").version) for r in needs),
    "meta": [nlp.meta["name"], nlp.meta["version"]],
    "spans": [[s.label_, s.text] for s in doc.spans["pii"]],
    "ents": [[e.label_, e.text] for e in doc.ents],
    "tuned_spans": [[s.label_, s.text] for s in tuned_doc.spans["pii"]],
    "tuned_ents": [[e.label_, e.text] for e in tuned_doc.ents],
    "model_spans": [[s.label_, s.text] for s in doc.spans["pii_ner"]],
    "tuned_model_spans": [[s.label_, s.text] for s in tuned_doc.spans["pii_ner"]],
}}))
"""


@pytest.fixture(scope="module")
def fresh_venv(wheels, tmp_path_factory) -> Path:
    """A new virtual environment with both wheels installed offline; returns its python.

    Third-party dependencies (spaCy, pydantic, ...) come from this environment's
    site-packages through a ``.pth`` file, since nothing may be downloaded; spacy-pii and
    the model come only from the wheels (a ``.pth`` path adds no package's ``.pth`` hooks,
    so this environment's editable spacy-pii is not importable there).
    """
    model_wheel, pii_wheel = wheels
    assert pii_wheel.parent == model_wheel.parent  # one --find-links folder holds both
    root = tmp_path_factory.mktemp("venv")
    venv = root / "venv"
    done = _run([sys.executable, "-m", "venv", "--without-pip", str(venv)], root)
    assert done.returncode == 0, done.stderr[-2000:]
    python = venv / "bin" / "python"
    site_dir = _run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"], root
    ).stdout.strip()
    third_party = [p for p in sys.path if p.endswith(("site-packages", "dist-packages"))]
    (Path(site_dir) / "third_party.pth").write_text("\n".join(third_party) + "\n")
    done = _run(
        [str(python), "-m", "pip", "install", "--no-index", "--find-links", str(model_wheel.parent),
         "--no-deps", "--force-reinstall", "--no-compile", "--disable-pip-version-check",
         "spacy-pii", PACKAGE],
        root,
        env={**os.environ, "PYTHONNOUSERSITE": "1"},
    )  # fmt: skip
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    return python


def _gold_docbin(path: Path) -> None:
    import spacy
    from spacy.tokens import DocBin

    nlp = spacy.blank("en")
    docs = []
    for text, spans in [
        ("Mail maria.gonzalez@example.com now.", [(5, 31, "EMAIL")]),
        ("Card 4111 1111 1111 1111 was used.", [(5, 24, "PAYMENT")]),
    ]:
        doc = nlp.make_doc(text)
        doc.spans["pii"] = [doc.char_span(s, e, label=label) for s, e, label in spans]
        docs.append(doc)
    DocBin(docs=docs, store_user_data=False).to_disk(path)


@pytest.mark.slow(reason="builds two wheels and installs them into a fresh venv: about 1 min")
def test_both_wheels_install_offline_into_a_fresh_venv_and_load_by_name(fresh_venv, tmp_path):
    env = {**os.environ, "PYTHONNOUSERSITE": "1"}
    env.pop("PYTHONPATH", None)
    done = _run([str(fresh_venv), "-c", VENV_SCRIPT], tmp_path, env=env, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    result = json.loads(done.stdout.strip().splitlines()[-1])
    # spacy_pii is the wheel's copy, inside the fresh environment.
    assert Path(result["spacy_pii_file"]).is_relative_to(fresh_venv.parent.parent)
    assert result["spacy_pii_version"] == VERSION
    # The model wheel names its dependency, and the installed spacy-pii meets it.
    assert result["needs"] and result["met"], result["needs"]
    assert result["meta"] == [NAME, VERSION]
    assert ["EMAIL", "maria.gonzalez@example.com"] in result["spans"]
    assert result["ents"] == []
    # Overrides of the packaged pipeline take effect: a German number, and doc.ents.
    assert ["PHONE", "030 1234567"] not in result["spans"]
    assert ["PHONE", "030 1234567"] in result["tuned_spans"]
    assert result["tuned_ents"] == result["tuned_spans"]
    # ... and a threshold no probability reaches silences the model.
    assert ["PERSON", "Maria Gonzalez"] in result["model_spans"]
    assert result["tuned_model_spans"] == []


@pytest.mark.slow(reason="builds two wheels and installs them into a fresh venv: about 1 min")
def test_spacy_evaluate_runs_on_the_installed_package_without_code(fresh_venv, tmp_path):
    _gold_docbin(tmp_path / "gold.spacy")
    env = {**os.environ, "PYTHONNOUSERSITE": "1"}
    env.pop("PYTHONPATH", None)
    done = _run(
        [str(fresh_venv), "-m", "spacy", "evaluate", PACKAGE, str(tmp_path / "gold.spacy"),
         "--output", str(tmp_path / "scores.json"), "--spans-key", "pii"],
        tmp_path,
        env=env,
        timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    scores = srsly.read_json(tmp_path / "scores.json")
    assert scores["spans_pii_r"] == 1.0
    assert set(scores["spans_pii_per_type"]) >= {"EMAIL", "PAYMENT"}


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
    assert result["pipe_modules"]["pii_rules"] == "spacy_pii.pipeline.pii_rules"
    assert result["pipe_modules"]["pii_ner"] == "spacy_pii.pipeline.pii_ner"
    assert result["pipe_modules"]["pii_merge"] == "spacy_pii.pipeline.pii_merge"
    assert ["PERSON", "Maria Gonzalez"] in result["spans"]
    assert ["EMAIL", "maria.gonzalez@example.com"] in result["spans"]
    assert ["PAYMENT", "4111 1111 1111 1111"] in result["spans"]


@pytest.mark.slow(reason="builds a 25 MB wheel and loads it in two fresh processes: about 1 min")
def test_installed_wheel_does_not_load_without_spacy_pii_entry_points(installed_wheel, tmp_path):
    _, site = installed_wheel
    done = _load_in_fresh_process(site, tmp_path, preamble=HIDE_SPACY_PII_ENTRY_POINTS)
    assert done.returncode != 0
    # The [nlp] block's functions are the first registered names spaCy resolves: without the
    # entry points, the lookup of one of ours fails (E893, "Could not find function ...").
    assert "E893" in done.stderr
    assert "'pii.numpy_blas_ops.v1'" in done.stderr or "'pii.guarded_tokenizer.v1'" in done.stderr
