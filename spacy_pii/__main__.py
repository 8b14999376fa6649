"""``python -m spacy_pii``: the ``spacy-pii`` command, where scripts are not on PATH."""

from .io.cli import app

if __name__ == "__main__":
    app(prog_name="spacy-pii")
