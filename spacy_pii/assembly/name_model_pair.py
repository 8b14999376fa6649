"""Two trained name models in one pipeline, their spans scored by the mean of both.

Two runs of the multilingual recipe with different seeds, each an encoder (``tok2vec``), a
span finder and ``pii_ner``, are put side by side: the first run's components keep their
names, the second's get :data:`SECOND` appended to theirs and to the span groups they
write, and their listeners listen to the second encoder. ``pii_ner_mean`` then writes
:data:`NAMES_KEY` from both ``pii_ner`` groups, and ``pii_merge`` (and a ranker fitted later)
read that group instead of ``pii_ner``.

The second run's config blocks are copied as they were trained, so a pair can be built from
any two runs of one config; runs of different configs are refused.
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import spacy
from spacy.language import Language
from thinc.api import Config

from ..errors import ConfigError

# What the second run's components and span groups are called: their own names plus this.
SECOND = "_2"
# The span group of the pair's mean, which the ranker and the merge read.
NAMES_KEY = "pii_names"
MEAN_NAME = "pii_ner_mean"
# The components of one run of the recipe, in pipeline order.
RUN_COMPONENTS = ("tok2vec", "span_finder", "pii_ner")


def pair_name_models(first: str | Path, second: str | Path) -> Language:
    """The first run's pipeline with the second run's name model beside its own.

    Raises:
        ConfigError: either folder is not a pipeline with :data:`RUN_COMPONENTS`, or the two
            runs' model blocks differ (they are not one recipe).
    """
    first, second = Path(first), Path(second)
    configs = [_config(path) for path in (first, second)]
    for name in RUN_COMPONENTS:
        if configs[0]["components"][name]["model"] != configs[1]["components"][name]["model"]:
            raise ConfigError(f"the two runs' {name} models differ: not one recipe")
    config = _paired_config(configs[0], configs[1])
    nlp = spacy.util.load_model_from_config(config, auto_fill=True, validate=True)
    added = [f"{name}{SECOND}" for name in RUN_COMPONENTS]
    nlp.from_disk(first, exclude=[*added, MEAN_NAME])
    for name in RUN_COMPONENTS:
        component: Any = nlp.get_pipe(f"{name}{SECOND}")
        component.from_disk(second / name, exclude=["vocab"])
    return nlp


def _config(path: Path) -> Config:
    if not (path / "config.cfg").is_file():
        raise ConfigError("a name model must be a trained pipeline folder")
    config = spacy.util.load_config(path / "config.cfg", interpolate=True)
    pipeline = config["nlp"]["pipeline"]
    if any(name not in pipeline for name in (*RUN_COMPONENTS, "pii_merge")):
        raise ConfigError(
            f"a name model's pipeline must hold {', '.join(RUN_COMPONENTS)}, pii_merge"
        )
    # A ranker fitted on one run's pii_ner would go on reading that group alone; the pair's
    # ranker is fitted afterwards, on the mean (training/fit_ranker_ml.py).
    if any(config["components"][name].get("factory") == "pii_span_ranker" for name in pipeline):
        raise ConfigError("pair the trained runs before a span ranker is fitted")
    return config


def _paired_config(first: Config, second: Config) -> Config:
    config = copy.deepcopy(first)
    components: dict[str, Any] = config["components"]
    theirs = copy.deepcopy(second["components"])
    span_finder, ner = theirs["span_finder"], theirs["pii_ner"]
    # Every span group the second run writes or reads is renamed alike, so its pii_ner reads
    # its own span finder's candidates as it did alone.
    for block in (span_finder, ner, ner["suggester"], ner.get("scorer", {})):
        if "spans_key" in block:
            block["spans_key"] = f"{block['spans_key']}{SECOND}"
    for block in (span_finder, ner):
        block["model"]["tok2vec"]["upstream"] = f"tok2vec{SECOND}"
    for name in RUN_COMPONENTS:
        components[f"{name}{SECOND}"] = theirs[name]
    components[MEAN_NAME] = {
        "factory": MEAN_NAME,
        "input_keys": [components["pii_ner"]["spans_key"], ner["spans_key"]],
        "spans_key": NAMES_KEY,
        "scorer": {"@scorers": "pii.spans_scorer.v1", "spans_key": NAMES_KEY},
    }
    merge = components["pii_merge"]
    merge["candidate_keys"] = [
        NAMES_KEY if key == components["pii_ner"]["spans_key"] else key
        for key in merge["candidate_keys"]
    ]
    pipeline = list(config["nlp"]["pipeline"])
    at = pipeline.index("pii_ner") + 1
    pipeline[at:at] = [*(f"{name}{SECOND}" for name in RUN_COMPONENTS), MEAN_NAME]
    config["nlp"]["pipeline"] = pipeline
    return config
