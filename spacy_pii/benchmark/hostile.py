"""Hostile inputs: texts built to make a tokenizer or a pipeline super-linear.

Each family is a function of the wanted length, so that a test can time one family at two
lengths and check that the time grows with the length, not with its square. Run as a
script, it times each family through the rules pipeline, the default pipeline and the pure
rule lane (``find_rule_hits``) and prints seconds::

    python -m spacy_pii.benchmark.hostile --sizes 100000 1000000 --pipelines rules
"""

from __future__ import annotations

import argparse
import gc
import itertools
import string
import time
from collections.abc import Callable


def _repeat(unit: str, length: int) -> str:
    return (unit * (length // len(unit) + 1))[:length]


def _cycle(units: Callable[[int], str], length: int) -> str:
    pieces: list[str] = []
    size = 0
    for index in itertools.count():
        piece = units(index)
        pieces.append(piece)
        size += len(piece)
        if size >= length:
            break
    return "".join(pieces)[:length]


def _nested_brackets(length: int) -> str:
    half = length // 2
    return "(" * half + ")" * (length - half)


def _punctuation_runs(length: int) -> str:
    return _repeat("!?.,;:-([{<>}])'\"*&^%$#", length)


def _word_colon(length: int) -> str:
    return _repeat("a:", length)


def _titles_names(length: int) -> str:
    return _repeat("Mr. Smith ", length)


def _csv_names(length: int) -> str:
    header = "first_name,last_name,username\n"
    rows = _cycle(lambda i: f"Ada{i},Lovelace{i},ada{i}\n", max(0, length - len(header)))
    return header + rows


def _hashtag_names(length: int) -> str:
    # A name in every tag: thousands of hits, each a token split (one long tag of parts that
    # no table holds is in tests/test_context_cues.py).
    return _cycle(lambda i: f"#MaryJones{i} ", length)


def _glued_cards(length: int) -> str:
    return _repeat("4242424242424242", length)


def _glued_emails(length: int) -> str:
    return _cycle(lambda i: f"ada{i}@example.com", length)


def _digit_separators(length: int) -> str:
    return _repeat("12-34.56 78/90(12)34+56_78,90:12\u00a034", length)


def _base64_token(length: int) -> str:
    alphabet = string.ascii_letters + string.digits + "+/"
    return "".join(alphabet[(i * 7 + i // 64) % 64] for i in range(length - 2)) + "=="


def _hex_token(length: int) -> str:
    return "".join("0123456789abcdef"[(i * 5 + i // 16) % 16] for i in range(length))


def _url_token(length: int) -> str:
    head = "https://example.com/"
    return head + _repeat("a%2Fb?c=d&e=f;g~h#i%3A", length - len(head))


# name -> builder(length) -> text of exactly that length.
FAMILIES: dict[str, Callable[[int], str]] = {
    "nested_brackets": _nested_brackets,
    "punctuation_runs": _punctuation_runs,
    "word_colon": _word_colon,
    "titles_names": _titles_names,
    "csv_names": _csv_names,
    "hashtag_names": _hashtag_names,
    "glued_cards": _glued_cards,
    "glued_emails": _glued_emails,
    "digit_separators": _digit_separators,
    "base64_token": _base64_token,
    "hex_token": _hex_token,
    "url_token": _url_token,
}


def seconds(
    run: Callable[[str], object],
    text: str,
    *,
    repeats: int = 1,
    clock: Callable[[], float] = time.perf_counter,
) -> float:
    """The fastest of ``repeats`` runs of ``run(text)``, in seconds, with the collector paused.

    A full collection walks every live object of the process, so in a large process (a test
    session) a big input pays for the objects that other code left behind; pausing the
    collector times the work of the run itself. ``clock`` is wall time by default;
    ``time.process_time`` counts this process's CPU time only, which other processes on a
    shared machine do not inflate.
    """
    best = float("inf")
    for _ in range(repeats):
        gc.collect()
        gc.disable()
        try:
            start = clock()
            run(text)
            best = min(best, clock() - start)
        finally:
            gc.enable()
    return best


def growth_ratio(
    run: Callable[[str], object],
    small: str,
    large: str,
    *,
    rounds: int = 2,
    limit: float | None = None,
) -> float:
    """How many times longer ``run(large)`` takes than ``run(small)``, in CPU seconds.

    Both sizes are warmed first: lazy imports, and the one-off cost of a first call at a new
    size (buffers the small text never needed), which is not growth. Each timed call gets a
    text no cache has seen: spaCy's tokenizer caches every whitespace-free run, and many
    hostile texts are one long run, so each call's text ends in a new number. The machine
    may be shared, so this is the CPU time of this process (which other processes do not
    add to), the fastest of three calls at the small size and one at the large size per
    round, sizes alternating so that a busy spell slows both; after the first round, a
    further round runs only while the ratio is above ``limit``.
    """
    calls = itertools.count()

    def fresh(text: str) -> object:
        return run(f"{text} {next(calls)}")

    fresh(small)
    fresh(large)
    best_small = best_large = float("inf")
    for _ in range(rounds):
        best_small = min(best_small, seconds(fresh, small, repeats=3, clock=time.process_time))
        best_large = min(best_large, seconds(fresh, large, clock=time.process_time))
        if limit is not None and best_large / max(best_small, 1e-4) <= limit:
            break
    return best_large / max(best_small, 1e-4)


def main(argv: list[str] | None = None) -> None:
    from ..assembly.build import load_pipeline
    from ..detectors import find_rule_hits

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000])
    parser.add_argument("--families", nargs="+", default=list(FAMILIES), choices=list(FAMILIES))
    parser.add_argument("--pipelines", nargs="+", default=["rules", "default"])
    parser.add_argument(
        "--growth",
        type=float,
        metavar="LIMIT",
        help="print each pipeline's growth ratio from the first size to the last instead "
        "(growth_ratio: CPU time, a fresh text per call), with up to --rounds rounds while "
        "a ratio is above LIMIT",
    )
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args(argv)
    runners: dict[str, Callable[[str], object]] = {"find_rule_hits": find_rule_hits}
    for name in args.pipelines:
        nlp = load_pipeline(name)
        nlp.max_length = max(args.sizes) + 100  # the fresh-text suffix
        runners[f"nlp[{name}]"] = nlp
    if args.growth is not None:
        small, large = min(args.sizes), max(args.sizes)
        print(f"family\t{small}->{large}\t" + "\t".join(runners))
        worst = dict.fromkeys(runners, 0.0)
        for family in args.families:
            build = FAMILIES[family]
            cells = []
            for name, run in runners.items():
                ratio = growth_ratio(
                    run, build(small), build(large), rounds=args.rounds, limit=args.growth
                )
                worst[name] = max(worst[name], ratio)
                cells.append(f"{ratio:.2f}")
            print(f"{family}\t\t" + "\t".join(cells), flush=True)
        print("worst\t\t" + "\t".join(f"{ratio:.2f}" for ratio in worst.values()))
        return
    print("family\tchars\t" + "\t".join(runners))
    for family in args.families:
        for size in args.sizes:
            text = FAMILIES[family](size)
            cells = [f"{seconds(run, text):.3f}" for run in runners.values()]
            print(f"{family}\t{size}\t" + "\t".join(cells), flush=True)


if __name__ == "__main__":
    main()
