"""Names and contact data in the languages of Europe: the multilingual dev suite.

    python training/evaluate_ml.py --model spacy_pii/models/xx_pii_default \
        --out metrics/ml [--speed]

The sets are the dev parts written by ``training/make_corpus_ml.py`` (``corpus/built_ml/dev``):
UNER dev (da, hr, pt, sk, sr, sv), the held-out tails of the Europeana files (de lft, de sbb,
fr, nl) and MEDDOCAN dev (es). Each set is run through ``spacy_pii.load(LANG)`` for its own
language, with ``--model`` as the name model. Per set it prints PERSON overlap P/R/F1, the
character leak (the share of gold name characters that no output span of any type covers)
and chars/s; for MEDDOCAN also name, e-mail, phone, id and street-address recall (overlap), and
the share of gold address characters that no output span covers. Presidio 2.2.366 on
fr_core_news_md (``supported_languages=["fr"]``) runs beside it on the French set, its
predictions cached in ``<out>/presidio_fr.json`` by text hash.

``--english`` scores the English real-text dev suite (spacy_pii.generator.real_text) with
the shipped English default and with the multilingual model behind English's tokenizer:
whether one model for all languages loses on English.

``--speed`` times ``load(LANG)`` for every supported language but English (or those of
``--speed-languages``) against Presidio full (en_core_web_sm, the benchmark's
``presidio_full`` row) on the benchmark's English short texts, in this one process.
Timings depend on the machine's load; the load average is printed with them.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from pathlib import Path
from typing import Annotated

import typer
from compare_presidio import fold_predictions

from spacy_pii.assembly.build import language_pipeline
from spacy_pii.core.languages import language_families, supported_languages
from spacy_pii.core.taxonomy import load_taxonomy
from spacy_pii.evaluation.documents import Document, read_documents
from spacy_pii.evaluation.ranker_fit import expected_calibration_error
from spacy_pii.evaluation.scoring import evaluate, leaked_share
from spacy_pii.generator.script_copies import original_set

ROOT = Path(__file__).resolve().parents[1]
LABEL = "PERSON"
Opt = typer.Option
FRENCH_MODEL = "fr_core_news_md"
# The set -> the language code its documents are in.
SET_LANGUAGES = {
    "uner_da": "da",
    "uner_hr": "hr",
    "uner_pt": "pt",
    "uner_sk": "sk",
    "uner_sr": "sr",
    "uner_sr_cyrl": "sr",
    "uner_sv": "sv",
    "europeana_de_lft": "de",
    "europeana_de_sbb": "de",
    "europeana_fr": "fr",
    "europeana_nl": "nl",
    "meddocan_es": "es",
}
# The targets of issue 25, per family: PERSON overlap F1, and the leak everywhere.
F1_TARGETS = {"uner": 0.85, "europeana": 0.70, "meddocan": 0.95}
LEAK_TARGET = 0.10


def _predict(nlp, gold: list[Document], taxonomy) -> tuple[list[Document], float]:
    predicted, chars_per_s, _ = _predict_scored(nlp, gold, taxonomy)
    return predicted, chars_per_s


def _predict_scored(
    nlp, gold: list[Document], taxonomy
) -> tuple[list[Document], float, list[tuple[float, bool]]]:
    """Predictions, chars/s, and each scored PERSON span's (score, touches a gold name)."""
    start = time.perf_counter()
    docs = list(nlp.pipe((d.text for d in gold), batch_size=32))
    elapsed = time.perf_counter() - start
    predicted = []
    scored: list[tuple[float, bool]] = []
    for doc, truth in zip(docs, gold, strict=True):
        group = doc.spans["pii"]
        spans = [{"start": s.start_char, "end": s.end_char, "label": s.label_} for s in group]
        predicted.append(Document.from_raw(doc.text, spans, taxonomy=taxonomy))
        names = [(g.start, g.end) for g in truth.spans if g.label == LABEL]
        for span, score in zip(group, group.attrs.get("scores", [None] * len(group)), strict=True):
            if span.label_ == LABEL and score is not None:
                hit = any(s < span.end_char and span.start_char < e for s, e in names)
                scored.append((float(score), hit))
    chars = sum(len(d.text) for d in gold)
    return predicted, chars / elapsed if elapsed else 0.0, scored


