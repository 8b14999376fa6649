"""``python -m spacy_pii``: the ``spacy-pii`` command, where scripts are not on PATH."""

from .cli import app

app(prog_name="spacy-pii")
