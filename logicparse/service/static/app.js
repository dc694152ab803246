// The logicparse page: posts the text to /v1/annotate and draws the Document it gets back.
// Plain DOM code, no libraries, so that the page works offline.
"use strict";

const $ = (sel) => document.querySelector(sel);
const state = { labels: [], relations: [], doc: null, selected: null, tokens: [], gaps: [], noneOf: [] };

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === "class") node.className = v;
    else if (k === "style") node.style.cssText = v;
    else node.setAttribute(k, v);
  }
  for (const c of children) node.append(c);
  return node;
}

function colour(relation) { return `var(--${relation})`; }

// Token indices covered by a span: a list of [start, end) ranges.
function* covered(span) { for (const [a, b] of span) for (let i = a; i < b; i++) yield i; }

// The text a span covers as written (not the tokens joined by spaces); pieces joined by " … ".
function spanText(doc, span) {
  const piece = ([a, b]) => doc.text ? doc.text.slice(doc.token_starts[a], doc.token_ends[b - 1])
    : doc.tokens.slice(a, b).join(" ");
  return span.filter(([a, b]) => b > a).map(piece).join(" … ") || "—";
}

async function loadTaxonomy() {
  const res = await fetch("/v1/taxonomy");
  const tax = await res.json();
  state.labels = tax.labels;
  state.relations = tax.relations.map((r) => r.name);
  const legend = $("#legend");
  legend.replaceChildren();
  for (const r of tax.relations) {
    const keywords = r.keywords.map((k) => k.text).join(", ");
    legend.append(el("li", { "data-relation": r.name, title: keywords },
      el("span", { class: "swatch", style: `background:${colour(r.name)}` }), r.name.replace("_", " ")));
  }
}

function setStatus(text, isError = false) {
  const s = $("#status");
  s.textContent = text;
  s.classList.toggle("error", isError);
}

async function annotate(event) {
  if (event) event.preventDefault();
  const button = $("#annotate");
  button.disabled = true;
  setStatus("Annotating…");
  const started = performance.now();
  try {
    const res = await fetch("/v1/annotate", {
      method: "POST",
      headers: { "content-type": "application/json" },
      // decided_none: also the keywords decided "none", to show every decision.
      body: JSON.stringify({ text: $("#text").value, decided_none: true }),
    });
    const body = await res.json().catch(() => ({}));
    if (!res.ok) {
      const why = typeof body.detail === "string" ? body.detail : JSON.stringify(body);
      const retry = res.headers.get("retry-after");
      setStatus(`${res.status}: ${why}${retry ? ` (retry in ${retry} s)` : ""}`, true);
      return;
    }
    render(body);
    const ms = Math.round(performance.now() - started);
    const none = (body.decided_none || []).length;
    setStatus(body.error ? `Failed: ${body.error}` : `${body.relations.length} keyword(s)${none ? `, ${none} decided none` : ""}, ${body.tokens.length} tokens, ${ms} ms`, Boolean(body.error));
  } catch (err) {
    setStatus(`Request failed: ${err}`, true);
  } finally {
    button.disabled = false;
  }
}

function render(doc) {
  state.doc = doc;
  state.selected = null;
  // Which relation, if any, each token is the keyword of.
  const keyOf = new Array(doc.tokens.length).fill(-1);
  doc.relations.forEach((rel, r) => { for (const i of covered(rel.key)) keyOf[i] = r; });
  // Keywords decided "none": not a relation here, shown greyed with the reason.
  const noneOf = new Array(doc.tokens.length).fill(null);
  for (const n of doc.decided_none || []) for (const i of covered(n.key)) noneOf[i] = n;
  state.noneOf = noneOf;

  const out = $("#doc");
  out.replaceChildren();
  state.tokens = [];
  state.gaps = [];  // gaps[i]: the whitespace before token i, marked with the span around it
  let pos = 0;
  doc.tokens.forEach((tok, i) => {
    const start = doc.token_starts[i], end = doc.token_ends[i];
    // The text between tokens is kept as written (spaces, line breaks).
    const gap = doc.text ? doc.text.slice(pos, start) : (i > 0 ? " " : "");
    state.gaps.push(gap ? el("span", { class: "gap" }, gap) : null);
    if (gap) out.append(state.gaps[i]);
    const span = el("span", { class: "tok", "data-i": String(i) }, doc.text ? doc.text.slice(start, end) : tok);
    if (doc.logic[i].length) span.classList.add("layered");
    const r = keyOf[i];
    if (r >= 0) {
      const rel = doc.relations[r];
      span.classList.add("kw");
      span.dataset.relation = rel.relation;
      span.dataset.rel = String(r);
      span.tabIndex = 0;
      span.style.background = colour(rel.relation);
      span.addEventListener("click", () => select(state.selected === r ? null : r));
      span.addEventListener("focus", () => select(r));
      span.addEventListener("keydown", (e) => { if (e.key === "Escape") select(null); });
    } else if (noneOf[i]) {
      span.classList.add("kw-none");
      span.title = `${noneOf[i].keyword}: decided none (${noneOf[i].reason})`;
    }
    span.addEventListener("mouseenter", () => hover(i));
    span.addEventListener("mouseleave", () => hover(null));
    out.append(span);
    state.tokens.push(span);
    pos = end;
  });
  if (doc.text && pos < doc.text.length) out.append(doc.text.slice(pos));
  if (!doc.tokens.length) out.append(el("span", { class: "muted" }, "(no tokens)"));

  const body = $("#relations tbody");
  body.replaceChildren();
  doc.relations.forEach((rel, r) => {
    const row = el("tr", { "data-rel": String(r) },
      el("td", {}, el("span", { class: "tok kw", style: `background:${colour(rel.relation)}` }, rel.keyword)),
      el("td", { class: "rel-name" }, rel.relation.replace("_", " ")),
      el("td", {}, rel.category),
      el("td", {}, spanText(doc, rel.alpha)),
      el("td", {}, spanText(doc, rel.beta)),
      el("td", {}, rel.sense_source === "classifier" ? `classifier (${rel.confidence.toFixed(2)})` : rel.sense_source));
    row.addEventListener("click", () => select(state.selected === r ? null : r));
    body.append(row);
  });
  for (const n of doc.decided_none || []) {
    body.append(el("tr", { class: "none-row" },
      el("td", {}, el("span", { class: "tok kw-none" }, spanText(doc, n.key))),
      el("td", { class: "rel-name" }, "none"),
      el("td", {}, "—"), el("td", {}, "—"), el("td", {}, "—"),
      el("td", {}, n.reason)));
  }
  showInfo(null);
}

