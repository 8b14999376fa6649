"""Code file for ``spacy train|evaluate|package --code``: registers pii_ner.

Until the ``spacy_factories`` entry point for pii_ner is installed, a fresh process finds
the factory only through this import. It also keeps the Hugging Face libraries offline:
the transformer config names a local folder and nothing may come from the network.
"""

import os

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

import spacy_pii.pipeline.ner  # noqa: F401
