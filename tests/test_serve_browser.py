"""The demo page end to end, in Debian's headless Chromium driven by Selenium.

The service runs in this process (uvicorn in a thread, on a free port of 127.0.0.1); the
page talks to it as a user's browser would. Screenshots go to ``artifacts/`` (git-ignored).
"""

from __future__ import annotations

import base64
import itertools
import json
import shutil
import socket
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

import pytest

pytestmark = pytest.mark.browser

CHROMIUM = Path("/usr/bin/chromium")
if not CHROMIUM.exists():
    pytest.skip(
        "needs Debian's chromium at /usr/bin/chromium (apt-get install chromium chromium-driver)",
        allow_module_level=True,
    )
pytest.importorskip("selenium", reason="Selenium comes with the dev extra")
pytest.importorskip("uvicorn", reason="the demo extra (uvicorn) comes with the dev extra")

from selenium import webdriver  # noqa: E402
from selenium.webdriver.chrome.service import Service  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import Select, WebDriverWait  # noqa: E402

import spacy_pii  # noqa: E402
from spacy_pii.serve.app import create_app  # noqa: E402

ARTIFACTS = Path(__file__).resolve().parents[1] / "artifacts"
CHROMEDRIVER = shutil.which("chromedriver") or "/usr/bin/chromedriver"
MAX_CHARS = 20_000
CHROMIUM_FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture(scope="module")
def server():
    import uvicorn

    app = create_app(max_chars=MAX_CHARS)
    port = _free_port()
    config = uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning")
    service = uvicorn.Server(config)
    thread = threading.Thread(target=service.run, name="demo-server", daemon=True)
    thread.start()
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 30
    while not service.started and time.monotonic() < deadline:
        time.sleep(0.05)
    assert service.started, "uvicorn did not start"
    assert app.state.service.registry.wait(180), "the pipelines did not load"
    yield base
    service.should_exit = True
    thread.join(10)


@pytest.fixture(scope="module")
def driver():
    if not Path(CHROMEDRIVER).exists():
        pytest.fail(
            "chromium is installed but chromedriver is not: apt-get install chromium-driver"
        )
    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    profile = tempfile.mkdtemp(prefix="spacy-pii-chromium-")
    for flag in (*CHROMIUM_FLAGS, f"--user-data-dir={profile}", "--window-size=1280,1000"):
        options.add_argument(flag)
    browser = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    browser.set_script_timeout(30)
    yield browser
    browser.quit()
    shutil.rmtree(profile, ignore_errors=True)