def _recall(result, label: str) -> float | None:
    scores = result.overlap.per_label.get(label)
    return None if scores is None or not scores.support else scores.recall


def _row(gold, pred, cover) -> dict:
    result = evaluate(gold, pred, context_chars=0)
    overlap = result.overlap.per_label.get(LABEL)
    return {
        "names": sum(1 for d in gold for s in d.spans if s.label == LABEL),
        "p": overlap.precision if overlap else 1.0,
        "r": overlap.recall if overlap else 1.0,
        "f1": overlap.f1 if overlap else 0.0,
        "leak": leaked_share(gold, cover, LABEL),
        "email_r": _recall(result, "EMAIL"),
        "phone_r": _recall(result, "PHONE"),
        "id_r": _recall(result, "GOV_ID"),
        "address_r": _recall(result, "ADDRESS"),
        "address_leak": (
            leaked_share(gold, cover, "ADDRESS")
            if any(s.label == "ADDRESS" for d in gold for s in d.spans)
            else None
        ),
    }


def _family_ece(rows: dict[str, dict], pairs: dict[str, list[tuple[float, bool]]]) -> dict:
    """ECE of the PERSON scores, every set of a family's languages pooled; a script copy
    (``uner_sr_cyrl``) is left out, since its spans are its original's again."""
    out: dict[str, dict] = {}
    # Language families (``family`` in the languages table), over which ECE is pooled.
    for family, languages in language_families().items():
        sets = [
            name
            for name, row in rows.items()
            if row["lang"] in languages and pairs[name] and original_set(name) == name
        ]
        pooled = [pair for name in sets for pair in pairs[name]]
        if pooled:
            out[family] = {
                "sets": sets,
                "spans": len(pooled),
                "ece": expected_calibration_error(pooled),
            }
    return out


def _french_presidio():
    import logging

    import tldextract.tldextract
    from presidio_analyzer import AnalyzerEngine
    from presidio_analyzer.nlp_engine import NlpEngineProvider

    # Offline: tldextract's bundled suffix list, never its download (as the benchmark does).
    tldextract.tldextract.TLD_EXTRACTOR.suffix_list_urls = ()
    logging.getLogger("presidio-analyzer").setLevel(logging.ERROR)
    config = {
        "nlp_engine_name": "spacy",
        "models": [{"lang_code": "fr", "model_name": FRENCH_MODEL}],
    }
    engine = NlpEngineProvider(nlp_configuration=config).create_engine()
    return AnalyzerEngine(nlp_engine=engine, supported_languages=["fr"])


def _presidio_fr(texts: list[str], cache_path: Path) -> tuple[list[list[tuple]], float | None]:
    cache: dict[str, list] = {}
    if cache_path.exists():
        cache = json.loads(cache_path.read_text(encoding="utf-8"))
    keys = [hashlib.sha256(t.encode("utf-8", "surrogatepass")).hexdigest() for t in texts]
    speed = cache.get("_chars_per_s")
    missing = [t for t, k in zip(texts, keys, strict=True) if k not in cache]
    if missing:
        analyzer = _french_presidio()
        analyzer.nlp_engine.nlp["fr"].max_length = max(len(t) for t in missing) + 1
        start = time.perf_counter()
        for text in missing:
            results = analyzer.analyze(text=text, language="fr")
            key = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()
            cache[key] = [(r.start, r.end, r.entity_type, float(r.score)) for r in results]
        speed = sum(map(len, missing)) / (time.perf_counter() - start)
        cache["_chars_per_s"] = speed
        cache_path.parent.mkdir(parents=True, exist_ok=True)
        cache_path.write_text(json.dumps(cache), encoding="utf-8")
    return [[tuple(s) for s in cache[k]] for k in keys], speed


