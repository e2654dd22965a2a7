"use strict";
(function () {
  const started = performance.now();
  const block = document.getElementById("report-data");
  const data = JSON.parse(block.textContent);
  block.textContent = "";  // the parsed copy is enough: the page need not hold the text twice
  const names = data.systems, utts = data.utts, n = utts.length, ns = names.length;
  const $ = (id) => document.getElementById(id);
  // Per utterance and system: errors and reference length, in typed arrays so sorting 100k stays fast.
  const errs = names.map(() => new Int32Array(n)), refLen = new Int32Array(n);
  for (let k = 0; k < n; k++) {
    for (let s = 0; s < ns; s++) {
      const a = utts[k][2 + s];
      let e = 0, r = 0;
      for (let j = 0; j < a.length; j++) {
        const p = a[j];
        if (typeof p === "string") { r++; continue; }
        if (p[0] !== null) r++;
        if (p.length === 2) e++;
      }
      errs[s][k] = e;
      if (s === 0) refLen[k] = r;
    }
  }
  const rate = (s, k) => refLen[k] ? errs[s][k] / refLen[k] * 100 : (errs[s][k] ? Infinity : 0);
  const byIndex = (a, b) => a - b;
  const sorts = {};
  if (ns === 2) {
    sorts.differ = ["differences first (" + names[0] + " vs " + names[1] + ")", (a, b) =>
      utts[b][1] - utts[a][1] ||
      Math.abs(errs[0][b] - errs[1][b]) - Math.abs(errs[0][a] - errs[1][a]) ||
      (errs[0][b] + errs[1][b]) - (errs[0][a] + errs[1][a]) || a - b];
  }
  names.forEach((name, s) => {
    sorts["errors" + s] = ["most errors" + (ns > 1 ? ", " + name : ""), (a, b) => errs[s][b] - errs[s][a] || a - b];
    sorts["rate" + s] = ["highest rate" + (ns > 1 ? ", " + name : ""), (a, b) => rate(s, b) - rate(s, a) || a - b];
  });
  sorts.id = ["utterance id", (a, b) => (utts[a][0] < utts[b][0] ? -1 : utts[a][0] > utts[b][0] ? 1 : a - b)];
  sorts.file = ["file order", byIndex];
  const select = $("sort");
  for (const key of Object.keys(sorts)) {
    const o = document.createElement("option");
    o.value = key; o.textContent = sorts[key][0];
    select.appendChild(o);
  }
  select.value = ns === 2 ? "differ" : "errors0";
  if (ns === 2) $("differs-label").hidden = false;

  let haystack = null;  // lower-cased "id\u0001tok\u0001tok...", built on the first filter
  const tokenText = (k) => {
    const parts = [utts[k][0]];
    for (let s = 0; s < ns; s++) for (const p of utts[k][2 + s]) {
      if (typeof p === "string") parts.push(p);
      else parts.push(...p.slice(0, 2).filter((t) => t !== null));
    }
    return parts.join("\u0001").toLowerCase();
  };
  let view = [], page = 0, pageSize = 50;
  function update() {
    const terms = $("filter").value.toLowerCase().split(/\s+/).filter(Boolean);
    const errorsOnly = $("errors-only").checked, differsOnly = ns === 2 && $("differs-only").checked;
    if (terms.length && !haystack) haystack = Array.from({length: n}, (_, k) => tokenText(k));
    view = [];
    for (let k = 0; k < n; k++) {
      if (errorsOnly && !errs.some((e) => e[k])) continue;
      if (differsOnly && !utts[k][1]) continue;
      if (terms.length && !terms.every((t) => haystack[k].includes(t))) continue;
      view.push(k);
    }
    view.sort(sorts[select.value][1]);
    page = 0;
    $("utt-shown").textContent = view.length.toLocaleString("en-US");
    $("utt-shown").dataset.value = view.length;
    draw();
  }
  const span = (cls, text) => {
    const e = document.createElement("span");
    e.className = cls; e.textContent = text;
    return e;
  };
  const show = (t) => (t === " " ? "\u2423" : t);
  const KIND = {S: "substitution", D: "deletion", I: "insertion", C: "correct"};
  function cell(p) {
    let ref, hyp, mark;
    if (typeof p === "string") { ref = hyp = p; mark = "C"; }
    else { ref = p[0]; hyp = p[1]; mark = p.length === 3 ? "C" : ref === null ? "I" : hyp === null ? "D" : "S"; }
    const c = document.createElement("span");
    c.className = "cell " + mark;
    for (const t of [ref, hyp]) {
      const e = document.createElement("span");
      if (t === null) { e.className = "gap"; e.textContent = "***"; } else e.textContent = show(t);
      c.appendChild(e);
    }
    const m = document.createElement("span");
    m.className = "m"; m.textContent = mark === "C" ? "\u00a0" : mark;
    c.appendChild(m);
    if (mark !== "C") c.title = KIND[mark];
    return c;
  }
  function stat(s, k) {
    const e = document.createElement("span");
    e.className = "stat";
    const b = document.createElement("b");
    const r = rate(s, k);
    b.textContent = (ns > 1 ? names[s] + " " : "") + (r === Infinity ? "\u221e" : r.toFixed(1)) + "%";
    e.appendChild(b);
    e.append(" " + errs[s][k] + " err / " + refLen[k] + " ref");
    return e;
  }
  function article(k) {
    const u = utts[k];
    const el = document.createElement("article");
    el.className = "utt";
    el.dataset.uttId = u[0];
    el.dataset.errors = names.map((_, s) => errs[s][k]).join(",");
    el.dataset.differs = u[1];
    const h = document.createElement("header");
    const id = document.createElement("span");
    id.className = "uid"; id.textContent = u[0];
    h.appendChild(id);
    for (let s = 0; s < ns; s++) h.appendChild(stat(s, k));
    if (ns === 2 && u[1]) h.appendChild(span("differs", "differ"));
    el.appendChild(h);
    for (let s = 0; s < ns; s++) {
      const row = document.createElement("div");
      row.className = "aln"; row.dataset.system = s;
      const label = document.createElement("span");
      label.className = "sys"; label.textContent = names[s];
      row.appendChild(label);
      const a = u[2 + s];
      if (!a.length) row.appendChild(span("empty", "(empty)"));
      for (const p of a) row.appendChild(cell(p));
      el.appendChild(row);
    }
    return el;
  }
  function draw() {
    const pages = Math.max(1, Math.ceil(view.length / pageSize));
    page = Math.min(Math.max(page, 0), pages - 1);
    const box = $("utts"), frag = document.createDocumentFragment();
    for (const k of view.slice(page * pageSize, (page + 1) * pageSize)) frag.appendChild(article(k));
    box.replaceChildren(frag);
    $("page-info").textContent = "page " + (page + 1) + " of " + pages;
    $("prev").disabled = page === 0; $("next").disabled = page >= pages - 1;
  }
  let timer = null;
  $("filter").addEventListener("input", () => { clearTimeout(timer); timer = setTimeout(update, 150); });
  for (const id of ["sort", "errors-only", "differs-only"]) $(id).addEventListener("change", update);
  $("prev").addEventListener("click", () => { page--; draw(); window.scrollTo(0, $("utterances").offsetTop); });
  $("next").addEventListener("click", () => { page++; draw(); window.scrollTo(0, $("utterances").offsetTop); });
  update();
  document.documentElement.dataset.renderMs = Math.round(performance.now() - started);
  document.documentElement.dataset.ready = "1";
})();
