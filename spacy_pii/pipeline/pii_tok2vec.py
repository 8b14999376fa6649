"""``pii_tok2vec``: spaCy's ``tok2vec`` component, batched by tokens for long documents.

The same component (model, listeners, training, serialization) with two differences that
bound its memory on long documents: its default model is ``pii.windowed_tok2vec.v1``
(spaCy's default encoder, run over bounded windows), and ``pipe`` cuts its batches at
:data:`~spacy_pii.adapters.token_batches.BATCH_TOKENS` tokens, so a few long documents
are never encoded and held at once. Listeners find it by its name, as they find spaCy's.
"""

from __future__ import annotations

from spacy.language import Language
from spacy.pipeline import Tok2Vec
from spacy.tokens import Doc
from thinc.api import Config, Model
from thinc.types import Floats2d

from ..adapters.token_batches import TokenBoundedPipe

# spaCy's default tok2vec model (spacy.HashEmbedCNN.v2: width 96, depth 4, 2000 rows,
# window 1, 3 pieces, subword features), spelled out as embed and encode so that the
# windows wrap it.
DEFAULT_PII_TOK2VEC_MODEL = Config().from_str(
    """
[model]
@architectures = "pii.windowed_tok2vec.v1"
window_tokens = 4096
context_tokens = null

[model.embed]
@architectures = "spacy.MultiHashEmbed.v2"
width = 96
attrs = ["NORM", "PREFIX", "SUFFIX", "SHAPE"]
rows = [2000, 1000, 1000, 1000]
include_static_vectors = false

[model.encode]
@architectures = "spacy.MaxoutWindowEncoder.v2"
width = 96
depth = 4
window_size = 1
maxout_pieces = 3
"""
)["model"]


class PiiTok2Vec(TokenBoundedPipe, Tok2Vec):
    """spaCy's :class:`~spacy.pipeline.Tok2Vec` with token-bounded batches."""


@Language.factory(
    "pii_tok2vec", assigns=["doc.tensor"], default_config={"model": DEFAULT_PII_TOK2VEC_MODEL}
)
def make_pii_tok2vec(
    nlp: Language, name: str, model: Model[list[Doc], list[Floats2d]]
) -> PiiTok2Vec:
    """Token vectors for the components that listen to ``name``, in ``doc.tensor``.

    Args:
        model: the encoder: docs in, one vector per token out
            (``pii.windowed_tok2vec.v1`` keeps its memory bounded on long documents).
    """
    return PiiTok2Vec(nlp.vocab, model, name)