def _speed(model: Path | None, langs: list[str], limit: int) -> dict:
    from spacy_pii.benchmark.systems import load_presidio_full
    from spacy_pii.benchmark.texts import DEFAULT_CORPORA, load_corpus

    taxonomy = load_taxonomy()
    texts = [d.text for d in load_corpus([ROOT / p for p in DEFAULT_CORPORA], taxonomy, limit)]
    chars = sum(map(len, texts))
    out: dict[str, float] = {}
    for lang in langs:
        nlp = language_pipeline(lang, model=model)
        list(nlp.pipe(texts[:50]))  # warm caches and lazy imports
        start = time.perf_counter()
        list(nlp.pipe(texts, batch_size=64))
        out[f"load({lang})"] = chars / (time.perf_counter() - start)
    presidio = load_presidio_full()
    presidio.predict(texts[:50], batch_size=presidio.default_batch_size)
    start = time.perf_counter()
    presidio.predict(texts, batch_size=presidio.default_batch_size)
    out["presidio_full"] = chars / (time.perf_counter() - start)
    return {"texts": len(texts), "chars": chars, "chars_per_s": out, "loadavg": os.getloadavg()}


def _english(model: Path | None, external: Path) -> dict:
    import spacy_pii
    from spacy_pii.generator.real_text import load_real_text

    taxonomy = load_taxonomy()
    systems = {"en_pii_default": spacy_pii.load("default"), "multilingual": None}
    systems["multilingual"] = language_pipeline("en", model=model)
    out: dict[str, dict] = {}
    for name, raw in load_real_text(external, taxonomy.fold, split="dev").items():
        gold = [Document.from_raw(d["text"], d["spans"], taxonomy=taxonomy) for d in raw]
        out[name] = {}
        for system, nlp in systems.items():
            pred, chars_per_s = _predict(nlp, gold, taxonomy)
            row = _row(gold, pred, [[(s.start, s.end) for s in d.spans] for d in pred])
            out[name][system] = {**row, "chars_per_s": chars_per_s}
    return out


