"""A local demo page and JSON API: what the pipeline finds, masks and restores.

Needs the ``demo`` extra (FastAPI and uvicorn): ``pip install 'spacy-pii[demo]'``, then
``spacy-pii serve``. Nothing here is imported by ``import spacy_pii``.
"""

from __future__ import annotations

from typing import Any

__all__ = ["create_app"]


def create_app(*args: Any, **kwargs: Any) -> Any:
    """Build the FastAPI app; see :func:`spacy_pii.serve.app.create_app`."""
    from .app import create_app as build

    return build(*args, **kwargs)
