// spacy-pii demo page. Plain JavaScript, no build step, nothing loaded from elsewhere.
// Every piece of user or server text goes into the page through textContent, never as HTML.
// Offsets from the API count Unicode code points (Python string indices), so texts are cut
// with Array.from, not with String.slice, which counts UTF-16 units.
"use strict";

const SAMPLES = {
  ticket: [
    "Ticket #48213 (priority: high)",
    "From: Ada Lovelace <ada.lovelace@example.com>",
    "Phone: +1 415 555 0134",
    "",
    "Hi support, my card 4111 1111 1111 1111 was charged twice for order 7781.",
    "Please send the refund to my IBAN GB82 WEST 1234 5698 7654 32. My username is ada_l.",
    "Thanks, Ada",
  ].join("\n"),
  chat: [
    "[10:02] maria.k: hey, it's Maria Keller from the Leeds office",
    "[10:02] maria.k: my new mobile is 07700 900123, email maria.keller@example.org",
    "[10:03] agent: thanks! I'll update it. Which IP do you connect from?",
    "[10:03] maria.k: 192.168.20.14 at home, 2001:db8::42 at work",
  ].join("\n"),
  log: [
    "2026-11-30T10:42:07Z ERROR auth.login failed user=jdoe@example.net src=203.0.113.77 attempt=3",
    "2026-11-30T10:42:09Z DEBUG config loaded stripe_key=sk_test_4eC39HqLyjWDarjtT1zdp7dc password=Tr0ub4dor&3",
  ].join("\n"),
  clinical: [
    "CLINIC NOTE - 30 Nov 2026",
    "Patient: John Smith, male, date of birth 14/03/1985, ZIP 02139.",
    "NHS number 943 476 5919. Tel 020 7946 0958.",
    "Seen for follow-up of hypertension; BP 128/82. Next review in 3 months.",
  ].join("\n"),
  tool: JSON.stringify({
    tool: "send_invoice",
    arguments: {
      to: "billing@example.com",
      customer: { name: "Priya Natarajan", ssn: "536-90-4399", card: "5555 5555 5555 4444" },
      note: "Call back on (202) 555-0187",
    },
  }),
};

const state = {
  types: [],          // rows of /api/types
  colors: {},         // type -> colour
  pipelines: [],      // rows of /api/pipelines
  maxChars: null,
  last: null,         // the last /api/detect response
  lastRequest: null,  // the request that produced it
  lastRestore: null,
  detectSeq: 0,
  timer: null,
};

const $ = (id) => document.getElementById(id);

function el(tag, props = {}, children = []) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(props)) {
    if (key === "text") node.textContent = value;
    else if (key === "class") node.className = value;
    else if (key === "dataset") Object.assign(node.dataset, value);
    else node[key] = value;
  }
  for (const child of children) node.append(child);
  return node;
}

function clear(node) {
  while (node.firstChild) node.removeChild(node.firstChild);
}

// -- API ------------------------------------------------------------------------------------

class ApiFailure extends Error {
  constructor(body, status) {
    super(body.message || `HTTP ${status}`);
    this.body = body;
    this.status = status;
  }
}

async function api(path, body) {
  const options = body === undefined ? {} : {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(body),
  };
  let response;
  try {
    response = await fetch(path, options);
  } catch (err) {
    throw new ApiFailure({ error: "network", message: "the service cannot be reached", hint: "is spacy-pii serve still running?" }, 0);
  }
  let data;
  try {
    data = await response.json();
  } catch (err) {
    throw new ApiFailure({ error: "bad_response", message: `HTTP ${response.status} without a JSON body`, hint: "" }, response.status);
  }
  if (!response.ok || data.ok === false) throw new ApiFailure(data, response.status);
  return data;
}

function showError(node, failure) {
  const body = failure.body || {};
  clear(node);
  node.append(el("strong", { text: body.error || "error" }), ": " + (body.message || String(failure)));
  if (body.hint) node.append(el("br"), el("span", { class: "small", text: body.hint }));
  node.dataset.error = body.error || "error";
  node.hidden = false;
}

function hideError(node) {
  node.hidden = true;
  delete node.dataset.error;
  clear(node);
}

// -- set-up ---------------------------------------------------------------------------------

async function loadTypes() {
  const data = await api("/api/types");
  state.types = data.types;
  const box = $("types");
  for (const row of data.types) {
    state.colors[row.type] = row.color;
    const input = el("input", { type: "checkbox", checked: row.default, value: row.type, className: "type-toggle" });
    input.addEventListener("change", scheduleDetect);
    const swatch = el("span", { class: "swatch" });
    swatch.style.background = row.color;
    const label = el("label", { title: `${row.class}, rank ${row.rank}, ${row.severity}`, dataset: { type: row.type } }, [input, swatch, row.type]);
    box.append(label);
  }
}

