"""What a spaCy config names: the components and the functions they register.

One component per module, named as its factory (``pii_rules``, ``pii_ner``, ``pii_merge``,
``pii_redact``, ``pii_span_finder``, ``pii_peer_spans``, ``pii_tok2vec``), the registered
tokenizers (``guarded_tokenizer``, ``whitespace_tokenizer``), the encoder over token windows
(``windowed_tok2vec``), ``pii_ner``'s suggester (``ngram_suggester``), the CPU model's BLAS
ops (``numpy_blas``), the span scorer (``spans_scorer``) and the displaCy colours
(``displacy_colors``). The code they
share lives in :mod:`spacy_pii.adapters`; whole-pipeline assembly in :mod:`spacy_pii.assembly`.
"""
