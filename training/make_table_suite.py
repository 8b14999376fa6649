"""Write the table suite (corpus/tables): generated tables and their column-level gold."""

from __future__ import annotations

import sys
from pathlib import Path

from spacy_pii.tables.suite import HELD_OUT, write_suite


def main(folder: str = "corpus/tables") -> None:
    for path in write_suite(Path(folder)):
        print(path)
    for path in write_suite(Path(folder) / "heldout", specs=HELD_OUT):
        print(path)


if __name__ == "__main__":
    main(*sys.argv[1:])
