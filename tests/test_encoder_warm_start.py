"""pii.copy_encoder_weights.v1: our tok2vec starts from a donor NER's encoder, exactly."""

from __future__ import annotations

import numpy
import pytest
import spacy
from spacy.training import Example
from spacy.util import registry

from spacy_pii.errors import ConfigError

# The architecture of configs/cpu.cfg's tok2vec and of en_core_web_md's NER encoder, with
# the vectors switched off so that the test needs no vector table.
TOK2VEC = {
    "@architectures": "spacy.Tok2Vec.v2",
    "embed": {
        "@architectures": "spacy.MultiHashEmbed.v2",
        "width": 96,
        "attrs": ["NORM", "PREFIX", "SUFFIX", "SHAPE"],
        "rows": [5000, 1000, 2500, 2500],
        "include_static_vectors": False,
    },
    "encode": {
        "@architectures": "spacy.MaxoutWindowEncoder.v2",
        "width": 96,
        "depth": 4,
        "window_size": 1,
        "maxout_pieces": 3,
    },
}


def _donor(path, tok2vec=TOK2VEC):
    nlp = spacy.blank("en")
    ner = nlp.add_pipe("ner", config={"model": {
        "@architectures": "spacy.TransitionBasedParser.v2", "state_type": "ner",
        "extra_state_tokens": False, "hidden_width": 64, "maxout_pieces": 2,
        "use_upper": True, "tok2vec": tok2vec}})  # fmt: skip
    ner.add_label("PERSON")
    doc = nlp.make_doc("Ada Lovelace wrote it")
    example = Example.from_dict(doc, {"entities": ["B-PERSON", "L-PERSON", "O", "O"]})
    nlp.initialize(lambda: [example])
    nlp.to_disk(path)
    return nlp


def _ours():
    nlp = spacy.blank("en")
    nlp.add_pipe("tok2vec", config={"model": TOK2VEC})
    nlp.initialize()
    return nlp


def _encoder_params(model) -> list[numpy.ndarray]:
    return [
        numpy.asarray(node.get_param(name))
        for node in model.walk()
        for name in node.param_names
        if node.has_param(name)
    ]


def test_the_donor_encoder_is_copied_weight_for_weight(tmp_path):
    donor = _donor(tmp_path / "donor")
    ours = _ours()
    donor_encoder = next(
        n
        for n in donor.get_pipe("ner").model.walk()
        if n.name == ours.get_pipe("tok2vec").model.name
    )
    before = _encoder_params(ours.get_pipe("tok2vec").model)
    callback = registry.callbacks.get("pii.copy_encoder_weights.v1")(source=str(tmp_path / "donor"))
    callback(ours)
    after = _encoder_params(ours.get_pipe("tok2vec").model)
    expected = _encoder_params(donor_encoder)
    assert len(after) == len(expected) > 10
    assert all(numpy.array_equal(a, e) for a, e in zip(after, expected, strict=True))
    assert not all(numpy.array_equal(a, b) for a, b in zip(after, before, strict=True))
    # The copied encoder gives the donor's features.
    doc = ours.make_doc("Ada Lovelace wrote it")
    ours_out = ours.get_pipe("tok2vec").model.predict([doc])[0]
    donor_out = donor_encoder.predict([donor.make_doc("Ada Lovelace wrote it")])[0]
    assert numpy.allclose(ours_out, donor_out)


def test_no_source_leaves_the_encoder_alone():
    ours = _ours()
    before = _encoder_params(ours.get_pipe("tok2vec").model)
    registry.callbacks.get("pii.copy_encoder_weights.v1")(source=None)(ours)
    after = _encoder_params(ours.get_pipe("tok2vec").model)
    assert all(numpy.array_equal(a, b) for a, b in zip(after, before, strict=True))


def test_a_donor_of_another_shape_is_a_config_error(tmp_path):
    narrow = {**TOK2VEC, "encode": {**TOK2VEC["encode"], "depth": 2}}
    _donor(tmp_path / "donor", tok2vec=narrow)
    callback = registry.callbacks.get("pii.copy_encoder_weights.v1")(source=str(tmp_path / "donor"))
    with pytest.raises(ConfigError, match="no encoder shaped like"):
        callback(_ours())
