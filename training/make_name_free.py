"""Write corpus/external/clinical_name_free.jsonl: real clinical notes that hold no names.

    python training/make_name_free.py --lexicons ../shared/lexicons

From the shared lexicons' ``synthetic_clinical_notes.jsonl`` (ACI-Bench and MTS-Dialog, CC
BY 4.0; Apache cTAKES examples, Apache-2.0; corpus/SOURCES.md) it keeps the documents whose
name heuristic dropped nothing, each text once. Two kinds of line are removed:
- a line that the clinical precision set (``corpus/precision/clinical.jsonl``) also holds,
  so that the two sets never score one line twice;
- a line that names an institution ("General Hospital", "Hand Clinic"): those are
  organisations, which these documents do not label.
The same inputs write the same file.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Annotated

import typer

from spacy_pii.generator.corpus import read_jsonl, write_jsonl
from spacy_pii.generator.name_free import NAME_FREE_FILE, SOURCE_PREFIX, is_held_out

ROOT = Path(__file__).resolve().parents[1]
PRECISION_CLINICAL = ROOT / "corpus" / "precision" / "clinical.jsonl"
OUT = ROOT / "corpus" / "external" / NAME_FREE_FILE
INSTITUTION = re.compile(
    r"\b[A-Z][\w&.-]*\s+(?:Hospital|Clinic|Center|Centre|University|Institute|Medical|Health)\b"
)


def main(
    lexicons: Annotated[Path, typer.Option()] = ROOT.parent / "shared" / "lexicons",
    precision: Annotated[Path, typer.Option()] = PRECISION_CLINICAL,
    out: Annotated[Path, typer.Option()] = OUT,
) -> None:
    scored_lines = {
        line.strip()
        for doc in read_jsonl(precision)
        for line in doc["text"].splitlines()
        if line.strip()
    }
    docs, removed = [], 0
    for note in read_jsonl(lexicons / "synthetic_clinical_notes.jsonl"):
        if not note["name_free_heuristic"]:
            continue
        kept = []
        for line in note["text"].splitlines():
            if line.strip() in scored_lines or INSTITUTION.search(line):
                removed += 1
                continue
            kept.append(line)
        text = "\n".join(kept).strip()
        if not text:
            continue
        meta = {
            "source": f"{SOURCE_PREFIX}{note['source']}",
            "doc_id": f"{note['source']}/{note['doc_id']}",
            "licence": note["licence"],
        }
        docs.append({"text": text, "spans": [], "meta": meta})
    docs.sort(key=lambda d: d["meta"]["doc_id"])
    # Some note sections recur word for word under other ids; one copy is kept, so that no
    # text is both held out and not.
    seen: set[str] = set()
    docs = [d for d in docs if not (d["text"] in seen or seen.add(d["text"]))]
    write_jsonl(out, docs)
    held = sum(is_held_out(d["meta"]["doc_id"]) for d in docs)
    words = sum(len(d["text"].split()) for d in docs)
    print(f"wrote {out}: {len(docs)} documents ({held} held out), {words} words")
    print(f"{removed} lines removed (in the precision set, or naming an institution)")


if __name__ == "__main__":
    typer.run(main)
