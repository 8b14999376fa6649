"""The pure core: hits, the taxonomy, overlap resolution, propagation, span conventions,
quasi-identifier combinations and the window plan for long documents.

Nothing here imports spaCy; the components in :mod:`spacy_pii.pipeline` adapt it.
"""
