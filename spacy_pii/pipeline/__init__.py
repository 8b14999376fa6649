"""spaCy adapters over the pure core.

One component factory per module (``rules``, ``ner``, ``merge``, ``redact``), the registered
scorer (``scorer``) and displaCy colours (``colors``), plus the adapter helpers they share:
hits <-> span groups (``spans``), docs -> output records (``stream``), and whole-pipeline
assembly (``assemble``).
"""