def main(
    model: Annotated[Path | None, Opt(help="the multilingual pipeline (default: embedded)")] = None,
    dev: Annotated[Path, Opt(help="dev sets from make_corpus_ml.py")] = ROOT
    / "corpus"
    / "built_ml"
    / "dev",
    out: Annotated[Path, Opt(help="folder for ml.json, ml.md, presidio_fr.json")] = ROOT
    / "metrics"
    / "ml",
    presidio: Annotated[bool, Opt(help="Presidio on fr_core_news_md beside the French set")] = True,
    speed: Annotated[bool, Opt(help="also time load(LANG) against Presidio full")] = False,
    speed_limit: Annotated[int, Opt(help="texts per benchmark corpus for --speed")] = 500,
    speed_languages: Annotated[
        str, Opt(help="comma-separated codes for --speed (default: every language but en)")
    ] = "",
    english: Annotated[bool, Opt(help="also the English real-text dev suite, both models")] = False,
    external: Annotated[Path, Opt(help="English real text")] = ROOT / "corpus" / "external",
    ner_threshold: Annotated[
        float | None, Opt(help="pii_ner's threshold (default: the model's)")
    ] = None,
) -> None:
    taxonomy = load_taxonomy()
    config = (
        None if ner_threshold is None else {"components": {"pii_ner": {"threshold": ner_threshold}}}
    )
    rows: dict[str, dict] = {}
    pairs: dict[str, list[tuple[float, bool]]] = {}
    pipelines: dict[str, object] = {}
    for name, lang in SET_LANGUAGES.items():
        path = dev / f"{name}.jsonl"
        if not path.exists():
            continue
        gold = read_documents(path, taxonomy=taxonomy)
        if lang not in pipelines:
            pipelines[lang] = language_pipeline(lang, model=model, config=config)
        pred, chars_per_s, scored = _predict_scored(pipelines[lang], gold, taxonomy)
        row = _row(gold, pred, [[(s.start, s.end) for s in d.spans] for d in pred])
        row["ece"] = expected_calibration_error(scored) if scored else None
        pairs[name] = scored
        rows[name] = {"lang": lang, "docs": len(gold), "chars_per_s": chars_per_s, "ours": row}
        if presidio and lang == "fr":
            raw, presidio_speed = _presidio_fr([d.text for d in gold], out / "presidio_fr.json")
            folded, _ = fold_predictions(gold, raw, taxonomy)
            rows[name]["presidio"] = _row(gold, folded, [[(s[0], s[1]) for s in r] for r in raw])
            rows[name]["presidio_chars_per_s"] = presidio_speed
        # One line a set as it is scored: a long run on a busy machine shows its progress.
        print(name, json.dumps(rows[name]), flush=True)
    lines = [
        f"PERSON per language and set: `spacy_pii.load(LANG)` with `{model or 'xx_pii_default'}`",
        "",
        "| set | lang | docs | names | P / R / F1 | leak | target | e-mail R | phone R | id R | "
        "address R / leak | ECE | chars/s | Presidio (fr_core_news_md) P / R / F1, leak |",
        "|---|---|---:|---:|---|---:|---|---:|---:|---:|---:|---:|---:|---|",
    ]
    for name, row in rows.items():
        o = row["ours"]
        target = F1_TARGETS[name.split("_")[0]]
        ok = o["f1"] >= target and o["leak"] <= LEAK_TARGET
        peer = row.get("presidio")
        peer_text = (
            f"{peer['p']:.3f} / {peer['r']:.3f} / {peer['f1']:.3f}, {peer['leak']:.3f}"
            if peer
            else ""
        )
        email = "" if o["email_r"] is None else f"{o['email_r']:.3f}"
        phone = "" if o["phone_r"] is None else f"{o['phone_r']:.3f}"
        ids = "" if o.get("id_r") is None else f"{o['id_r']:.3f}"
        address = (
            ""
            if o.get("address_leak") is None
            else f"{o['address_r']:.3f} / {o['address_leak']:.3f}"
        )
        lines.append(
            f"| {name} | {row['lang']} | {row['docs']} | {o['names']} | "
            f"{o['p']:.3f} / {o['r']:.3f} / **{o['f1']:.3f}** | {o['leak']:.3f} | "
            f"F1 ≥ {target}{'' if ok else ' ✗'} | {email} | {phone} | {ids} | {address} | "
            f"{'' if o['ece'] is None else format(o['ece'], '.3f')} | "
            f"{row['chars_per_s']:,.0f} | {peer_text} |"
        )
    families = _family_ece(rows, pairs)
    lines += ["", "PERSON score calibration by language family (15 bins, spans pooled):", ""]
    lines += ["| family | sets | scored spans | ECE |", "|---|---|---:|---:|"]
    for family, cell in families.items():
        lines.append(
            f"| {family} | {', '.join(cell['sets'])} | {cell['spans']} | {cell['ece']:.3f} |"
        )
    lines.append("")
    lines.append(f"load average while measured: {', '.join(f'{x:.1f}' for x in os.getloadavg())}")
    result: dict[str, object] = {"sets": rows, "families": families}
    if english:
        result["english"] = _english(model, external)
        lines += ["", "English real-text dev: PERSON overlap F1 / leak", ""]
        lines += ["| set | en_pii_default | multilingual |", "|---|---|---|"]
        for name, pair in result["english"].items():
            d, m = pair["en_pii_default"], pair["multilingual"]
            lines.append(
                f"| {name} | {d['f1']:.3f} / {d['leak']:.3f} | {m['f1']:.3f} / {m['leak']:.3f} |"
            )
    if speed:
        langs = [c for c in speed_languages.split(",") if c] or [
            c for c in supported_languages() if c != "en"
        ]
        timing = _speed(model, langs, speed_limit)
        result["speed"] = timing
        lines.append("")
        lines.append(f"English benchmark texts ({timing['texts']}, {timing['chars']:,} chars):")
        presidio_speed = timing["chars_per_s"]["presidio_full"]
        for system, value in timing["chars_per_s"].items():
            lines.append(f"- {system}: {value:,.0f} chars/s ({value / presidio_speed:.1f}×)")
    table = "\n".join(lines)
    print(table)
    out.mkdir(parents=True, exist_ok=True)
    (out / "ml.json").write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    (out / "ml.md").write_text(table + "\n", encoding="utf-8")


if __name__ == "__main__":
    typer.run(main)
