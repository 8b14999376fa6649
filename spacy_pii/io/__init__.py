"""Input and output: the ``spacy-pii`` command line, file streaming, records from docs,
documents of any length through windows, and the Spark helper."""