async function loadHealth() {
  const data = await api("/api/health");
  state.maxChars = data.max_chars;
  $("char-limit").textContent = String(data.max_chars);
}

async function pollPipelines() {
  let data;
  try {
    data = await api("/api/pipelines");
  } catch (failure) {
    $("status").textContent = "pipelines: " + failure.message;
    setTimeout(pollPipelines, 2000);
    return;
  }
  state.pipelines = data.pipelines;
  const select = $("pipeline");
  const chosen = select.value;
  clear(select);
  for (const row of data.pipelines) {
    const label = row.ready ? row.name : `${row.name} (${row.state})`;
    select.append(el("option", { value: row.name, text: label, disabled: row.state === "failed" }));
  }
  select.value = chosen || "rules";
  $("status").textContent = "pipelines: " + data.pipelines
    .map((row) => `${row.name} ${row.ready ? "ready" : row.state}`).join(", ");
  document.body.dataset.ready = data.pipelines.filter((row) => row.ready).map((row) => row.name).join(" ");
  const current = data.pipelines.find((row) => row.name === select.value);
  if (current && current.ready && state.last === null && !state.inFlight) scheduleDetect();
  if (data.pipelines.some((row) => row.state === "waiting" || row.state === "loading")) {
    setTimeout(pollPipelines, 1000);
  }
}

// -- detect ---------------------------------------------------------------------------------

function detectRequest() {
  const types = Array.from(document.querySelectorAll("input.type-toggle"))
    .filter((box) => box.checked).map((box) => box.value);
  const request = {
    text: $("text").value,
    pipeline: $("pipeline").value || "rules",
    types,
    min_score: Number($("min-score").value),
    drop_unscored: $("drop-unscored").checked,
  };
  const operator = $("operator").value;
  if (operator !== "placeholder") request.operators = { DEFAULT: operator };
  return request;
}

function scheduleDetect() {
  clearTimeout(state.timer);
  state.timer = setTimeout(runDetect, 200);
}

async function runDetect() {
  const request = detectRequest();
  const seq = ++state.detectSeq;
  state.inFlight = true;
  document.body.dataset.busy = "1";
  try {
    const data = await api("/api/detect", request);
    if (seq !== state.detectSeq) return;  // a newer request is on its way
    hideError($("detect-error"));
    state.last = data;
    state.lastRequest = request;
    renderDetect(data, request.text);
  } catch (failure) {
    if (seq !== state.detectSeq) return;
    showError($("detect-error"), failure);
  } finally {
    if (seq === state.detectSeq) {
      state.inFlight = false;
      delete document.body.dataset.busy;
      document.body.dataset.detects = String(seq);
    }
  }
}

function slice(points, start, end) {
  return points.slice(start, end).join("");
}

function renderDetect(data, text) {
  const points = Array.from(text);
  const box = $("highlighted");
  clear(box);
  let cursor = 0;
  for (const span of data.spans) {
    if (span.start > cursor) box.append(slice(points, cursor, span.start));
    const mark = el("mark", { class: "entity", dataset: { type: span.type, start: span.start, end: span.end } },
      [slice(points, span.start, span.end), el("span", { class: "label", text: span.type })]);
    mark.style.background = state.colors[span.type] || "#ddd";
    box.append(mark);
    cursor = span.end;
  }
  if (cursor < points.length) box.append(slice(points, cursor));
  $("summary").textContent = `${data.spans.length} spans, ${data.pipeline}, ${data.elapsed_ms} ms`;

  const body = $("span-table").tBodies[0];
  clear(body);
  for (const span of data.spans) {
    const swatch = el("span", { class: "swatch" });
    swatch.style.background = state.colors[span.type] || "#ddd";
    body.append(el("tr", { dataset: { type: span.type } }, [
      el("td", { class: "type" }, [swatch, " " + span.type]),
      el("td", { text: String(span.start) }),
      el("td", { text: String(span.end) }),
      el("td", { class: "value", text: span.text }),
      el("td", { text: span.score === null ? "none" : span.score.toFixed(3) }),
      el("td", { text: span.detector }),
    ]));
  }
  if (!data.spans.length) body.append(el("tr", {}, [el("td", { colSpan: 6, class: "muted", text: "no spans" })]));

  $("masked").textContent = data.masked;

  const vault = $("vault-table").tBodies[0];
  clear(vault);
  for (const [placeholder, value] of Object.entries(data.vault)) {
    vault.append(el("tr", {}, [el("td", { class: "value", text: placeholder }), el("td", { class: "value", text: value })]));
  }
  for (const secret of data.never_stored) {
    vault.append(el("tr", { class: "secret" }, [
      el("td", { class: "value", text: `<${secret.type}>` }),
      el("td", { class: "never", text: `never stored (characters ${secret.start}-${secret.end})` }),
    ]));
  }
  if (!vault.rows.length) vault.append(el("tr", {}, [el("td", { colSpan: 2, class: "muted", text: "empty" })]));

  const findings = $("findings");
  clear(findings);
  for (const finding of data.findings) {
    const evidence = finding.evidence.map(([field, start, end]) => `${field} "${slice(points, start, end)}"`).join(", ");
    findings.append(el("li", { dataset: { name: finding.name } }, [
      el("span", { class: `badge ${finding.risk}`, text: finding.risk }),
      ` ${finding.fields.join(" + ")}: ${evidence} (${finding.source})`,
    ]));
  }
  if (!data.findings.length) findings.append(el("li", { class: "muted", text: "no quasi-identifier combination" }));
  $("copy-buffer").value = copyText();
}

