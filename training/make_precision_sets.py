"""Write the precision sets to ``corpus/precision/`` (committed; see its SOURCES.md).

    python training/make_precision_sets.py --lexicons ../shared/lexicons

The documents come from :mod:`spacy_pii.generator.precision`; the clinical notes also draw
name-free lines of public clinical text (``clinical_negative_lines.jsonl``: ACI-Bench and
MTS-Dialog, CC BY 4.0; cTAKES examples, Apache-2.0). The same arguments write the same files.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from spacy_pii.generator.precision import precision_set

ROOT = Path(__file__).resolve().parents[1]
SIZES = {"clinical": 300, "legal": 200, "developer": 240, "web": 240}
# Lines longer than this are narrative paragraphs, not note lines.
MAX_NEGATIVE_CHARS = 160


def main(
    lexicons: Annotated[Path, typer.Option()] = ROOT.parent / "shared" / "lexicons",
    out: Annotated[Path, typer.Option()] = ROOT / "corpus" / "precision",
    seed: Annotated[int, typer.Option()] = 0,
) -> None:
    negatives = []
    with (lexicons / "clinical_negative_lines.jsonl").open(encoding="utf-8") as handle:
        for line in handle:
            text = json.loads(line)["text"].strip()
            if 12 <= len(text) <= MAX_NEGATIVE_CHARS:
                negatives.append(text)
    negatives.sort()
    out.mkdir(parents=True, exist_ok=True)
    for domain, size in SIZES.items():
        docs = precision_set(domain, size, seed, negatives if domain == "clinical" else ())
        lines = "".join(json.dumps(d, ensure_ascii=False) + "\n" for d in docs)
        (out / f"{domain}.jsonl").write_text(lines, encoding="utf-8")
        names = sum(1 for d in docs for s in d["spans"] if s["label"] == "PERSON")
        words = sum(len(d["text"].split()) for d in docs)
        held = sum(d["meta"]["split"] == "held_out" for d in docs)
        print(f"{domain}: {size} docs ({held} held out), {words} words, {names} names")


if __name__ == "__main__":
    typer.run(main)
