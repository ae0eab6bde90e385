#!/usr/bin/env node
// A perceptron in JavaScript that speaks markone's conformance protocol:
// it reads one problem as JSON on stdin and writes its answer as JSON on stdout.
//
//   markone adversary check suite/ --cmd "node examples/perceptron.js"
//
// Options (to see the checker's diagnoses): --rule strict  (update only when y w.x < 0)
//                                           --rule zero-correct  (0 predicts +1)
//                                           --eta 0.5  (a learning rate other than 1)
// Convention: --start 0.5  (every weight starts at 0.5, not 0; declare it with
//                          --profile arithmetic=float64,start=0.5)
// JavaScript numbers are float64, so it declares arithmetic float64 when markone's
// handshake asks what it claims: the cases that need exact arithmetic then do not
// apply to it, and a correct float64 implementation exits 0.

const args = process.argv.slice(2);
const opt = (name, dflt) => (args.includes(name) ? args[args.indexOf(name) + 1] : dflt);
const rule = opt("--rule", "textbook");
const eta = Number(opt("--eta", "1"));
const start = Number(opt("--start", "0"));

const mistake = {
  textbook: (y, s) => y * s <= 0,                 // a zero score is a mistake
  strict: (y, s) => y * s < 0,
  "zero-correct": (y, s) => (s >= 0 ? 1 : -1) !== y,
}[rule];
if (!mistake) { console.error(`unknown --rule ${rule}`); process.exit(2); }

const dot = (a, b) => a.reduce((s, v, j) => s + v * b[j], 0);
const sign = (s) => (s >= 0 ? 1 : -1);

function solve(p) {
  if (p.format === "markone.conformance.handshake/1") return { profile: { arithmetic: "float64" } };
  const aug = (x) => (p.intercept ? [...x, 1] : [...x]);
  if (p.task === "kernel") {
    const alpha = p.y.map(() => 0);
    for (const i of p.order) {
      const f = p.y.reduce((s, yj, j) => s + alpha[j] * yj * p.gram[j][i], 0);
      if (mistake(p.y[i], f)) alpha[i] += 1;
    }
    return { alpha, mistakes: alpha.reduce((a, b) => a + b, 0) };
  }
  const X = p.X.map(aug);
  if (p.task === "multiclass") {
    const W = Array.from({ length: p.n_classes }, () => X[0].map(() => start));
    const argmax = (x) => W.reduce((best, w, k) => (dot(w, x) > dot(W[best], x) ? k : best), 0);
    let m = 0;
    for (const i of p.order) {
      const c = p.y[i], q = argmax(X[i]);
      if (q !== c) {
        W[c] = W[c].map((v, j) => v + eta * X[i][j]);
        W[q] = W[q].map((v, j) => v - eta * X[i][j]);
        m += 1;
      }
    }
    return { W, mistakes: m, predictions: p.queries.map((q) => argmax(aug(q))) };
  }
  let w = X[0].map(() => start), m = 0, run = 0, best = 0, pocket = w;
  const sum = w.map(() => 0), votes = [[w, 0]];
  for (const i of p.order) {
    if (mistake(p.y[i], dot(w, X[i]))) {
      w = w.map((v, j) => v + eta * p.y[i] * X[i][j]);
      m += 1; run = 0; votes.push([w, 0]);
    } else {
      run += 1; votes[votes.length - 1][1] += 1;
      if (run > best) { best = run; pocket = w; }
    }
    w.forEach((v, j) => { sum[j] += v; });
  }
  if (p.variant === "averaged") return { w: sum.map((v) => v / p.order.length), mistakes: m };
  if (p.variant === "pocket") return { w: pocket, mistakes: m };
  if (p.variant === "voted") {
    const predictions = p.queries.map((q) =>
      sign(votes.reduce((s, [v, c]) => s + c * sign(dot(v, aug(q))), 0)));
    return { predictions, mistakes: m };
  }
  return { w, mistakes: m };
}

let input = "";
process.stdin.on("data", (chunk) => { input += chunk; });
process.stdin.on("end", () => { process.stdout.write(JSON.stringify(solve(JSON.parse(input)))); });