def _api(base: str, path: str, body: dict) -> dict:
    request = urllib.request.Request(
        f"{base}{path}",
        data=json.dumps(body).encode(),
        headers={"Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=30) as response:
        return json.load(response)


def _detects(browser) -> int:
    return browser.execute_script("return Number(document.body.dataset.detects || 0)")


def _after_detect(browser, action) -> None:
    """Do ``action`` and wait until the page has rendered the detect it triggers."""
    before = _detects(browser)
    action()
    WebDriverWait(browser, 60).until(
        lambda b: _detects(b) > before and not b.execute_script("return document.body.dataset.busy")
    )


def _open(browser, base: str) -> None:
    browser.get(f"{base}/")
    WebDriverWait(browser, 60).until(lambda b: _detects(b) >= 1)


def _marks(browser) -> list[tuple[str, str]]:
    rows = browser.execute_script(
        "return Array.from(document.querySelectorAll('#highlighted mark')).map("
        "m => [m.dataset.type, m.firstChild.textContent])"
    )
    return [tuple(row) for row in rows]


def _use_sample(browser, name: str) -> str:
    _after_detect(
        browser, lambda: browser.find_element(By.CSS_SELECTOR, f"[data-sample={name}]").click()
    )
    return browser.find_element(By.ID, "text").get_property("value")


def _set_text(browser, text: str) -> None:
    browser.execute_script(
        "const box = document.getElementById('text'); box.value = arguments[0];"
        "box.dispatchEvent(new Event('input'));",
        text,
    )


def _click(browser, element_id: str) -> None:
    browser.find_element(By.ID, element_id).click()


def _full_page_screenshot(browser, name: str) -> Path:
    """The whole page, not just the window, as a PNG under artifacts/."""
    # Capturing beyond the viewport lays the page out without a scrollbar, so the clip is
    # the window's full inner width.
    size = browser.execute_script(
        "const root = document.documentElement;"
        "return [Math.max(root.scrollWidth, window.innerWidth), root.scrollHeight]"
    )
    shot = browser.execute_cdp_cmd(
        "Page.captureScreenshot",
        {
            "format": "png",
            "captureBeyondViewport": True,
            "clip": {"x": 0, "y": 0, "width": size[0], "height": size[1], "scale": 1},
        },
    )
    ARTIFACTS.mkdir(exist_ok=True)
    path = ARTIFACTS / name
    path.write_bytes(base64.b64decode(shot["data"]))
    return path


def _rgb(hex_colour: str) -> str:
    value = hex_colour.lstrip("#")
    red, green, blue = (int(value[i : i + 2], 16) for i in (0, 2, 4))
    return f"rgba({red}, {green}, {blue}, 1)"  # as Selenium reports a computed colour


def test_page_renders_and_a_samples_spans_appear(server, driver):
    from spacy.displacy.render import EntityRenderer

    _open(driver, server)
    assert driver.title == "spacy-pii demo"
    assert "rules ready" in driver.find_element(By.ID, "status").text
    text = _use_sample(driver, "chat")
    expected = _api(server, "/api/detect", {"text": text, "pipeline": "rules"})
    assert _marks(driver) == [(row["type"], row["text"]) for row in expected["spans"]]
    assert {kind for kind, _ in _marks(driver)} == {"PHONE", "EMAIL", "IP_ADDRESS"}
    # The colours are the ones displaCy uses for these labels (the package registers them).
    displacy = EntityRenderer({}).colors
    for mark in driver.find_elements(By.CSS_SELECTOR, "#highlighted mark"):
        kind = mark.get_attribute("data-type")
        assert mark.value_of_css_property("background-color") == _rgb(displacy[kind])
    rows = driver.find_elements(By.CSS_SELECTOR, "#span-table tbody tr")
    assert len(rows) == len(expected["spans"])
    _use_sample(driver, "log")
    _full_page_screenshot(driver, "demo_desktop.png")


def test_type_filter_and_drop_unscored_change_the_result(server, driver):
    _open(driver, server)
    text = _use_sample(driver, "ticket")
    assert ("EMAIL", "ada.lovelace@example.com") in _marks(driver)
    email_box = driver.find_element(By.CSS_SELECTOR, "input.type-toggle[value=EMAIL]")
    _after_detect(driver, email_box.click)
    kinds = [kind for kind, _ in _marks(driver)]
    assert "EMAIL" not in kinds and "PAYMENT" in kinds
    _after_detect(driver, email_box.click)
    _after_detect(driver, lambda: _click(driver, "drop-unscored"))
    expected = _api(
        server, "/api/detect", {"text": text, "pipeline": "rules", "drop_unscored": True}
    )
    assert _marks(driver) == [(row["type"], row["text"]) for row in expected["spans"]]
    assert all(row["score"] is not None for row in expected["spans"])
    _after_detect(driver, lambda: _click(driver, "drop-unscored"))


def test_score_floor_is_applied_on_the_server(server, driver):
    """The one test on the default pipeline: its model scores are what a floor cuts."""
    _open(driver, server)
    _after_detect(
        driver, lambda: Select(driver.find_element(By.ID, "pipeline")).select_by_value("default")
    )
    text = _use_sample(driver, "ticket")
    unfloored = _marks(driver)
    spans = _api(server, "/api/detect", {"text": text, "pipeline": "default"})["spans"]
    model_scores = [row["score"] for row in spans if row["score"] not in (None, 1.0)]
    assert model_scores, "the default pipeline should score its PERSON spans"
    # Above the best model score: the model's spans go, and with them every mention that
    # propagation would copy from them; the validated 1.0 and the unscored spans stay.
    floor = (max(model_scores) + 1.0) / 2
    assert max(model_scores) < floor < 1.0
    _after_detect(
        driver,
        lambda: driver.execute_script(
            "const r = document.getElementById('min-score'); r.step = 'any';"
            "r.value = arguments[0]; r.dispatchEvent(new Event('input'));",
            floor,
        ),
    )
    expected = _api(
        server, "/api/detect", {"text": text, "pipeline": "default", "min_score": floor}
    )
    assert _marks(driver) == [(row["type"], row["text"]) for row in expected["spans"]]
    assert _marks(driver) != unfloored
    assert all(row["score"] in (None, 1.0) for row in expected["spans"])
    assert driver.find_element(By.ID, "min-score-value").text == f"{floor:.2f}"
    driver.get("about:blank")


def test_masked_string_and_restore_round_trip(server, driver):
    _open(driver, server)
    text = _use_sample(driver, "ticket")
    masked, vault = spacy_pii.redact(spacy_pii.load("rules")(text))
    assert driver.find_element(By.ID, "masked").text == masked
    vault_cells = [
        cell.text for cell in driver.find_elements(By.CSS_SELECTOR, "#vault-table tbody td")
    ]
    assert vault_cells == [item for pair in vault.items() for item in pair]

    answer = driver.find_element(By.ID, "answer")
    answer.clear()
    answer.send_keys(masked)
    _click(driver, "restore")
    WebDriverWait(driver, 30).until(lambda b: b.find_element(By.ID, "restored").text)
    assert driver.find_element(By.ID, "restored").get_property("textContent") == text

    _click(driver, "answer-sample")
    _click(driver, "restore")
    WebDriverWait(driver, 30).until(
        lambda b: b.find_elements(By.CSS_SELECTOR, "#restore-report li[data-kind=unknown]")
    )
    restored = driver.find_element(By.ID, "restored").text
    assert "ada.lovelace@example.com" in restored and "<PERSON_99>" in restored
    flags = {
        item.get_attribute("data-kind"): item.text
        for item in driver.find_elements(By.CSS_SELECTOR, "#restore-report li")
    }
    assert "<PERSON_99>" in flags["unresolved"] and "invented" in flags["unresolved"]
    assert "helpdesk.bot@example.net" in flags["unknown"] and "new PII" in flags["unknown"]
    _full_page_screenshot(driver, "demo_restore.png")


def test_secret_is_shown_as_never_stored(server, driver):
    _open(driver, server)
    _use_sample(driver, "log")
    assert "<SECRET>" in driver.find_element(By.ID, "masked").text
    secret_rows = driver.find_elements(By.CSS_SELECTOR, "#vault-table tr.secret")
    assert secret_rows and all("never stored" in row.text for row in secret_rows)
    assert "Tr0ub4dor&3" not in driver.find_element(By.ID, "vault-table").text


def test_copy_gives_valid_json(server, driver):
    _open(driver, server)
    _use_sample(driver, "clinical")
    _click(driver, "copy-json")
    WebDriverWait(driver, 10).until(lambda b: b.find_element(By.ID, "copy-status").text)
    copied = json.loads(driver.find_element(By.ID, "copy-buffer").get_property("value"))
    assert copied["request"]["pipeline"] == "rules"
    assert [(row["type"], row["text"]) for row in copied["detect"]["spans"]] == _marks(driver)
    assert copied["detect"]["findings"][0]["name"] == "postcode_dob_sex"
    assert "copied" in driver.find_element(By.ID, "copy-status").text


def test_over_long_text_shows_its_error_in_place(server, driver):
    _open(driver, server)
    _set_text(driver, "x" * (MAX_CHARS + 1))
    _after_detect(driver, lambda: _click(driver, "detect"))
    error = driver.find_element(By.ID, "detect-error")
    assert error.is_displayed() and error.get_attribute("data-error") == "text_too_long"
    assert f"{MAX_CHARS + 1} characters" in error.text and "Traceback" not in error.text
    assert "flag" in driver.find_element(By.ID, "char-count").get_attribute("class")
    _set_text(driver, "mail ada@example.com")
    _after_detect(driver, lambda: _click(driver, "detect"))
    assert not error.is_displayed()


def test_markup_in_the_text_stays_text(server, driver):
    _open(driver, server)
    hostile = "<img src=x onerror=\"document.title='owned'\"> mail ada@example.com <b>bold</b>"
    _set_text(driver, hostile)
    _after_detect(driver, lambda: _click(driver, "detect"))
    box = driver.find_element(By.ID, "highlighted")
    assert box.find_elements(By.TAG_NAME, "img") == [] and box.find_elements(By.TAG_NAME, "b") == []
    assert box.get_property("textContent").startswith("<img src=x")
    assert driver.title == "spacy-pii demo"


def test_offsets_survive_characters_outside_the_bmp(server, driver):
    _open(driver, server)
    _set_text(driver, "😀😀 write to ada@example.com 🎉 or 192.168.0.7")
    _after_detect(driver, lambda: _click(driver, "detect"))
    assert _marks(driver) == [("EMAIL", "ada@example.com"), ("IP_ADDRESS", "192.168.0.7")]


def test_phone_width_layout_holds(server, driver):
    driver.execute_cdp_cmd(
        "Emulation.setDeviceMetricsOverride",
        {"width": 375, "height": 812, "deviceScaleFactor": 1, "mobile": True},
    )
    try:
        _open(driver, server)
        _use_sample(driver, "log")  # long unbroken lines and a long secret
        assert driver.execute_script("return window.innerWidth") == 375
        overflow = driver.execute_script(
            "return document.documentElement.scrollWidth - window.innerWidth"
        )
        assert overflow <= 0, f"the page is {overflow}px wider than the screen"
        boxes = driver.execute_script(
            "return ['input-panel', 'result-panel', 'restore-panel'].map("
            "id => document.getElementById(id).getBoundingClientRect().toJSON())"
        )
        for upper, lower in itertools.pairwise(boxes):
            assert lower["top"] >= upper["bottom"]  # one column
        assert all(box["right"] <= 375 for box in boxes)
        _full_page_screenshot(driver, "demo_phone_full.png")
        driver.execute_script("document.getElementById('result-panel').scrollIntoView()")
        driver.save_screenshot(str(ARTIFACTS / "demo_phone.png"))
    finally:
        driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
