/* Mark I console: replays a recorded Mark I training run in the browser.
 *
 * Reads the run (JSON format "markone-machine-run", version 1 to 4) embedded in the page,
 * checks it, and shows the machine at any machine time t: the figure on the retina,
 * the A-units that fired, each R-unit's answer, the potentiometers (knobs) turning
 * while the motors run, and the running count of mistakes. Plain JavaScript, no
 * libraries, no network. `window.markoneConsole` exposes the controls and the state
 * (used by the browser test).
 */
(function () {
  "use strict";

  // Button symbols drawn as SVG, not font glyphs: a font without U+23F8 showed the
  // pause button as an empty box (issue 15).
  const ICONS = {
    play: '<svg class="icon" viewBox="0 0 10 10" aria-hidden="true"><path d="M2 1l7 4-7 4z"/></svg>',
    pause: '<svg class="icon" viewBox="0 0 10 10" aria-hidden="true"><path d="M2 1h2.4v8H2zM5.6 1H8v8H5.6z"/></svg>',
  };

  const FORMAT = "markone-machine-run";
  const VERSION = 4; // the newest version read (every older one too)
  const SPEEDS = [0.25, 0.5, 1, 2, 5, 10, 30, 100, 1000];
  const SNAPSHOT_EVERY = 32; // presentations between stored weight snapshots
  const HOW_TO = "Make a replay with: markone machine replay RUN.json --html OUT.html";

  /* ---- checking a run ----------------------------------------------------------- */

  /** Presentations checked and folded into a replay, and full loads and merged
   *  answers, since the page opened: a live answer costs the presentations it
   *  brings, not the session's length (issue 44; read by the browser test). */
  const work = { checked: 0, replayed: 0, loads: 0, updates: 0 };

  const isInt = (v) => Number.isInteger(v);
  const isNum = (v) => typeof v === "number" && Number.isFinite(v);
  const isArr = Array.isArray;

  /** Return a list of problems (strings) with `run`; empty when it can be replayed.
   *  `live`: a session still under way, which may have no presentation (or class) yet.
   *  `from`, `figuresFrom` (a live answer merged in): the presentations and figures
   *  before these were checked already; only the later ones are. */
  function checkRun(run, live = false, from = 0, figuresFrom = 0) {
    if (run === null || typeof run !== "object" || isArr(run)) {
      return ["The data is not a JSON object, so it cannot be a Mark I run."];
    }
    if (run.format !== FORMAT) {
      return [`This file is not a Mark I training run: its "format" is ` +
        `${JSON.stringify(run.format)}, expected "${FORMAT}". ${HOW_TO}`];
    }
    if (!isInt(run.version) || run.version < 1) {
      return [`This run has no valid format "version" (got ${JSON.stringify(run.version)}); ` +
        `this console reads version ${VERSION}. ${HOW_TO}`];
    }
    if (run.version > VERSION) {
      return [`This run uses format version ${run.version}, but this console reads ` +
        `versions up to ${VERSION}: it was written by a newer markone ` +
        `(${run.markone_version || "unknown version"}). Make the replay with that ` +
        `markone: markone machine replay RUN.json --html OUT.html`];
    }
    const top = ["retina_shape", "n_a_units", "n_r_units", "classes", "codes", "figures",
      "weights_initial", "sim_time_s", "presentations"];
    const missing = top.filter((k) => !(k in run));
    if (missing.length) {
      return [`This run is missing the field(s) ${missing.join(", ")}; the file is ` +
        `truncated or was not written by MachineRun.save. ${HOW_TO}`];
    }
    const problems = [];
    const need = (ok, text) => { if (!ok && problems.length < 6) problems.push(text); };
    const shape = run.retina_shape, nA = run.n_a_units, nR = run.n_r_units;
    need(isArr(shape) && shape.length === 2 && shape.every((v) => isInt(v) && v > 0),
      `"retina_shape" must be [rows, columns], got ${JSON.stringify(shape)}.`);
    need(isInt(nA) && nA > 0, `"n_a_units" must be a positive integer, got ${JSON.stringify(nA)}.`);
    need(isInt(nR) && nR > 0, `"n_r_units" must be a positive integer, got ${JSON.stringify(nR)}.`);
    need(isNum(run.sim_time_s), `"sim_time_s" must be a number, got ${JSON.stringify(run.sim_time_s)}.`);
    need(isArr(run.classes) && (live || run.classes.length > 0), `"classes" must be a non-empty list.`);
    need(isArr(run.presentations) && (live || run.presentations.length > 0),
      `This run has no presentations to replay: it was recorded without its log. ` +
      `Record it with MarkI(...).train(..., log=True).`);
    const knobs = run.knob_changes === undefined ? [] : run.knob_changes;
    need(isArr(knobs) && knobs.every((c) => c !== null && typeof c === "object" &&
      isInt(c.presentation) && c.presentation >= 0 && c.presentation <= run.presentations.length &&
      typeof c.name === "string" && "new" in c &&
      (c.rewired === undefined || typeof c.rewired === "boolean")),
    `"knob_changes" must list {presentation, at_s, name, old, new} changes, each before ` +
    `a presentation of the run.`);
    if (problems.length) return problems;
    checkEarlier(run.earlier, need);
    if (problems.length) return problems;
    const matrix = (m, name) => need(isArr(m) && m.length === nR &&
      m.every((row) => isArr(row) && row.length === nA && row.every(isNum)),
    `"${name}" must be ${nR} rows of ${nA} numbers.`);
    matrix(run.weights_initial, "weights_initial");
    if (run.weight_mask !== null && run.weight_mask !== undefined) matrix(run.weight_mask, "weight_mask");
    need(isArr(run.codes) && run.codes.length === run.classes.length &&
      run.codes.every((c) => isArr(c) && c.length === nR),
    `"codes" must hold one code of ${nR} values per class.`);
    const nPix = shape[0] * shape[1];
    need(isArr(run.figures) && run.figures.slice(figuresFrom).every((f) => isArr(f) && f.length === nPix),
      `"figures" must be lists of ${nPix} retina cells each.`);
    const fields = ["t_s", "end_t_s", "figure", "label", "active_a", "scores", "response",
      "target", "reinforced", "changes", "saturated", "motor_s", "figure_correct"];
    for (let i = from; i < run.presentations.length && problems.length < 6; i++) {
      const p = run.presentations[i];
      work.checked += 1;
      const at = `presentations[${i}]`;   // the run file's JSON index, from 0
      if (p === null || typeof p !== "object") { need(false, `${at} is not an object.`); continue; }
      const lost = fields.filter((k) => !(k in p));
      if (lost.length) { need(false, `${at} is missing the field(s) ${lost.join(", ")}.`); continue; }
      need(isNum(p.t_s) && isNum(p.end_t_s) && p.end_t_s >= p.t_s && isNum(p.motor_s) &&
        p.motor_s >= 0 && p.motor_s <= p.end_t_s - p.t_s + 1e-9,
      `${at}: times must satisfy t_s <= end_t_s and 0 <= motor_s <= end_t_s - t_s.`);
      need(isInt(p.figure) && p.figure >= 0 && p.figure < run.figures.length,
        `${at}: "figure" is ${JSON.stringify(p.figure)} but the run has ${run.figures.length} figures.`);
      need(isInt(p.label) && p.label >= 0 && p.label < run.classes.length,
        `${at}: "label" is ${JSON.stringify(p.label)} but the run has ${run.classes.length} classes.`);
      need(isArr(p.active_a) && p.active_a.every((a) => isInt(a) && a >= 0 && a < nA),
        `${at}: "active_a" must list A-unit indices in 0..${nA - 1}.`);
      for (const k of ["scores", "response", "target", "reinforced"]) {
        need(isArr(p[k]) && p[k].length === nR, `${at}: "${k}" must have ${nR} entries.`);
      }
      need(isArr(p.changes) && p.changes.every((c) => isArr(c) && c.length === 3 &&
        isInt(c[0]) && c[0] >= 0 && c[0] < nR && isInt(c[1]) && c[1] >= 0 && c[1] < nA &&
        isNum(c[2])), `${at}: "changes" must be [r, a, new_value] triples with r < ${nR}, a < ${nA}.`);
    }
    return problems;
  }

  /** A run's `earlier` runs (format 4: the machines a live session had before a knob
   *  of the wiring rebuilt it): each a whole run, ended by a rewired knob change. */
  function checkEarlier(earlier, need) {
    if (earlier === undefined) return;
    need(isArr(earlier), `"earlier" must be a list of runs.`);
    (isArr(earlier) ? earlier : []).forEach((part, k) => {
      const problems = checkRun(part);
      need(!problems.length, `earlier[${k}]: ${problems[0]}`);
      const knobs = part && isArr(part.knob_changes) ? part.knob_changes : [];
      need(!problems.length && !("earlier" in part) && knobs.length > 0 &&
        knobs[knobs.length - 1].rewired === true,
      `earlier[${k}] must be the run of one machine that a rewired knob change ended.`);
    });
  }

  /** The rewired knob change that ended `run` (one of a run's earlier ones), or null. */
  function rewireOf(run) {
    const knobs = run.knob_changes || [];
    const last = knobs[knobs.length - 1];
    return last && last.rewired ? last : null;
  }

  const turnedText = (c) => `${c.name} from ${JSON.stringify(c.old)} to ${JSON.stringify(c.new)}`;

  /* ---- the replay model: the machine's state at any machine time -------------------- */

  class Replay {
    /** `verdicts` (live): the server's verdict of each presentation (the class the
     *  machine answered, right or not, R-units right, counts so far), shown as they
     *  come: the page computes none of them. A replay of a file computes them. */
    constructor(run, verdicts = null) {
      this.run = run;
      this.nA = run.n_a_units;
      this.nR = run.n_r_units;
      this.pres = run.presentations;
      this.snapshots = [Float64Array.from(run.weights_initial.flat())];
      this.scale0 = this.snapshots[0].reduce((m, v) => Math.max(m, Math.abs(v)), 0);
      this.wrongUpTo = [];
      this.correctionsUpTo = [];
      this.scaleUpTo = [];
      this.marks = []; // the timeline's markers: where the machine was rewired
      this.extend(0, verdicts);
    }

    /** Mark the timeline: `from` (the change that wired this machine anew, at 0 s)
     *  and this run's own rewire (at its end), when there are. */
    markRewires(from) {
      this.from = from;
      this.marks = [];
      if (from) this.marks.push({ at_s: 0, label: `wired anew: ${from.name}`, change: from });
      const to = rewireOf(this.run);
      if (to) this.marks.push({ at_s: Math.min(to.at_s, this.end), label: `rewired: ${to.name}`, change: to });
    }

    /** Keep presentations 0..since-1 as they were and fold in the later ones of
     *  this.pres (a live answer: they replace the figure that was on show). */
    extend(since, verdicts = this.verdicts) {
      this.verdicts = verdicts;
      for (const arr of [this.wrongUpTo, this.correctionsUpTo, this.scaleUpTo]) arr.length = since;
      this.snapshots.length = Math.floor(since / SNAPSHOT_EVERY) + 1;
      const w = this.weightsAfter(since - 1);
      let wrong = since ? this.wrongUpTo[since - 1] : 0;
      let corrections = since ? this.correctionsUpTo[since - 1] : 0;
      let scale = since ? this.scaleUpTo[since - 1] : this.scale0;
      for (let i = since; i < this.pres.length; i++) {
        const p = this.pres[i];
        work.replayed += 1;
        this.apply(w, i);
        for (const c of p.changes) scale = Math.max(scale, Math.abs(c[2]));
        if ((i + 1) % SNAPSHOT_EVERY === 0) this.snapshots.push(w.slice());
        wrong += p.figure_correct ? 0 : 1;
        corrections += p.reinforced.filter(Boolean).length;
        this.wrongUpTo.push(verdicts ? verdicts[i].wrong_so_far : wrong);
        this.correctionsUpTo.push(verdicts ? verdicts[i].corrections_so_far : corrections);
        this.scaleUpTo.push(scale);
      }
      this.scale = scale || 1;
      const last = this.pres.length ? this.pres[this.pres.length - 1].end_t_s : 0;
      this.end = Math.max(this.run.sim_time_s, last);
      this.cache = { i: -2 };
    }

    apply(w, i) {
      for (const [r, a, v] of this.pres[i].changes) w[r * this.nA + a] = v;
    }

    /** Weights (flat, R-unit major) after presentations 0..i; i = -1 gives the start. */
    weightsAfter(i) {
      const s = Math.floor((i + 1) / SNAPSHOT_EVERY);
      const w = this.snapshots[s].slice();
      for (let j = s * SNAPSHOT_EVERY; j <= i; j++) this.apply(w, j);
      return w;
    }

    /** Index of the presentation under way (or just finished) at time t, -1 before. */
    presentationAt(t) {
      let lo = 0, hi = this.pres.length; // first index with t_s >= t
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if (this.pres[mid].t_s < t) lo = mid + 1; else hi = mid;
      }
      return lo - 1;
    }

    decisionTime(i) { return this.pres[i].end_t_s - this.pres[i].motor_s; }

    /** The knobs turned (as MachineRun.knob_changes) before presentation i went up. */
    knobsBefore(i) {
      return (this.run.knob_changes || []).filter((c) => c.presentation <= i);
    }

    /** The faults of the run (as FaultPlan.to_dict writes them) that happened by t. */
    faultsAt(t) {
      const plan = this.run.faults;
      return plan && isArr(plan.faults) ? plan.faults.filter((f) => (f.at_s || 0) <= t) : [];
    }

    /** Weights before and after presentation i, and the motors' time per step. */
    around(i) {
      if (this.cache.i !== i) {
        const before = this.cache.i === i - 1 ? this.cache.after : this.weightsAfter(i - 1);
        const after = before.slice();
        this.apply(after, i);
        let maxDelta = 0;
        for (const [r, a] of this.pres[i].changes) {
          maxDelta = Math.max(maxDelta, Math.abs(after[r * this.nA + a] - before[r * this.nA + a]));
        }
        const p = this.pres[i];
        this.cache = { i, before, after, stepTime: maxDelta > 0 ? p.motor_s / maxDelta : 0 };
      }
      return this.cache;
    }

    /** Everything the console shows at machine time t. */
    frameAt(t) {
      const i = this.presentationAt(t);
      if (i < 0) {
        return { i, step: -1, phase: "rest", weights: this.snapshots[0], moving: [],
          decided: false, mistakes: 0, corrections: 0 };
      }
      const p = this.pres[i];
      const { before, after, stepTime } = this.around(i);
      const decided = t >= this.decisionTime(i);
      const earlier = (arr) => (i > 0 ? arr[i - 1] : 0);
      const frame = { i, decided,
        mistakes: decided ? this.wrongUpTo[i] : earlier(this.wrongUpTo),
        corrections: decided ? this.correctionsUpTo[i] : earlier(this.correctionsUpTo) };
      if (t >= p.end_t_s) return Object.assign(frame, { step: i, phase: "done", weights: after, moving: [] });
      frame.step = i - 1;
      if (!decided) return Object.assign(frame, { phase: "sensing", weights: before, moving: [] });
      const elapsed = t - this.decisionTime(i);
      const weights = before.slice();
      const moving = [];
      for (const [r, a] of p.changes) {
        const k = r * this.nA + a, delta = after[k] - before[k];
        const moved = stepTime > 0 ? elapsed / stepTime : Infinity;
        if (moved < Math.abs(delta)) {
          weights[k] = before[k] + Math.sign(delta) * moved;
          moving.push(k);
        } else weights[k] = after[k];
      }
      return Object.assign(frame, { phase: "motors", weights, moving });
    }

    /** The class the machine answered: the code nearest (Hamming) to the R-units'
     *  response; ties go to the code that agrees best with the scores (as MarkI does). */
    /** Whether presentation i was read right. */
    right(i) { return this.verdicts ? this.verdicts[i].right : this.pres[i].figure_correct; }

    /** How many R-units answered presentation i as its class's code says. */
    unitsRight(i) {
      if (this.verdicts) return this.verdicts[i].r_units_right;
      const p = this.pres[i];
      return p.response.filter((v, r) => v === p.target[r]).length;
    }

    /** The class presentation i was answered as, in words. */
    answerText(i) {
      const a = this.decoded(i);
      if (a === null) return "no class (it has been taught none yet)";
      // a live session's figure of a class not taught yet is recorded wrong, though
      // the nearest of all the run's codes may be its own class's
      if (!this.verdicts && a === this.pres[i].label && !this.pres[i].figure_correct) {
        return `no class it had been taught (not “${this.run.classes[a]}” yet)`;
      }
      return `“${this.run.classes[a]}”`;
    }

    decoded(i) {
      if (this.verdicts) return this.verdicts[i].answer; // null: it knew no class yet
      const { response, scores } = this.pres[i];
      let best = 0, bestDist = Infinity, bestAgree = -Infinity;
      this.run.codes.forEach((code, c) => {
        const dist = code.filter((v, r) => v !== response[r]).length;
        const agree = code.reduce((s, v, r) => s + v * scores[r], 0);
        if (dist < bestDist || (dist === bestDist && agree > bestAgree)) {
          best = c; bestDist = dist; bestAgree = agree;
        }
      });
      return best;
    }
  }

  /* ---- drawing ---------------------------------------------------------------------- */

  const COLORS = { lit: "#ffd23f", off: "#262626", grid: "#000", face: "#333",
    ring: "#9a9a9a", moving: "#4cc3ff", fg: "#fff", dim: "#b8b8b8", wrong: "#ff5c5c" };

  /** Columns of the A-unit (and potentiometer) grids. */
  const aUnitColumns = (nA) => (nA >= 64 ? 32 : Math.ceil(Math.sqrt(nA)));

  /** Cross out the cells `indices` of a grid drawn by drawCells. */
  function drawCrosses(canvas, indices, cols, rows, color = COLORS.wrong) {
    const ctx = canvas.getContext("2d");
    const size = Math.min(canvas.width / cols, canvas.height / rows);
    ctx.strokeStyle = color;
    ctx.lineWidth = Math.max(1.5, size / 5);
    for (const k of indices) {
      const x = (k % cols) * size, y = Math.floor(k / cols) * size;
      ctx.beginPath();
      ctx.moveTo(x + 1, y + 1); ctx.lineTo(x + size - 1, y + size - 1);
      ctx.moveTo(x + size - 1, y + 1); ctx.lineTo(x + 1, y + size - 1);
      ctx.stroke();
    }
  }

  function drawCells(canvas, cells, cols, rows) {
    const ctx = canvas.getContext("2d");
    const size = Math.min(canvas.width / cols, canvas.height / rows);
    ctx.fillStyle = COLORS.grid;
    ctx.fillRect(0, 0, canvas.width, canvas.height);
    for (let k = 0; k < cols * rows; k++) {
      const x = (k % cols) * size + 1, y = Math.floor(k / cols) * size + 1;
      const v = Math.min(1, Math.max(0, Number(cells[k]) || 0)); // a light level
      ctx.fillStyle = COLORS.off;
      ctx.fillRect(x, y, size - 2, size - 2);
      if (v > 0) {
        ctx.globalAlpha = v;
        ctx.fillStyle = COLORS.lit;
        ctx.fillRect(x, y, size - 2, size - 2);
        ctx.globalAlpha = 1;
      }
    }
  }

  /** One potentiometer per A-unit for R-unit r: pointer up = 0, +-135 deg = +-scale. */
  function drawKnobs(canvas, replay, frame, r, cols) {
    const ctx = canvas.getContext("2d");
    const nA = replay.nA, rows = Math.ceil(nA / cols);
    const size = Math.min(canvas.width / cols, canvas.height / rows), rad = size * 0.42;
    const mask = replay.run.weight_mask;
    const moving = new Set(frame.moving);
    ctx.fillStyle = "#000";
    ctx.fillRect(0, 0, canvas.width, canvas.height);
    ctx.lineCap = "round";
    for (let a = 0; a < nA; a++) {
      const x = (a % cols + 0.5) * size, y = (Math.floor(a / cols) + 0.5) * size;
      if (mask && !mask[r][a]) { // no potentiometer wired here
        ctx.fillStyle = "#444";
        ctx.fillRect(x - 1.5, y - 1.5, 3, 3);
        continue;
      }
      const k = r * nA + a, turning = moving.has(k);
      ctx.beginPath();
      ctx.arc(x, y, rad, 0, 2 * Math.PI);
      ctx.fillStyle = COLORS.face;
      ctx.fill();
      ctx.lineWidth = turning ? 3 : 1;
      ctx.strokeStyle = turning ? COLORS.moving : COLORS.ring;
      ctx.stroke();
      const angle = (frame.weights[k] / replay.scale) * 0.75 * Math.PI;
      ctx.beginPath();
      ctx.moveTo(x, y);
      ctx.lineTo(x + Math.sin(angle) * rad, y - Math.cos(angle) * rad);
      ctx.lineWidth = 2.5;
      ctx.strokeStyle = COLORS.lit;
      ctx.stroke();
    }
  }

  function drawChart(canvas, replay, t, mistakes) {
    const ctx = canvas.getContext("2d");
    const W = canvas.width, H = canvas.height, L = 56, B = 52, T = 16, R = 16;
    const total = Math.max(1, replay.wrongUpTo[replay.wrongUpTo.length - 1] || 0);
    const X = (s) => L + (s / (replay.end || 1)) * (W - L - R);
    const Y = (m) => H - B - (m / total) * (H - B - T);
    ctx.fillStyle = "#111";
    ctx.fillRect(0, 0, W, H);
    ctx.strokeStyle = COLORS.dim;
    ctx.lineWidth = 1.5;
    ctx.beginPath();
    ctx.moveTo(L, T); ctx.lineTo(L, H - B); ctx.lineTo(W - R, H - B);
    ctx.stroke();
    ctx.fillStyle = COLORS.fg;
    ctx.font = "20px system-ui, sans-serif";
    ctx.textAlign = "right";
    ctx.fillText(String(total), L - 6, Y(total) + 5);
    ctx.fillText("0", L - 6, Y(0) + 5);
    ctx.textAlign = "center";
    ctx.fillText("0", X(0), H - B + 24);
    ctx.fillText(`${fmt(replay.end)} s`, X(replay.end) - 30, H - B + 24);
    ctx.fillText("machine time", (L + W - R) / 2, H - 6);
    const path = (upto, color, width) => {
      ctx.beginPath();
      ctx.moveTo(X(0), Y(0));
      let m = 0;
      for (let i = 0; i < replay.pres.length; i++) {
        const d = replay.decisionTime(i);
        if (d > upto) break;
        if (replay.wrongUpTo[i] !== m) {
          ctx.lineTo(X(d), Y(m));
          m = replay.wrongUpTo[i];
          ctx.lineTo(X(d), Y(m));
        }
      }
      ctx.lineTo(X(Math.min(upto, replay.end)), Y(m));
      ctx.strokeStyle = color;
      ctx.lineWidth = width;
      ctx.stroke();
    };
    path(replay.end, "#555", 2);
    path(t, COLORS.wrong, 3.5);
    for (const mark of replay.marks) { // where the machine was rewired
      const x = X(mark.at_s);
      ctx.save();
      ctx.setLineDash([6, 4]);
      ctx.strokeStyle = COLORS.moving;
      ctx.lineWidth = 2;
      ctx.beginPath();
      ctx.moveTo(x, T); ctx.lineTo(x, H - B);
      ctx.stroke();
      ctx.restore();
      ctx.fillStyle = COLORS.moving;
      ctx.font = "16px system-ui, sans-serif";
      ctx.textAlign = x > W / 2 ? "right" : "left";
      ctx.fillText(mark.label, x + (x > W / 2 ? -6 : 6), H - B - 8);
    }
    ctx.strokeStyle = COLORS.lit;
    ctx.lineWidth = 2;
    ctx.beginPath();
    ctx.moveTo(X(t), T); ctx.lineTo(X(t), H - B);
    ctx.stroke();
    ctx.fillStyle = COLORS.lit;
    ctx.textAlign = "left";
    ctx.fillText(`${mistakes}`, Math.min(X(t) + 6, W - R - 30), T + 18);
  }

  const fmt = (v) => (Number.isInteger(v) ? String(v) : v.toFixed(2));
  const signed = (v) => (v > 0 ? `+${fmt(v)}` : v < 0 ? `−${fmt(-v)}` : "0");

  /* ---- the console: controls, keyboard, text alternatives ---------------------------- */

  const $ = (id) => document.getElementById(id);

  class Console {
    constructor() {
      this.replay = null;
      this.t = 0;
      this.speed = 1;
      this.unit = 0;
      this.playing = false;
      this.error = null;
      this.lastKey = "";
      this.hooks = []; // called after every render with the frame shown (live mode)
      this.chain = []; // the machines of the session: its earlier runs, then the run
      this.part = 0;   // the one shown
      this.bindControls();
    }

    /* loading */

    /** Show `run` from its start; `live`: a session under way (may be empty), shown
     *  with the R-unit chosen before; `view` (live): the server's header and verdicts,
     *  shown as they are. */
    load(run, live = false, view = null) {
      this.pause();
      work.loads += 1;
      const problems = checkRun(run, live);
      if (problems.length) return this.fail(problems.join("\n"));
      this.error = null;
      this.top = { live, view };
      this.chain = isArr(run.earlier) ? [...run.earlier, run] : [run];
      this.buildWiring();
      return this.showPart(this.chain.length - 1);
    }

    /** Show machine k of the session (its earlier runs first, the run itself last):
     *  a rewire built each next one. */
    showPart(k) {
      this.pause();
      this.part = k;
      const last = k === this.chain.length - 1;
      this.view = last ? this.top.view : null;
      this.replay = new Replay(this.chain[k], this.view ? this.view.verdicts : null);
      this.replay.markRewires(k > 0 ? rewireOf(this.chain[k - 1]) : null);
      if (!this.top.live || this.unit >= this.replay.nR) this.unit = 0;
      $("error").hidden = true;
      $("machine").hidden = false;
      $("controls").hidden = false;
      $("wiring").value = String(k);
      this.buildUnitButtons();
      return this.shown();
    }

    /** The machine chooser: one entry per machine of the session (hidden for one). */
    buildWiring() {
      const select = $("wiring");
      select.replaceChildren(...this.chain.map((part, k) => {
        const to = rewireOf(part), n = this.chain.length;
        const what = to ? `until ${turnedText(to)}` : k ? "as it is now" : "";
        return new Option(`machine ${k + 1} of ${n}${what ? `, ${what}` : ""}`, String(k));
      }));
      $("wiring-box").hidden = this.chain.length < 2;
    }

    /** A live answer merged into the run shown (its arrays changed in place from
     *  presentation `since` and figure `figuresFrom` on): checked and replayed from
     *  there only, so a click costs what it changed, not the session's length. */
    update(run, view, since, figuresFrom) {
      if (!this.replay || this.replay.run !== run) return this.load(run, true, view);
      this.pause();
      work.updates += 1;
      const problems = checkRun(run, true, since, figuresFrom);
      if (problems.length) return this.fail(problems.join("\n"));
      this.view = this.top.view = view;
      this.replay.extend(since, view.verdicts);
      this.replay.markRewires(this.replay.from);
      return this.shown();
    }

    /** Show the replay from its start after a load or an update. */
    shown() {
      this.t = 0;
      $("slider").max = String(this.replay.pres.length);
      $("summary").textContent = this.summaryText();
      this.render(true);
      return true;
    }

    fail(message) {
      this.pause();
      this.replay = null;
      this.chain = [];
      $("wiring-box").hidden = true;
      this.error = message;
      $("error").textContent = message;
      $("error").hidden = false;
      $("machine").hidden = true;
      $("controls").hidden = true;
      $("summary").textContent = "No run loaded.";
      $("narration").textContent = "";
      return false;
    }

    summaryText() {
      if (this.view) return this.view.header;
      const run = this.replay.run, n = run.presentations.length;
      const classes = run.classes.length <= 10 ? run.classes.join(", ")
        : `${run.classes.slice(0, 3).join(", ")} … ${run.classes[run.classes.length - 1]}`;
      const parts = [`${n} presentations`, `${run.classes.length} classes (${classes})`,
        `${run.n_a_units} A-units, ${run.n_r_units} R-units`];
      if (run.topology) parts.push(`${run.topology} topology`);
      if (run.class_code) parts.push(`${run.class_code} code`);
      parts.push(`${fmt(this.replay.end)} s of machine time`);
      if (run.seed !== undefined && run.seed !== null) parts.push(`seed ${run.seed}`);
      if (run.markone_version) parts.push(`markone ${run.markone_version}`);
      return parts.join(" · ");
    }

    /* controls */

    bindControls() {
      $("btn-play").addEventListener("click", () => this.toggle());
      $("btn-step").addEventListener("click", () => this.step());
      $("btn-back").addEventListener("click", () => this.back());
      $("btn-home").addEventListener("click", () => this.home());
      $("btn-end").addEventListener("click", () => this.end());
      $("slider").addEventListener("input", (e) => this.jump(Number(e.target.value) - 1));
      const speed = $("speed");
      for (const s of SPEEDS) speed.add(new Option(`×${s}`, String(s)));
      speed.addEventListener("change", (e) => this.setSpeed(Number(e.target.value)));
      $("open-file").addEventListener("change", (e) => this.openFile(e.target.files[0]));
      $("wiring").addEventListener("change", (e) => this.showPart(Number(e.target.value)));
      document.addEventListener("keydown", (e) => this.onKey(e));
    }

    onKey(e) {
      const tag = e.target.tagName;
      if (tag === "SELECT" || (tag === "INPUT" && e.target.type !== "range")) return;
      if (tag === "BUTTON" && (e.key === " " || e.key === "Enter")) return;
      if (tag === "INPUT" && e.key !== " ") return; // the slider handles its own keys
      if (e.ctrlKey || e.metaKey || e.altKey || !this.replay) return;
      const actions = {
        " ": () => this.toggle(), ArrowRight: () => this.step(), ArrowLeft: () => this.back(),
        Home: () => this.home(), End: () => this.end(),
        ArrowUp: () => this.nudgeSpeed(1), ArrowDown: () => this.nudgeSpeed(-1),
      };
      if (/^[1-9]$/.test(e.key) && Number(e.key) <= this.replay.nR) {
        actions[e.key] = () => this.selectUnit(Number(e.key) - 1);
      }
      if (actions[e.key]) {
        e.preventDefault();
        actions[e.key]();
      }
    }

    openFile(file) {
      if (!file) return;
      const reader = new FileReader();
      reader.onload = () => {
        let run;
        try { run = JSON.parse(reader.result); } catch (err) {
          this.fail(`${file.name} is not valid JSON (${err.message}). ${HOW_TO}`);
          return;
        }
        this.load(run);
      };
      reader.onerror = () => this.fail(`Could not read ${file.name}.`);
      reader.readAsText(file);
    }

    buildUnitButtons() {
      const box = $("knob-select");
      box.replaceChildren();
      for (let r = 0; r < this.replay.nR; r++) {
        const b = document.createElement("button");
        b.type = "button";
        b.textContent = `R${r + 1}`;
        b.addEventListener("click", () => this.selectUnit(r));
        box.append(b);
      }
    }

    selectUnit(r) {
      this.unit = r;
      this.render(true);
    }

    setSpeed(s) {
      if (!(s > 0)) return;
      this.speed = s;
      const select = $("speed");
      if (![...select.options].some((o) => Number(o.value) === s)) {
        select.add(new Option(`×${s}`, String(s)));
      }
      select.value = [...select.options].find((o) => Number(o.value) === s).value;
    }

    nudgeSpeed(dir) {
      const i = SPEEDS.findIndex((s) => s >= this.speed);
      this.setSpeed(SPEEDS[Math.min(SPEEDS.length - 1, Math.max(0, (i < 0 ? SPEEDS.length : i) + dir))]);
    }

    /* moving through the run */

    endOf(step) { return step < 0 ? 0 : this.replay.pres[step].end_t_s; }

    jump(step) {
      this.pause();
      const n = this.replay.pres.length;
      this.t = this.endOf(Math.max(-1, Math.min(n - 1, step)));
      this.render(true);
    }

    step() {
      const f = this.replay.frameAt(this.t);
      this.jump(f.phase === "done" || f.phase === "rest" ? f.i + 1 : f.i);
    }

    back() {
      const f = this.replay.frameAt(this.t);
      this.jump(f.phase === "done" ? f.step - 1 : f.step);
    }

    home() { this.jump(-1); }

    end() { this.jump(this.replay.pres.length - 1); }

    seek(t) {
      this.pause();
      this.t = Math.max(0, Math.min(this.replay.end, t));
      this.render(true);
    }

    toggle() { if (this.playing) this.pause(); else this.play(); }

    play() {
      if (!this.replay || this.playing) return;
      if (this.t >= this.replay.end) this.t = 0;
      this.playing = true;
      let last = null;
      const tick = (now) => {
        if (!this.playing) return;
        if (last !== null) this.t = Math.min(this.replay.end, this.t + ((now - last) / 1000) * this.speed);
        last = now;
        if (this.t >= this.replay.end) this.pause();
        this.render(!this.playing);
        if (this.playing) requestAnimationFrame(tick);
      };
      requestAnimationFrame(tick);
      this.render(true);
    }

    pause() {
      if (!this.playing) return;
      this.playing = false;
      this.render(true);
    }

    /* showing the state */

    render(speak) {
      if (!this.replay) return;
      const replay = this.replay, run = replay.run, frame = replay.frameAt(this.t);
      this.frame = frame;
      const p = frame.i >= 0 ? replay.pres[frame.i] : null;
      const [rows, cols] = run.retina_shape;
      const aCols = aUnitColumns(replay.nA);

      drawCells($("retina"), p ? run.figures[p.figure] : [], cols, rows);
      const lit = p ? run.figures[p.figure].reduce((s, v) => s + (v ? 1 : 0), 0) : 0;
      $("retina").setAttribute("aria-label", p
        ? `Retina: figure ${p.figure + 1}, class ${run.classes[p.label]}, ${lit} of ${rows * cols} photocells lit.`
        : "Retina: dark, no figure shown yet.");
      $("figure-label").textContent = p ? `Figure ${p.figure + 1}: class “${run.classes[p.label]}”` : "No figure yet";

      const fired = new Uint8Array(replay.nA);
      if (p) for (const a of p.active_a) fired[a] = 1;
      drawCells($("aunits"), fired, aCols, Math.ceil(replay.nA / aCols));
      const dead = replay.faultsAt(this.t).filter((f) => f.kind === "AUnitStuck" && f.value === 0);
      drawCrosses($("aunits"), dead.map((f) => f.a_unit), aCols, Math.ceil(replay.nA / aCols));
      const firedText = (p ? `${p.active_a.length} of ${replay.nA} A-units fired.` : `${replay.nA} A-units, none firing.`) +
        (dead.length ? ` ${dead.length} dead (crossed).` : "");
      $("aunits").setAttribute("aria-label", `A-units: ${firedText}`);
      $("aunits-caption").textContent = firedText;

      this.renderRUnits(p, frame);
      this.renderKnobs(frame);

      for (const [id, value] of [["mistakes", frame.mistakes], ["corrections", frame.corrections]]) {
        $(id).textContent = String(value);
        $(id).dataset.value = String(value);
      }
      drawChart($("chart"), replay, this.t, frame.mistakes);
      $("chart").setAttribute("aria-label",
        `Chart of mistakes against machine time: ${frame.mistakes} figures wrong by ${fmt(this.t)} s, ` +
        `${replay.wrongUpTo[replay.wrongUpTo.length - 1] || 0} in the whole run.`);

      const n = replay.pres.length;
      $("slider").value = String(frame.step + 1);
      $("slider").setAttribute("aria-valuetext",
        frame.step < 0 ? "start, before the first presentation" : `after presentation ${frame.step + 1} of ${n}`);
      $("clock").textContent = `t = ${this.t.toFixed(2)} s / ${fmt(replay.end)} s`;
      $("btn-play").innerHTML = this.playing ? `${ICONS.pause} pause` : `${ICONS.play} play`;
      $("btn-play").setAttribute("aria-label", this.playing ? "Pause (Space)" : "Play (Space)");
      document.body.dataset.step = String(frame.step);
      document.body.dataset.phase = frame.phase;

      // Narrate each phase while playing at a followable pace, and every stop.
      const key = `${frame.i}:${frame.phase}`;
      if (speak || (key !== this.lastKey && this.speed <= 5)) {
        $("narration").textContent = this.narrate(frame);
      }
      this.lastKey = key;
      for (const hook of this.hooks) hook(frame);
    }

    renderRUnits(p, frame) {
      const body = $("runits").tBodies[0];
      body.replaceChildren();
      const replay = this.replay;
      for (let r = 0; r < replay.nR; r++) {
        const tr = body.insertRow();
        const cell = (text, cls) => {
          const td = tr.insertCell();
          td.textContent = text;
          if (cls) td.className = cls;
        };
        cell(`R${r + 1}`);
        if (!p) { for (let k = 0; k < 5; k++) cell("–"); continue; }
        const right = p.response[r] === p.target[r];
        cell(fmt(p.scores[r]));
        cell(signed(p.response[r]));
        cell(frame.decided ? signed(p.target[r]) : "…");
        cell(frame.decided ? (right ? "✓ right" : "✗ wrong") : "…", frame.decided ? (right ? "right" : "wrong") : "");
        const moving = p.reinforced[r] && frame.decided;
        cell(moving ? (frame.phase === "motors" ? "turning" : "moved") : "–", moving ? "moving" : "");
      }
      const verdict = $("verdict");
      if (!p || !frame.decided) {
        verdict.textContent = p ? "R-units answering…" : "";
        verdict.className = "verdict";
        return;
      }
      const right = replay.right(frame.i);
      verdict.textContent = `Machine says ${replay.answerText(frame.i)}: ${right ? "✓ right" : "✗ wrong"}`;
      verdict.className = `verdict ${right ? "right" : "wrong"}`;
    }

    renderKnobs(frame) {
      const replay = this.replay, r = this.unit;
      [...$("knob-select").children].forEach((b, k) => b.setAttribute("aria-pressed", String(k === r)));
      $("knob-unit").textContent = `R${r + 1}`;
      drawKnobs($("knobs"), replay, frame, r, aUnitColumns(replay.nA));
      let lo = Infinity, hi = -Infinity;
      const mask = replay.run.weight_mask;
      for (let a = 0; a < replay.nA; a++) {
        if (mask && !mask[r][a]) continue;
        const v = frame.weights[r * replay.nA + a];
        lo = Math.min(lo, v);
        hi = Math.max(hi, v);
      }
      const turning = frame.moving.filter((k) => Math.floor(k / replay.nA) === r).length;
      const text = `R${r + 1}: weights from ${fmt(lo)} to ${fmt(hi)}; pointer straight up is 0, ` +
        `fully turned is ±${fmt(replay.scale)}.` + (turning ? ` ${turning} knobs turning.` : "");
      $("knobs-caption").textContent = text;
      $("knobs").setAttribute("aria-label", `Potentiometers of ${text}`);
    }

    narrate(frame) {
      const replay = this.replay, run = replay.run, n = replay.pres.length;
      const from = replay.from, to = rewireOf(run);
      if (frame.i < 0) {
        return (from ? `Machine ${this.part + 1} of ${this.chain.length}: wired anew when ` +
          `${turnedText(from)} was turned; its weights start again at zero. ` : "") +
          `Machine at rest before the first figure; ${n} presentations recorded. ` +
          "Press Space to play or the right arrow to step.";
      }
      const after = to && frame.i === n - 1 && frame.phase === "done"
        ? ` Then ${turnedText(to)} was turned: the machine was rewired, and the session ` +
          `went on with a new one (machine ${this.part + 2}).` : "";
      const p = replay.pres[frame.i];
      const turned = replay.knobsBefore(frame.i).filter((c) => c.presentation === frame.i)
        .map((c) => `${c.name} from ${JSON.stringify(c.old)} to ${JSON.stringify(c.new)}`);
      let text = (turned.length ? `Knobs turned before this figure: ${turned.join("; ")}. ` : "") +
        `Presentation ${frame.i + 1} of ${n}: figure ${p.figure + 1}, class ` +
        `“${run.classes[p.label]}”; ${p.active_a.length} A-units fired. `;
      if (!frame.decided) return `${text}The R-units are answering.`;
      text += `The machine answered ${replay.answerText(frame.i)}: ` +
        `${replay.right(frame.i) ? "right" : "wrong"} (${replay.unitsRight(frame.i)} of ${replay.nR} R-units right). `;
      if (frame.phase === "motors") text += `Motors turning ${p.changes.length} potentiometers. `;
      else if (p.changes.length) {
        text += `Motors stopped: ${p.changes.length} potentiometers moved` +
          (p.saturated ? `, ${p.saturated} moves blocked by end stops. ` : ". ");
      } else text += "No potentiometer moved. ";
      return `${text}Figures wrong so far: ${frame.mistakes}.${after}`;
    }

    /** A plain snapshot of what the page shows (for tests and scripts). */
    state() {
      if (!this.replay) return { loaded: false, error: this.error };
      const f = this.replay.frameAt(this.t), nA = this.replay.nA;
      const weights = [];
      for (let r = 0; r < this.replay.nR; r++) weights.push(Array.from(f.weights.slice(r * nA, (r + 1) * nA)));
      return { loaded: true, error: null, step: f.step, presentation: f.i, phase: f.phase,
        answer: f.i >= 0 && f.decided ? this.replay.decoded(f.i) : null,
        t: this.t, playing: this.playing, speed: this.speed, unit: this.unit,
        mistakes: f.mistakes, corrections: f.corrections, moving: f.moving.length, weights,
        knobs: Object.fromEntries(this.replay.knobsBefore(f.i).map((c) => [c.name, c.new])),
        machine: this.part, machines: this.chain.length,
        marks: this.replay.marks.map((m) => m.label) };
    }
  }

  /* ---- start ------------------------------------------------------------------------ */

  function readEmbedded(id) {
    const text = $(id).textContent.trim();
    if (text.startsWith("__MARKONE_")) return undefined; // the bare template
    return JSON.parse(text);
  }

  const app = new Console();
  window.addEventListener("error", (e) => {
    app.fail(`The console hit an unexpected error: ${e.message}. Please report it ` +
      "together with the run file.");
  });
  window.markoneConsole = {
    state: () => app.state(),
    load: (run, live, view) => app.load(run, live, view),
    update: (run, view, since, figuresFrom) => app.update(run, view, since, figuresFrom),
    work: () => Object.assign({}, work),
    run: () => (app.replay ? app.replay.run : null),
    onRender: (hook) => app.hooks.push(hook),
    options: () => options,
    aUnitColumns,
    drawCells,
    drawCrosses,
    play: () => app.play(),
    pause: () => app.pause(),
    step: () => app.step(),
    back: () => app.back(),
    home: () => app.home(),
    end: () => app.end(),
    jump: (step) => app.jump(step),
    showMachine: (k) => app.showPart(k),
    seek: (t) => app.seek(t),
    setSpeed: (s) => app.setSpeed(s),
    selectUnit: (r) => app.selectUnit(r),
    checkRun,
  };

  let options = {};
  try { options = readEmbedded("markone-options") || {}; } catch (err) { options = {}; }
  app.setSpeed(options.speed || 1);
  let run;
  try {
    run = readEmbedded("markone-run");
  } catch (err) {
    app.fail(`The run embedded in this page is not valid JSON (${err.message}). ${HOW_TO}`);
    return;
  }
  if (options.live) {
    app.load(run, true, options.live.view || null); // the server's verdicts and header
  } else if (run === undefined) {
    app.fail("No run is embedded in this page. Open a run JSON file below, or " +
      HOW_TO.charAt(0).toLowerCase() + HOW_TO.slice(1));
  } else {
    app.load(run);
  }
}());