// Marks the α/β spans of relation r (or clears them for null).
function mark(r) {
  for (const t of state.tokens) t.classList.remove("in-alpha", "in-beta", "selected");
  for (const g of state.gaps) g?.classList.remove("in-alpha", "in-beta");
  if (r === null || r === undefined) return;
  const rel = state.doc.relations[r];
  for (const [cls, span] of [["in-alpha", rel.alpha], ["in-beta", rel.beta]]) {
    const inside = new Set(covered(span));
    for (const i of inside) {
      state.tokens[i]?.classList.add(cls);
      // A span reads as one stretch: the space between two of its tokens is marked too.
      if (inside.has(i - 1)) state.gaps[i]?.classList.add(cls);
    }
  }
  for (const i of covered(rel.key)) state.tokens[i]?.classList.add("selected");
}

function select(r) {
  state.selected = r;
  mark(r);
  for (const row of document.querySelectorAll("#relations tbody tr")) {
    row.classList.toggle("selected", row.dataset.rel === String(r));
  }
  showInfo(null);
}

function hover(i) {
  if (i === null) { mark(state.selected); showInfo(null); return; }
  const span = state.tokens[i];
  if (span.dataset.rel !== undefined) mark(Number(span.dataset.rel));
  showInfo(i);
}

// The info box: the hovered token's layers, else the selected keyword's relation.
function showInfo(i) {
  const info = $("#info");
  const doc = state.doc;
  info.replaceChildren();
  if (i !== null && doc) {
    const ids = doc.logic[i];
    info.append(el("div", {}, el("strong", {}, doc.tokens[i]), ` token ${i}: `,
      ids.length ? `${ids.length} layer(s), outermost keyword first` : "no association (E)"));
    const none = state.noneOf && state.noneOf[i];
    if (none) info.append(el("div", { class: "muted" }, `“${none.keyword}” decided none: ${none.reason}`));
    if (ids.length) {
      info.append(el("ol", { id: "layers" }, ...ids.map((id) => {
        const label = state.labels[id] || String(id);
        const relation = label.split(":")[0];
        return el("li", { "data-label": label },
          el("span", { class: "swatch", style: `background:${colour(relation)}` }), " ", el("code", {}, label));
      })));
    }
    return;
  }
  if (doc && state.selected !== null) {
    const rel = doc.relations[state.selected];
    info.append(el("div", {}, el("strong", {}, rel.keyword), ` ${rel.relation.replace("_", " ")} (${rel.category}, depth ${rel.depth})`),
      el("div", {}, el("span", { class: "in-alpha sample" }, "α"), " ", spanText(doc, rel.alpha)),
      el("div", {}, el("span", { class: "in-beta sample" }, "β"), " ", spanText(doc, rel.beta)));
    return;
  }
  info.append(el("span", { class: "muted" }, doc ? "Hover a token for its labels; select a keyword for its spans." : "No text annotated yet."));
}

$("#form").addEventListener("submit", annotate);
$("#text").addEventListener("keydown", (e) => { if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) annotate(e); });
loadTaxonomy().catch((err) => setStatus(`Could not load the taxonomy: ${err}`, true));