function copyText() {
  const result = { request: state.lastRequest, detect: state.last };
  if (state.lastRestore) result.restore = state.lastRestore;
  return JSON.stringify(result, null, 2);
}

async function copyJson() {
  if (!state.last) return;
  const text = copyText();
  const buffer = $("copy-buffer");
  buffer.value = text;
  try {
    await navigator.clipboard.writeText(text);
    $("copy-status").textContent = "copied";
  } catch (err) {
    // Without clipboard permission (an http page, a headless browser), copy the hidden copy.
    buffer.select();
    const done = document.execCommand && document.execCommand("copy");
    $("copy-status").textContent = done ? "copied" : "copy failed: select and copy by hand";
  }
}

// -- restore --------------------------------------------------------------------------------

function sampleAnswer() {
  if (!state.last) return;
  const placeholders = Object.keys(state.last.vault);
  const first = placeholders.length ? placeholders.join(", ") : "(nothing masked)";
  $("answer").value = `Done. I updated the record for ${first}. ` +
    "I also copied <PERSON_99> at helpdesk.bot@example.net.";
}

async function runRestore() {
  const error = $("restore-error");
  if (!state.last) {
    showError(error, { body: { error: "no_vault", message: "run Detect first: the vault comes from it", hint: "" } });
    return;
  }
  const request = { text: $("answer").value, vault: state.last.vault, pipeline: state.last.pipeline };
  try {
    const data = await api("/api/restore", request);
    hideError(error);
    state.lastRestore = data;
    renderRestore(data);
    $("copy-buffer").value = copyText();
  } catch (failure) {
    showError(error, failure);
  }
}

function renderRestore(data) {
  $("restored").textContent = data.text;
  const list = $("restore-report");
  clear(list);
  list.append(el("li", { dataset: { kind: "verdict" } }, [
    el("span", { class: `badge ${data.clean ? "ok" : "high"}`, text: data.clean ? "clean" : "check" }),
    ` ${data.resolved.length} restored: ${data.resolved.join(", ") || "none"}`,
  ]));
  for (const token of data.unresolved) {
    list.append(el("li", { dataset: { kind: "unresolved" } }, [
      el("span", { class: "flag", text: "not in the vault" }),
      ` ${token}: invented by the model, or a secret that is never stored`,
    ]));
  }
  for (const span of data.unknown) {
    list.append(el("li", { dataset: { kind: "unknown" } }, [
      el("span", { class: "flag", text: "new PII" }),
      ` ${span.type} "${span.text}" at ${span.start}-${span.end}: the prompt never carried it`,
    ]));
  }
}

// -- wiring ---------------------------------------------------------------------------------

function updateCount() {
  const count = Array.from($("text").value).length;
  $("char-count").textContent = String(count);
  $("char-count").classList.toggle("flag", state.maxChars !== null && count > state.maxChars);
}

function useSample(name) {
  $("text").value = SAMPLES[name];
  updateCount();
  scheduleDetect();
}

async function main() {
  $("text").value = SAMPLES.ticket;
  updateCount();
  for (const button of document.querySelectorAll("button.sample")) {
    button.addEventListener("click", () => useSample(button.dataset.sample));
  }
  $("text").addEventListener("input", updateCount);
  $("detect").addEventListener("click", runDetect);
  $("pipeline").addEventListener("change", () => { state.last = null; scheduleDetect(); });
  $("min-score").addEventListener("input", () => {
    $("min-score-value").textContent = Number($("min-score").value).toFixed(2);
    scheduleDetect();
  });
  $("drop-unscored").addEventListener("change", scheduleDetect);
  $("operator").addEventListener("change", scheduleDetect);
  $("copy-json").addEventListener("click", copyJson);
  $("answer-sample").addEventListener("click", sampleAnswer);
  $("restore").addEventListener("click", runRestore);
  try {
    await Promise.all([loadHealth(), loadTypes()]);
  } catch (failure) {
    showError($("detect-error"), failure);
  }
  updateCount();
  pollPipelines();
}

document.addEventListener("DOMContentLoaded", main);
