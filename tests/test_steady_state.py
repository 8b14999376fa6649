"""The arithmetic of training/steady_state.py: window rates, RSS slope and the verdict.

The script is loaded from its path (``training/`` is not a package); its module imports
no spaCy, so these tests need no model.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from script_module import load_script

SCRIPT = Path(__file__).resolve().parents[1] / "training" / "steady_state.py"


steady = load_script(SCRIPT, "steady_state_script")
Window = steady.Window


def _windows(rss: list[float], seconds: list[float], size: int = 500) -> list:
    return [
        Window(docs=size * (i + 1), seconds=s, rss_mb=r)
        for i, (r, s) in enumerate(zip(rss, seconds, strict=True))
    ]


def test_rates_are_docs_of_each_window_over_its_seconds():
    windows = [Window(500, 2.0, 100.0), Window(1000, 1.0, 100.0), Window(1200, 0.5, 100.0)]
    summary = steady.summarize(windows)
    assert summary["docs_per_s"] == [250.0, 500.0, 400.0]
    assert summary["first_docs_per_s"] == 250.0
    assert summary["last_docs_per_s"] == 400.0
    assert summary["median_docs_per_s"] == 400.0
    assert summary["docs"] == 1200


def test_flat_memory_and_speed_is_steady():
    # A slow first window (warm-up) is allowed: the verdict looks at the last one.
    summary = steady.summarize(_windows([500.0] * 20, [5.0] + [2.0] * 19))
    assert summary["verdict"] == "steady"
    assert summary["reasons"] == []
    assert summary["rss_growth_second_half"] == 0.0
    assert summary["rss_slope_mb_per_1k_docs_second_half"] == 0.0
    assert summary["rss_mb_at_1k"] == 500.0


def test_slope_is_mb_per_thousand_docs_over_the_second_half():
    # 1 MB more per window of 500 docs is 2 MB per 1,000 docs; the first half's jump
    # (loading, warm-up) does not enter the fit.
    rss = [100.0] * 5 + [400.0 + i for i in range(15)]
    summary = steady.summarize(_windows(rss, [1.0] * 20))
    assert summary["rss_slope_mb_per_1k_docs_second_half"] == pytest.approx(2.0)
    assert summary["rss_mb_at_half"] == 404.0  # the tenth window ends at 5,000 docs
    assert summary["rss_mb_at_end"] == 414.0
    assert summary["rss_growth_second_half"] == pytest.approx(10 / 404, abs=1e-4)
    assert summary["verdict"] == "steady"  # 2.5% < 5%


@pytest.mark.parametrize(
    ("rss_end", "verdict"),
    [(104.9, "steady"), (105.0, "not steady"), (130.0, "not steady")],
    ids=["growth-4.9pct-below-5pct", "growth-5pct-at-limit", "growth-30pct-leak"],
)
def test_rss_growth_limit_is_five_percent_of_the_half_way_rss(rss_end, verdict):
    rss = [100.0] * 19 + [rss_end]
    summary = steady.summarize(_windows(rss, [1.0] * 20))
    assert summary["verdict"] == verdict
    assert any("RSS grew" in r for r in summary["reasons"]) == (verdict == "not steady")


@pytest.mark.parametrize(
    ("last_seconds", "verdict"),
    [(1.0 / 0.81, "steady"), (1.0 / 0.79, "not steady"), (1.0 / 1.21, "not steady")],
    ids=["19pct-slower-within-20pct", "21pct-slower", "21pct-faster"],
)
def test_last_window_speed_is_within_twenty_percent_of_the_median(last_seconds, verdict):
    summary = steady.summarize(_windows([100.0] * 20, [1.0] * 19 + [last_seconds]))
    assert summary["verdict"] == verdict
    assert any("median docs/s" in r for r in summary["reasons"]) == (verdict == "not steady")


def test_cpu_basis_judges_speed_by_cpu_seconds():
    # Other load on shared cores stretches the last window's wall time (21% slower), while
    # its CPU time stays that of the others: steady on CPU time, not on wall time.
    windows = [
        Window(500 * (i + 1), 1.0 / 0.79 if i == 19 else 1.0, 100.0, cpu_seconds=0.9)
        for i in range(20)
    ]
    summary = steady.summarize(windows, speed_basis="cpu")
    assert summary["verdict"] == "steady"
    assert summary["cpu_speed"]["median"] == pytest.approx(555.6)
    assert summary["verdict_by_basis"]["wall"]["verdict"] == "not steady"
    assert summary["verdict_by_basis"]["cpu"]["verdict"] == "steady"
    assert steady.summarize(windows)["verdict"] == "not steady"


def test_cpu_basis_needs_every_window_timed():
    windows = [Window(500, 1.0, 100.0, cpu_seconds=1.0), Window(1000, 1.0, 100.0)]
    summary = steady.summarize(windows)
    assert summary["cpu_speed"] is None
    assert set(summary["verdict_by_basis"]) == {"wall"}
    with pytest.raises(ValueError):
        steady.summarize(windows, speed_basis="cpu")


def test_custom_limits_change_the_verdict():
    windows = _windows([100.0] * 19 + [103.0], [1.0] * 20)
    assert steady.summarize(windows)["verdict"] == "steady"
    assert steady.summarize(windows, rss_growth_limit=0.02)["verdict"] == "not steady"


@pytest.mark.parametrize(
    "windows",
    [
        [],
        [Window(500, 1.0, 1.0), Window(500, 1.0, 1.0)],
        [Window(500, 0.0, 1.0)],
    ],
    ids=["no-windows", "docs-not-increasing", "zero-seconds"],
)
def test_bad_windows_are_refused(windows):
    with pytest.raises(ValueError):
        steady.summarize(windows)


def test_slope_needs_two_distinct_points():
    assert steady.least_squares_slope([1.0], [2.0]) is None
    assert steady.least_squares_slope([0.0, 1.0, 2.0], [1.0, 3.0, 5.0]) == pytest.approx(2.0)
    summary = steady.summarize([Window(500, 1.0, 10.0)])
    assert summary["rss_slope_mb_per_1k_docs_second_half"] is None


def test_rss_at_takes_the_first_window_that_reaches_the_count():
    windows = [Window(400, 1.0, 1.0), Window(1100, 1.0, 2.0), Window(1500, 1.0, 3.0)]
    assert steady.rss_at(windows, 1000) == 2.0
    assert steady.rss_at(windows, 2000) is None


def test_texts_cycle_through_each_pool_in_turn():
    texts = steady.cycle_texts([["a1", "a2", "a3"], [], ["b1"]], 7)
    assert texts == ["a1", "b1", "a2", "b1", "a3", "b1", "a1"]
    with pytest.raises(ValueError):
        steady.cycle_texts([[], []], 3)


def test_read_texts_keeps_short_non_empty_texts_in_order(tmp_path):
    path = tmp_path / "texts.jsonl"
    path.write_text(
        '{"text": "short"}\n{"text": ""}\n{"text": "' + "x" * 201 + '"}\n\n{"text": "ok"}\n',
        encoding="utf-8",
    )
    assert steady.read_texts(path, 200) == ["short", "ok"]


def test_current_rss_is_positive_and_names_its_source():
    rss, source = steady.current_rss_mb()
    assert rss > 1.0
    assert source in {"VmRSS", "ru_maxrss (peak)"}
