/* Mark I console, live mode: the operator's panel of `markone machine console`.
 *
 * Inert unless the page was served live (options.live). The Python MarkI behind the
 * server does all the work; this script only shows and asks, through the JSON API
 * (present, reinforce, fault, save, state) with the page's token. Each answer holds
 * what changed since the presentations the page has (`?since=N`), merged into the
 * session so far as a run, which console.js shows and animates at the machine's pace
 * from the moment the new figure went up (or the trainer decided). The easel is the
 * figure held up to the camera: drawn with the mouse or the keyboard, picked from
 * the catalogue, or read from an image file. `window.markoneLive` exposes the panel
 * to the browser test.
 */
(function () {
  "use strict";

  const mc = window.markoneConsole;
  const options = mc ? mc.options() : null;
  if (!options || !options.live) return;
  const live = options.live;
  const $ = (id) => document.getElementById(id);

  let run = mc.run() || JSON.parse($("markone-run").textContent); // the run shown
  let view = live.view; // the server's header and verdicts: the page computes none
  const [rows, cols] = run.retina_shape;
  const nA = run.n_a_units;
  const easel = new Float64Array(rows * cols);
  let cursor = 0;          // the keyboard's cell on the easel
  let painting = null;     // the level a mouse drag paints, or null
  let pending = Boolean(live.pending); // a figure on show awaits the trainer
  let busy = false;        // a request is under way
  let selected = null;     // the A-unit chosen for a fault
  let message = "";
  let paramsNow = live.params_now || {}; // the machine's knobs as they are now
  const controls = live.controls || { faults: [], knobs: [] };

  /* ---- talking to the machine ------------------------------------------------------ */

  /** The presentations the trainer is done with: each call asks only what came after. */
  const committed = () => run.presentations.length - (pending ? 1 : 0);

  async function api(path, body) {
    const init = { method: body === undefined ? "GET" : "POST",
      headers: { "X-Markone-Token": live.token } };
    if (body !== undefined) {
      init.headers["Content-Type"] = "application/json";
      init.body = JSON.stringify(body);
    }
    const response = await fetch(`${path}?since=${committed()}`, init);
    const data = await response.json();
    if (!response.ok) throw new Error(data.error || `the console answered ${response.status}`);
    return data;
  }

  /** Ask the machine; show its answer from `from` ("present", "reinforce" or null).
   *  Resolves to whether the machine took it. */
  async function act(path, body, from, said) {
    if (busy) return false;
    busy = true;
    refresh();
    try {
      show(await api(path, body), from);
      tell(said(), false);
      return true;
    } catch (err) {
      tell(err.message, true);
      return false;
    } finally {
      busy = false;
      refresh();
    }
  }

  /** Fold an answer into the run and view shown. A full state (a load) replaces
   *  them; an answer with only what came after `state.since` presentations (and
   *  `state.figures_from` figures) changes their arrays in place from there, so the
   *  page's work is what changed (issue 44). Returns whether it was such a delta. */
  function merge(state) {
    if (state.since === undefined) {
      [run, view] = [state.run, state.view];
      return false;
    }
    const { presentations, figures, ...rest } = state.run;
    Object.assign(run, rest);
    const cut = (arr, n, tail) => { arr.length = n; for (const x of tail) arr.push(x); };
    cut(run.presentations, state.since, presentations);
    cut(run.figures, state.figures_from, figures);
    cut(view.verdicts, state.since, state.view.verdicts);
    view.header = state.view.header;
    return true;
  }

  function show(state, from) {
    if (merge(state)) mc.update(run, view, state.since, state.figures_from);
    else mc.load(run, true, view);
    pending = state.pending;
    paramsNow = state.params_now || paramsNow;
    syncKnobs();
    const n = run.presentations.length;
    if (n && from) {
      const p = run.presentations[n - 1];
      mc.seek(from === "reinforce" ? p.end_t_s - p.motor_s : p.t_s);
      mc.play(); // at the machine's pace: the clock of the Python MarkI, animated
    } else mc.seek(Number.MAX_VALUE); // the machine as it is now
    const classes = $("live-classes");
    classes.replaceChildren(...run.classes.map((c) => new Option(c)));
    $("live-out").textContent = state.saved ? `saved to ${state.saved}` : `saves to ${state.out}`;
  }

  function tell(text, error) {
    message = text;
    const status = $("live-status");
    status.textContent = text;
    status.classList.toggle("error-text", error);
  }

  function present() {
    const label = $("live-label").value.trim();
    if (!label) return tell("Name the figure's class first (the trainer's target).", true);
    const trainer = $("live-trainer").checked;
    return act("/api/present", { image: Array.from(easel), label, reinforce: trainer },
      "present", () => {
        const p = run.presentations[run.presentations.length - 1];
        const answer = view.verdicts[view.verdicts.length - 1].right ? "right" : "wrong";
        return trainer ? `Presented as “${label}”: the machine was ${answer}; the trainer reinforced.`
          : `Presented as “${label}”: the machine was ${answer}. Press Reinforce (R) to train, or present the next figure.`;
      });
  }

  function reinforce() {
    if (!pending) return tell("No figure awaits the trainer: present one first.", true);
    const label = $("live-label").value.trim();
    return act("/api/reinforce", label ? { label } : {}, "reinforce", () => {
      const p = run.presentations[run.presentations.length - 1];
      return `Reinforced: ${p.changes.length} potentiometers turned in ${p.motor_s.toFixed(2)} s of machine time.`;
    });
  }

  function fault(body, words) {
    return act("/api/fault", body, null, () => `${words} at ${run.sim_time_s.toFixed(2)} s of machine time.`);
  }

  function kill() {
    const a = Number($("live-aunit").value) - 1;   // A-unit 1 is a_unit 0
    if (!Number.isInteger(a) || a < 0 || a >= nA || $("live-aunit").value === "") {
      return tell(`Choose an A-unit from 1 to ${nA} (click one).`, true);
    }
    return fault({ kind: "AUnitStuck", a_unit: a, value: 0 }, `A-unit ${a + 1} killed`);
  }

  function cut() {
    const a = selected, s = Number($("live-wire").value);
    if (a === null || $("live-wire").value === "") {
      return tell("Choose an A-unit, then one of its wires (or click its photocell).", true);
    }
    return fault({ kind: "CutWire", a_unit: a, s_unit: s }, `Wire from S-unit ${s + 1} to A-unit ${a + 1} cut`);
  }

  /* ---- every fault kind and knob, built from the registries (console_controls) ---- */

  /** A fault of any registered kind, its fields read from its row; a required whole
   *  number is a part, counted from 1 as people count (A-unit 1 is a_unit 0). */
  function breakKind(kind) {
    const body = { kind: kind.kind };
    for (const f of kind.fields) {
      const text = $(`fault-${kind.kind}-${f.name}`).value.trim();
      if (text === "") return tell(`${kind.kind}: give its ${f.name}.`, true);
      const v = Number(text);
      if (!Number.isFinite(v)) return tell(`${kind.kind}: ${f.name} must be a number, got “${text}”.`, true);
      body[f.name] = f.type === "int" && f.default === null ? v - 1 : v;
    }
    return fault(body, `${kind.kind} (${kind.words.replace(/\.$/, "")}) happened`);
  }

  function knobValue(knob, el) {
    if (knob.input === "bool") return el.checked;
    if (knob.input === "number") {
      const v = Number(el.value);
      if (el.value.trim() === "" || !Number.isFinite(v)) throw new Error(`${knob.name} must be a number, got “${el.value}”.`);
      return v;
    }
    if (knob.input === "json") {
      try { return JSON.parse(el.value); } catch (err) {
        throw new Error(`${knob.name} must be written as JSON (e.g. ${JSON.stringify(knob.value)}), got “${el.value}”.`);
      }
    }
    return el.value;
  }

  function turn(knob) {
    const el = $(`knob-${knob.name}`);
    if (el.readOnly) return;
    let value;
    try { value = knobValue(knob, el); } catch (err) { syncKnobs(); return tell(err.message, true); }
    if (JSON.stringify(value) === JSON.stringify(paramsNow[knob.name])) return;
    const old = paramsNow[knob.name];
    return act("/api/knob", { name: knob.name, value }, null,
      () => `Turned ${knob.name} from ${JSON.stringify(old)} to ${JSON.stringify(value)} at ${run.sim_time_s.toFixed(2)} s of machine time.`)
      .then((took) => {
        // a knob of the wiring built a new machine: the page is built anew for it
        if (took && !knob.retunable) window.location.reload();
        else syncKnobs();
      });
  }

  /** Each knob's input shows the machine's value now (after an answer or a refusal). */
  function syncKnobs() {
    for (const knob of controls.knobs) {
      const el = $(`knob-${knob.name}`), v = paramsNow[knob.name];
      if (!el || v === undefined || document.activeElement === el && busy) continue;
      if (knob.input === "bool") el.checked = Boolean(v);
      else el.value = knob.input === "json" ? JSON.stringify(v) : String(v);
    }
  }

  function tip(knob) {
    const unit = knob.unit ? ` (${knob.unit})` : "";
    return `${knob.name}${unit}: ${knob.provenance}. ${knob.note}.` + (knob.retunable
      ? " Turn it between figures; the saved run records the change."
      : " Fixed when the machine is wired: turning it rewires, building a new machine " +
        "with it from the same seed; its weights start again at zero (and its faults " +
        "are gone). The saved run keeps the earlier machine's run.");
  }

  function knobInput(knob) {
    let el;
    if (knob.input === "choice") {
      el = document.createElement("select");
      for (const c of knob.choices) el.add(new Option(c, c));
    } else {
      el = document.createElement("input");
      el.type = knob.input === "bool" ? "checkbox" : knob.input === "number" ? "number" : "text";
      if (knob.input === "number") el.step = "any";
    }
    el.id = `knob-${knob.name}`;
    el.title = tip(knob);
    el.dataset.provenance = knob.provenance;
    el.addEventListener("change", () => turn(knob));
    el.addEventListener("keydown", (e) => { if (e.key === "Enter") { e.preventDefault(); turn(knob); } });
    return el;
  }

  function buildControls() {
    const faults = $("live-faults"), knobs = $("live-knobs");
    for (const kind of controls.faults) {
      const row = document.createElement("div");
      row.className = "control";
      row.title = kind.words;
      for (const f of kind.fields) {
        const label = document.createElement("label"), input = document.createElement("input");
        input.type = "number";
        input.id = `fault-${kind.kind}-${f.name}`;
        input.step = f.type === "int" ? "1" : "any";
        const part = f.type === "int" && f.default === null;
        if (part) input.min = "1";
        if (f.default !== null) input.value = String(f.default);
        label.append(`${f.name}${part ? " (from 1)" : ""}`, input);
        row.append(label);
      }
      const button = document.createElement("button");
      button.type = "button";
      button.id = `fault-${kind.kind}`;
      button.className = "fault-button";
      button.textContent = kind.kind;
      button.title = `${kind.words} Breaks it now.`;
      button.setAttribute("aria-label", `Break: ${kind.kind}, ${kind.words}`);
      button.addEventListener("click", () => breakKind(kind));
      row.prepend(button);
      faults.append(row);
    }
    for (const knob of controls.knobs) {
      const row = document.createElement("div"), label = document.createElement("label");
      row.className = "control";
      label.title = tip(knob);
      label.append(knob.name, knobInput(knob));
      row.append(label);
      if (!knob.retunable) {
        const fixed = document.createElement("span");
        fixed.className = "fixed";
        fixed.textContent = "rewires";
        row.append(fixed);
      }
      knobs.append(row);
    }
    syncKnobs();
  }

  function save() {
    return act("/api/save", {}, null, () => `Saved the run (${run.presentations.length} presentations).`);
  }

  /* ---- the easel ------------------------------------------------------------------- */

  function drawEasel() {
    const canvas = $("easel");
    mc.drawCells(canvas, easel, cols, rows);
    if (document.activeElement === canvas) ring(canvas, cursor, cols, rows, "#4cc3ff");
  }

  /** The grid cell under a pointer event on a canvas drawn by drawCells, or -1. */
  function cellAt(canvas, event, nCols, nRows) {
    const box = canvas.getBoundingClientRect();
    const x = (event.clientX - box.left) * (canvas.width / box.width);
    const y = (event.clientY - box.top) * (canvas.height / box.height);
    const size = Math.min(canvas.width / nCols, canvas.height / nRows);
    const c = Math.floor(x / size), r = Math.floor(y / size);
    return c >= 0 && c < nCols && r >= 0 && r < nRows ? r * nCols + c : -1;
  }

  function paint(k, level) {
    if (k < 0) return;
    easel[k] = level;
    cursor = k;
    drawEasel();
  }

  function setEasel(cells) {
    easel.set(cells);
    drawEasel();
  }

  function bindEasel() {
    const canvas = $("easel");
    canvas.addEventListener("pointerdown", (e) => {
      const k = cellAt(canvas, e, cols, rows);
      if (k < 0) return;
      painting = easel[k] >= 0.5 ? 0 : 1;
      paint(k, painting);
      canvas.setPointerCapture(e.pointerId);
    });
    canvas.addEventListener("pointermove", (e) => {
      if (painting !== null) paint(cellAt(canvas, e, cols, rows), painting);
    });
    canvas.addEventListener("pointerup", () => { painting = null; });
    canvas.addEventListener("focus", drawEasel);
    canvas.addEventListener("blur", drawEasel);
    canvas.addEventListener("keydown", (e) => {
      const moves = { ArrowLeft: [0, -1], ArrowRight: [0, 1], ArrowUp: [-1, 0], ArrowDown: [1, 0] };
      let r = Math.floor(cursor / cols), c = cursor % cols;
      if (moves[e.key]) {
        r = Math.min(rows - 1, Math.max(0, r + moves[e.key][0]));
        c = Math.min(cols - 1, Math.max(0, c + moves[e.key][1]));
        cursor = r * cols + c;
        if (e.shiftKey) easel[cursor] = 1; // Shift + arrows: draw a stroke
        drawEasel();
      } else if (e.key === " " || e.key === "Enter") {
        paint(cursor, easel[cursor] >= 0.5 ? 0 : 1);
      } else if (e.key === "Delete" || e.key === "Backspace") {
        paint(cursor, 0);
      } else return;
      e.preventDefault();
      e.stopPropagation(); // the arrows draw here; they do not step the replay
    });
  }

  function readImageFile(file) {
    if (!file) return;
    const url = URL.createObjectURL(file);
    const img = new Image();
    img.onload = () => {
      const canvas = document.createElement("canvas");
      canvas.width = cols;
      canvas.height = rows;
      const ctx = canvas.getContext("2d");
      ctx.fillStyle = "#fff";
      ctx.fillRect(0, 0, cols, rows);
      ctx.drawImage(img, 0, 0, cols, rows);
      const px = ctx.getImageData(0, 0, cols, rows).data;
      const levels = new Float64Array(rows * cols);
      for (let k = 0; k < levels.length; k++) {
        levels[k] = (0.299 * px[4 * k] + 0.587 * px[4 * k + 1] + 0.114 * px[4 * k + 2]) / 255;
      }
      // the figure is what stands out: dark ink on light paper is lit on the retina
      const mean = levels.reduce((s, v) => s + v, 0) / levels.length;
      if (mean > 0.5) for (let k = 0; k < levels.length; k++) levels[k] = 1 - levels[k];
      setEasel(levels);
      URL.revokeObjectURL(url);
      tell(`Read ${file.name} onto the easel (${cols} × ${rows} light levels).`, false);
    };
    img.onerror = () => { URL.revokeObjectURL(url); tell(`${file.name} is not an image this browser can read.`, true); };
    img.src = url;
  }

  /* ---- faults: choosing an A-unit and its wires --------------------------------------- */

  function cutWires(a) {
    return new Set(run.faults && run.faults.faults ? run.faults.faults
      .filter((f) => f.kind === "CutWire" && f.a_unit === a).map((f) => f.s_unit) : []);
  }

  function select(a) {
    if (!(a >= 0 && a < nA)) return;
    selected = a;
    $("live-aunit").value = String(a + 1);   // people count from 1
    const wires = $("live-wire"), cut = cutWires(a);
    wires.replaceChildren();
    const add = (s, sign) => {
      if (!cut.has(s)) wires.add(new Option(`S-unit ${s + 1} (${sign})`, String(s)));
    };
    for (const s of run.wiring.excitatory[a]) add(s, "+");
    for (const s of run.wiring.inhibitory[a]) add(s, "−");
    mc.seek(mc.state().t); // redraw with the choice marked
  }

  /** Mark the chosen A-unit and, on the retina, the photocells wired to it. */
  function overlay() {
    if (selected === null) return;
    const aCols = mc.aUnitColumns(nA);
    ring($("aunits"), selected, aCols, Math.ceil(nA / aCols), "#4cc3ff");
    for (const s of run.wiring.excitatory[selected]) ring($("retina"), s, cols, rows, "#3ddc84");
    for (const s of run.wiring.inhibitory[selected]) ring($("retina"), s, cols, rows, "#ff5c5c");
    mc.drawCrosses($("retina"), [...cutWires(selected)], cols, rows, "#ffffff");
  }

  /** A square ring around cell k of a grid drawn by drawCells. */
  function ring(canvas, k, nCols, nRows, color) {
    const ctx = canvas.getContext("2d");
    const size = Math.min(canvas.width / nCols, canvas.height / nRows);
    ctx.strokeStyle = color;
    ctx.lineWidth = Math.max(2, size / 6);
    ctx.strokeRect((k % nCols) * size + 1, Math.floor(k / nCols) * size + 1, size - 2, size - 2);
  }

  function narrate() {
    if (!run.presentations.length) {
      $("narration").textContent = "The machine is on, its retina dark. Draw a figure on the " +
        "easel or pick one, name its class, and press Present (P).";
    } else if (pending && mc.state().phase === "done") {
      const waiting = " The figure awaits the trainer: Reinforce (R), or present the next one.";
      const text = $("narration").textContent;
      if (!text.endsWith(waiting)) $("narration").textContent = text + waiting;
    }
  }

  /* ---- wiring up the panel --------------------------------------------------------- */

  function refresh() {
    for (const id of ["live-present", "live-kill", "live-cut", "live-save"]) $(id).disabled = busy;
    for (const b of document.querySelectorAll(".fault-button")) b.disabled = busy;
    $("live-reinforce").disabled = busy || !pending;
    document.body.dataset.busy = String(busy);
  }

  function bind() {
    bindEasel();
    const pick = $("live-pick");
    pick.add(new Option("— draw your own —", ""));
    for (const name of Object.keys(live.catalogue)) pick.add(new Option(name, name));
    pick.addEventListener("change", () => {
      if (!pick.value) return;
      setEasel(live.catalogue[pick.value]);
      $("live-label").value = pick.value;
    });
    $("live-clear").addEventListener("click", () => setEasel(new Float64Array(rows * cols)));
    $("live-invert").addEventListener("click", () => setEasel(easel.map((v) => 1 - v)));
    $("live-upload").addEventListener("change", (e) => readImageFile(e.target.files[0]));
    $("live-present").addEventListener("click", present);
    $("live-reinforce").addEventListener("click", reinforce);
    $("live-kill").addEventListener("click", kill);
    $("live-cut").addEventListener("click", cut);
    $("live-save").addEventListener("click", save);
    $("live-aunit").addEventListener("change", (e) => select(Number(e.target.value) - 1));
    $("aunits").addEventListener("click", (e) => {
      const aCols = mc.aUnitColumns(nA);
      select(cellAt($("aunits"), e, aCols, Math.ceil(nA / aCols)));
    });
    $("retina").addEventListener("click", (e) => {
      const s = cellAt($("retina"), e, cols, rows);
      if (selected !== null && [...$("live-wire").options].some((o) => Number(o.value) === s)) {
        $("live-wire").value = String(s);
        $("live-cut").focus();
      }
    });
    document.addEventListener("keydown", (e) => {
      const tag = e.target.tagName;
      if (tag === "INPUT" || tag === "SELECT" || tag === "TEXTAREA" || e.ctrlKey || e.metaKey || e.altKey) return;
      const keys = { p: present, r: reinforce, s: save };
      if (keys[e.key.toLowerCase()]) {
        e.preventDefault();
        keys[e.key.toLowerCase()]();
      }
    });
    mc.onRender(() => { overlay(); narrate(); });
  }

  $("p-live").hidden = false;
  document.body.dataset.live = "true";
  document.querySelector("h1 .subtitle").textContent = "live";
  document.title = "Mark I Perceptron console: live";
  $("live-out").textContent = `saves to ${live.out}`;
  bind();
  buildControls();
  drawEasel();
  refresh();
  mc.seek(Number.MAX_VALUE); // a page (re)loaded shows the machine as it is now
  const rewired = (run.earlier || []).map((part) => part.knob_changes[part.knob_changes.length - 1]);
  if (rewired.length) {
    const c = rewired[rewired.length - 1];
    tell(`Rewired: ${c.name} from ${JSON.stringify(c.old)} to ${JSON.stringify(c.new)} built a ` +
      "new machine from the same seed; its weights start again at zero. The run keeps " +
      `the earlier machine${rewired.length > 1 ? "s" : ""}: choose one under “machine”.`, false);
  }

  window.markoneLive = {
    state: () => ({ pending, busy, message, selected, presentations: run.presentations.length,
      easel: Array.from(easel), label: $("live-label").value }),
    setEasel: (cells) => setEasel(cells),
    present, reinforce, kill, cut, save, select,
    controls: () => ({
      faults: [...document.querySelectorAll("#live-faults .fault-button")].map((b) => b.id.slice(6)),
      knobs: [...document.querySelectorAll("#live-knobs [id^=knob-]")].map((e) => ({
        name: e.id.slice(5), title: e.title, readonly: e.readOnly || e.disabled,
        rewires: e.parentElement.parentElement.querySelector(".fixed") !== null,
        value: e.type === "checkbox" ? e.checked : e.value })),
    }),
    params: () => paramsNow,
    run: () => run,
  };
}());
