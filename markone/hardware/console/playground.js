/* Mark I playground: your data, the core and the Mark I side by side, and the exact
   answers of the live panel. The server (markone/console/playground.py) keeps the data
   and answers; this script only shows and asks. Served live it carries the console's
   token; as a replay page (opts.replay) it talks to no server. */
(function () {
  "use strict";
  const opts = JSON.parse(document.getElementById("markone-playground").textContent);
  const live = !opts.replay && typeof opts.token === "string";
  const W = 480, H = 480, THUMB = 2;
  const COLORS = {c0: "#4cc3ff", c1: "#ffb347", wit: "#3ddc84", core: "#ffffff",
                  ring: "#ff5c5c", cyc: "#ffd23f", axis: "#444", bg: "#000"};
  let state = opts.state || null, cycle = null, lastMs = null, pending = 0, seq = 0;
  let replayStep = null, cursor = [0, 0];
  const $ = (id) => document.getElementById(id);

  // ------------------------------------------------------------------ talking
  async function api(path, body) {
    const init = {method: body === undefined ? "GET" : "POST",
                  headers: {"X-Markone-Token": opts.token}};
    if (body !== undefined) {
      init.headers["Content-Type"] = "application/json";
      init.body = JSON.stringify(body);
    }
    const answer = await fetch(path, init);
    let json = null;
    try { json = await answer.json(); } catch (e) { json = null; }
    if (!answer.ok) {
      throw new Error((json && json.error) || ("the console answered " + answer.status));
    }
    return json;
  }
  function fail(e) { $("error").textContent = String((e && e.message) || e); $("error").hidden = false; }
  function clearError() { $("error").hidden = true; $("error").textContent = ""; }
  function say(text) { $("status").textContent = text; }

  async function change(path, body) {
    const t0 = performance.now(), mine = ++seq;
    pending++;
    try {
      const answer = await api(path, body);
      if (mine !== seq) { return; }
      state = answer; cycle = null; replayStep = null;
      clearError(); render();
      lastMs = performance.now() - t0;
      $("timing").textContent = "panel updated " + Math.round(lastMs) + " ms after the change";
      if (state.data.d === 2 && state.panel.separable === false) { await findCycle(mine); }
      return true;
    } catch (e) { fail(e); return false; } finally { pending--; }
  }
  async function findCycle(mine) {
    // searched outside the console's lock: a click meanwhile is answered at once, and
    // a search for data changed since is answered superseded (its cycle never shown)
    $("cycle").textContent = "Looking for the perceptron's cycle…";
    const generation = state.generation;
    const answer = await api("/api/playground/cycle", {generation});
    if (mine === seq && !answer.superseded && answer.generation === state.generation) {
      cycle = answer.cycle; render();
    }
  }

  // ------------------------------------------------------------------ geometry
  function xy(row) { return [row[0], row.length > 1 ? row[1] : 0]; }
  function box() {
    let lo = [-1, -1], hi = [1, 1];
    for (const row of (state ? state.data.X : [])) {
      const p = xy(row);
      for (let k = 0; k < 2; k++) { lo[k] = Math.min(lo[k], p[k]); hi[k] = Math.max(hi[k], p[k]); }
    }
    const pad = [0.08 * (hi[0] - lo[0]), 0.08 * (hi[1] - lo[1])];
    return {lo: [lo[0] - pad[0], lo[1] - pad[1]], hi: [hi[0] + pad[0], hi[1] + pad[1]]};
  }
  function toPx(b, p) {
    return [(p[0] - b.lo[0]) / (b.hi[0] - b.lo[0]) * W, H - (p[1] - b.lo[1]) / (b.hi[1] - b.lo[1]) * H];
  }
  function fromPx(b, px) {
    return [b.lo[0] + px[0] / W * (b.hi[0] - b.lo[0]), b.lo[1] + (H - px[1]) / H * (b.hi[1] - b.lo[1])];
  }
  function decimals(b) { return Math.max(0, 2 - Math.floor(Math.log10(b.hi[0] - b.lo[0]))); }
  function lineShape(b, w, stroke, dash) {
    // w . [x, y, 1] = 0 (2-D) or w . [x, 1] = 0 (1-D), clipped to the box
    const a = w[0], c = w.length > 2 ? w[1] : 0, k = w[w.length - 1];
    let p, q;
    if (Math.abs(c) > Math.abs(a)) {
      p = [b.lo[0], -(a * b.lo[0] + k) / c]; q = [b.hi[0], -(a * b.hi[0] + k) / c];
    } else if (a !== 0) {
      p = [-(c * b.lo[1] + k) / a, b.lo[1]]; q = [-(c * b.hi[1] + k) / a, b.hi[1]];
    } else { return null; }
    const P = toPx(b, p), Q = toPx(b, q);
    if (![...P, ...Q].every(Number.isFinite)) { return null; }
    return {t: "line", x1: P[0], y1: P[1], x2: Q[0], y2: Q[1], stroke, width: 3, dash};
  }

  // ------------------------------------------------------------------ the scene
  function coreWeights() {
    const run = state && state.run;
    if (!run) { return null; }
    if (replayStep === null) { return run.core.w; }
    return replayStep === 0 ? null : run.core.weights_after[replayStep - 1];
  }
  function marks() {
    const panel = state.panel || {}, run = state.run;
    return {gordan: new Set(Object.keys(panel.gordan || {}).map(Number)),
            cyc: new Set(cycle && cycle.found ? cycle.examples : []),
            wrong: run && run.machine.predicted ? run.machine.predicted : null};
  }
  function pointShapes(b, i, m) {
    const d = state.data, [x, y] = toPx(b, xy(d.X[i])), cls = d.labels[i], out = [];
    if (m.gordan.has(i)) { out.push({t: "circle", cx: x, cy: y, r: 11, stroke: COLORS.ring, width: 3}); }
    out.push(cls === 0 ? {t: "circle", cx: x, cy: y, r: 6, fill: COLORS.c0}
                       : {t: "rect", x: x - 6, y: y - 6, w: 12, h: 12, fill: COLORS.c1});
    if (m.cyc.has(i)) {
      out.push({t: "poly", pts: [[x, y - 5], [x + 5, y], [x, y + 5], [x - 5, y]], fill: COLORS.cyc});
    }
    if (m.wrong && m.wrong[i] !== cls) {
      out.push({t: "line", x1: x - 8, y1: y - 8, x2: x + 8, y2: y + 8, stroke: COLORS.ring, width: 2});
      out.push({t: "line", x1: x - 8, y1: y + 8, x2: x + 8, y2: y - 8, stroke: COLORS.ring, width: 2});
    }
    return out;
  }
  function planeScene() {
    const b = box(), d = state.data, shapes = [], m = marks();
    const o = toPx(b, [0, 0]);
    shapes.push({t: "line", x1: 0, y1: o[1], x2: W, y2: o[1], stroke: COLORS.axis, width: 1});
    shapes.push({t: "line", x1: o[0], y1: 0, x2: o[0], y2: H, stroke: COLORS.axis, width: 1});
    if (d.d <= 2) {
      const wit = state.panel && state.panel.witness_float;
      const core = coreWeights();
      if (wit) { shapes.push(lineShape(b, wit, COLORS.wit, "")); }
      if (core) { shapes.push(lineShape(b, core, COLORS.core, "8 6")); }
    }
    d.X.forEach((row, i) => shapes.push(...pointShapes(b, i, m)));
    if (live && d.d === 2) {
      const c = toPx(b, cursor);
      shapes.push({t: "circle", cx: c[0], cy: c[1], r: 4, stroke: "#888", width: 1});
    }
    return {width: W, height: H, shapes: shapes.filter(Boolean)};
  }
  function figureScene() {
    const d = state.data, [rows, cols] = d.retina, m = marks();
    const side = Math.max(rows, cols) * THUMB + 8, per = Math.floor(W / side);
    const shapes = [];
    d.X.forEach((cells, i) => {
      const x0 = (i % per) * side + 2, y0 = Math.floor(i / per) * side + 2;
      const color = d.labels[i] === 0 ? COLORS.c0 : COLORS.c1;
      shapes.push({t: "rect", x: x0, y: y0, w: cols * THUMB + 4, h: rows * THUMB + 4,
                   stroke: m.gordan.has(i) ? COLORS.ring : color, width: 2});
      cells.forEach((v, k) => {
        if (v > 0) {
          shapes.push({t: "rect", x: x0 + 2 + (k % cols) * THUMB,
                       y: y0 + 2 + Math.floor(k / cols) * THUMB, w: THUMB, h: THUMB, fill: color});
        }
      });
      if (m.wrong && m.wrong[i] !== d.labels[i]) {
        shapes.push({t: "line", x1: x0, y1: y0, x2: x0 + side - 6, y2: y0 + side - 6,
                     stroke: COLORS.ring, width: 2});
      }
    });
    return {width: W, height: Math.max(side, Math.ceil(d.X.length / per) * side), shapes};
  }
  function scene() { return state.data.kind === "figures" ? figureScene() : planeScene(); }

  function draw(sc) {
    const canvas = $("plane");
    canvas.width = sc.width; canvas.height = sc.height;
    const g = canvas.getContext("2d");
    g.fillStyle = COLORS.bg; g.fillRect(0, 0, sc.width, sc.height);
    for (const s of sc.shapes) {
      g.beginPath();
      g.setLineDash(s.dash ? s.dash.split(" ").map(Number) : []);
      if (s.t === "line") { g.moveTo(s.x1, s.y1); g.lineTo(s.x2, s.y2); }
      if (s.t === "circle") { g.arc(s.cx, s.cy, s.r, 0, 2 * Math.PI); }
      if (s.t === "rect") { g.rect(s.x, s.y, s.w, s.h); }
      if (s.t === "poly") { s.pts.forEach((p, k) => (k ? g.lineTo(p[0], p[1]) : g.moveTo(p[0], p[1]))); g.closePath(); }
      if (s.fill) { g.fillStyle = s.fill; g.fill(); }
      if (s.stroke) { g.strokeStyle = s.stroke; g.lineWidth = s.width || 1; g.stroke(); }
    }
  }
  function svgOf(sc) {
    const r = (v) => Math.round(v * 100) / 100;
    const paint = (s) => (s.fill ? ` fill="${s.fill}"` : ' fill="none"') +
      (s.stroke ? ` stroke="${s.stroke}" stroke-width="${s.width || 1}"` : "") +
      (s.dash ? ` stroke-dasharray="${s.dash}"` : "");
    const body = sc.shapes.map((s) => {
      if (s.t === "line") { return `<line x1="${r(s.x1)}" y1="${r(s.y1)}" x2="${r(s.x2)}" y2="${r(s.y2)}"${paint(s)}/>`; }
      if (s.t === "circle") { return `<circle cx="${r(s.cx)}" cy="${r(s.cy)}" r="${s.r}"${paint(s)}/>`; }
      if (s.t === "rect") { return `<rect x="${r(s.x)}" y="${r(s.y)}" width="${r(s.w)}" height="${r(s.h)}"${paint(s)}/>`; }
      return `<polygon points="${s.pts.map((p) => r(p[0]) + "," + r(p[1])).join(" ")}"${paint(s)}/>`;
    });
    return `<svg xmlns="http://www.w3.org/2000/svg" width="${sc.width}" height="${sc.height}" ` +
      `viewBox="0 0 ${sc.width} ${sc.height}"><rect width="100%" height="100%" fill="${COLORS.bg}"/>\n` +
      body.join("\n") + "\n</svg>\n";
  }

  // ------------------------------------------------------------------ words
  function para(parent, ...parts) {
    const p = document.createElement("p");
    for (const part of parts) {
      if (Array.isArray(part)) {
        const span = document.createElement("span");
        span.className = part[0]; span.textContent = part[1]; p.appendChild(span);
      } else { p.appendChild(document.createTextNode(part)); }
    }
    parent.appendChild(p);
    return p;
  }
  function series(list) {
    return list.length <= 12 ? list.join(", ") : list.slice(0, 10).join(", ") + ", …, " + list[list.length - 1];
  }
  function plural(n, word) { return n + " " + word + (n === 1 ? "" : "es".slice(word.endsWith("s") ? 0 : 1)); }
  function num(v) { return v === null || v === undefined ? "∞" : String(+v.toPrecision(6)); }
  function renderPanel() {
    const box = $("panel"), panel = state.panel;
    box.textContent = "";
    if (!panel.available) { para(box, ["no", "Exact answers unavailable: "], panel.why + "."); return; }
    if (panel.empty) { para(box, "No points yet: click on the plane, paste a table or load figures."); return; }
    if (panel.error) { para(box, ["no", "The exact check refused these data: "], panel.error); return; }
    if (panel.separable === true) {
      para(box, ["yes", "Separable"], " (exact, by " + panel.method + "): the witness line w = (" +
           panel.witness.join(", ") + ") is positive on every point, its last entry the intercept.");
    } else if (panel.separable === false) {
      const g = Object.entries(panel.gordan);
      para(box, ["no", "Not separable"], " (exact, by " + panel.method + "): Gordan multipliers λ ≥ 0 on " +
           g.length + " points (ringed) make Σ λᵢ yᵢ [xᵢ, 1] = 0: " +
           g.slice(0, 8).map(([i, l]) => "point " + (+i + 1) + ": " + l).join("; ") + (g.length > 8 ? "; …" : "") + ".");
    } else { para(box, ["no", "Undecided"], ": " + panel.message); }
    const m = panel.margin;
    para(box, "Certified margin interval: [" + num(m.lower) + ", " + num(m.upper) + "], R = " + num(m.R) + ".");
    para(box, panel.novikoff === null ? "Novikoff bound: none (no positive margin)."
      : "Novikoff bound: at most " + Math.ceil(panel.novikoff) + " mistakes in any order ((R/γ)², γ the interval's lower end).");
  }
  function renderCycle() {
    const p = $("cycle");
    if (!cycle) { if (!(state.panel.separable === false && state.data.d === 2)) { p.textContent = ""; } return; }
    p.textContent = cycle.found
      ? "The perceptron cycles (◆): after " + cycle.transient + " updates, a period of " + cycle.period_updates +
        " updates (" + plural(cycle.period_passes, "pass") + ") through " + cycle.examples.length + " points, found exactly."
      : "No cycle found: " + cycle.message;
  }
  function renderRun() {
    const run = state.run;
    if (!run) { $("core").textContent = "not trained yet"; $("machine").textContent = "not trained yet"; return; }
    const n = state.data.n, c = run.core, mc = run.machine;
    $("core").textContent = (c.converged ? "converged in " + c.epochs + " passes" : "not converged after " + c.epochs + " passes") +
      "; mistakes per pass: " + series(c.mistakes_per_epoch) + "; right on " + c.right + " of " + n + ".";
    $("machine").textContent = mc.unavailable ? "Not shown: " + mc.unavailable + "."
      : (mc.converged ? "converged in " + mc.epochs + " passes" : "not converged after " + mc.epochs + " passes") +
        " (" + num(mc.sim_time_s) + " s of machine time, seeing " + mc.sees + "); figures wrong per pass: " +
        series(mc.errors_per_epoch) + "; right on " + mc.right + " of " + n + " (✕ wrong).";
  }
  function renderTable() {
    const d = state.data, show = d.kind === "points" && d.d !== 2 && d.n > 0;
    $("table-box").hidden = !show;
    $("plane-hint").textContent = d.kind === "figures" ? "the figures, framed by class"
      : d.d === 2 ? "click to add a point" : "projection on the first " + Math.min(d.d, 2) + " features";
    if (!show) { return; }
    const head = ["#"].concat(Array.from({length: d.d}, (_, k) => "x" + (k + 1)), ["class"]);
    $("table").tHead.innerHTML = "";
    const hr = $("table").tHead.insertRow();
    head.forEach((h) => { const th = document.createElement("th"); th.textContent = h; hr.appendChild(th); });
    const body = $("table").tBodies[0];
    body.innerHTML = "";
    d.X.slice(0, 50).forEach((row, i) => {
      const tr = body.insertRow();
      [i + 1, ...row.map(num), d.classes[d.labels[i]]].forEach((v) => { tr.insertCell().textContent = v; });
    });
  }
  function render() {
    if (!state) { return; }
    const d = state.data;
    $("summary").textContent = d.n + " " + (d.kind === "figures" ? "figures" : d.d + "-D points") +
      " of classes " + d.classes[0] + " (−1, ●) and " + d.classes[1] + " (+1, ■).";
    $("cls0").textContent = d.classes[0]; $("cls1").textContent = d.classes[1];
    draw(scene()); renderPanel(); renderCycle(); renderRun(); renderTable();
    const run = state.run, steps = run ? run.core.weights_after.length : 0;
    $("replay-row").hidden = !(opts.replay && steps > 0 && d.d <= 2);
    $("replay-step").max = String(steps);
    if (replayStep === null) { $("replay-step").value = String(steps); }
    $("replay-at").textContent = replayStep === null ? "the final line" : "after update " + replayStep + " of " + steps;
  }

  // ------------------------------------------------------------------ files
  function download(name, text, type) {
    const a = document.createElement("a");
    a.href = URL.createObjectURL(text instanceof Blob ? text : new Blob([text], {type}));
    a.download = name; document.body.appendChild(a); a.click(); a.remove();
    say("saved " + name);
  }
  async function fetchDownload(path, name, pick) {
    try { const answer = await api(path); download(name, pick(answer), "application/json"); clearError(); }
    catch (e) { fail(e); }
  }
  function readText(file) { return file.text(); }
  async function reading(work) {   // busy from the file's choice to the answer
    pending++;
    try { await work(); } catch (e) { fail(e); } finally { pending--; }
  }

  // ------------------------------------------------------------------ input
  function addAt(px) {
    if (!live || state.data.kind !== "points" || state.data.d !== 2) { return; }
    const b = box(), p = fromPx(b, px), k = decimals(b);
    const cls = Number(document.querySelector("input[name=cls]:checked").value);
    return change("/api/playground/point", {x: [p[0].toFixed(k), p[1].toFixed(k)], label: cls});
  }
  function wire() {
    if (!live) {
      ["data-controls", "train-row", "save", "load-label", "cert", "replay", "to-console"].forEach((id) => { $(id).hidden = true; });
      $("mode").textContent = "replay of a saved session";
      $("replay-step").addEventListener("input", () => { replayStep = Number($("replay-step").value); render(); });
      return;
    }
    $("plane").addEventListener("click", (ev) => {
      const r = $("plane").getBoundingClientRect();
      addAt([(ev.clientX - r.left) * W / r.width, (ev.clientY - r.top) * H / r.height]);
    });
    $("plane").addEventListener("keydown", (ev) => {
      const b = box(), step = (b.hi[0] - b.lo[0]) / 40;
      const moves = {ArrowLeft: [-step, 0], ArrowRight: [step, 0], ArrowUp: [0, step], ArrowDown: [0, -step]};
      if (moves[ev.key]) { cursor = [cursor[0] + moves[ev.key][0], cursor[1] + moves[ev.key][1]]; render(); ev.preventDefault(); }
      if (ev.key === "Enter" || ev.key === " ") { addAt(toPx(b, cursor)); ev.preventDefault(); }
    });
    $("use-csv").addEventListener("click", () => change("/api/playground/data", {csv: $("csv").value}));
    $("csv-file").addEventListener("change", () => reading(async () => {
      const f = $("csv-file").files[0];
      if (f) { $("csv").value = await readText(f); await change("/api/playground/data", {csv: $("csv").value}); }
    }));
    const figures = async (input) => {
      const files = Array.from(input.files).filter((f) => !f.name.startsWith("."));
      const sent = await Promise.all(files.map(async (f) => ({name: f.webkitRelativePath || f.name, text: await readText(f)})));
      await change("/api/playground/data", {figures: sent});
    };
    $("figures").addEventListener("change", () => reading(() => figures($("figures"))));
    $("figure-files").addEventListener("change", () => reading(() => figures($("figure-files"))));
    $("undo").addEventListener("click", () => state.data.n && change("/api/playground/point", {remove: state.data.n - 1}));
    $("clear").addEventListener("click", () => change("/api/playground/clear", {}));
    $("train").addEventListener("click", () => change("/api/playground/train", {max_epochs: Number($("epochs").value)}));
    $("save").addEventListener("click", () => fetchDownload("/api/playground/saved", "playground-session.json", (a) => JSON.stringify(a, null, 1)));
    $("load").addEventListener("change", () => reading(async () => {
      const f = $("load").files[0];
      if (f && await change("/api/playground/session", {text: await readText(f)})) { say("loaded " + f.name); }
    }));
    $("cert").addEventListener("click", () => fetchDownload("/api/playground/certificate", "playground-certificate.json", (a) => JSON.stringify(a, null, 1)));
    $("replay").addEventListener("click", () => fetchDownload("/api/playground/replay", "playground-replay.html", (a) => a.html));
  }
  function wireExports() {
    $("png").addEventListener("click", () => $("plane").toBlob((blob) => download("playground.png", blob, "image/png")));
    $("svg").addEventListener("click", () => download("playground.svg", svgOf(scene()), "image/svg+xml"));
  }

  window.markonePlayground = {
    state: () => state, cycle: () => cycle, lastMs: () => lastMs, busy: () => pending > 0,
    scene: () => scene(), svg: () => svgOf(scene()), live,
    clickAt: (x, y) => addAt(toPx(box(), [x, y])),
    step: (k) => { replayStep = k; render(); },
  };
  wire(); wireExports(); render();
}());
