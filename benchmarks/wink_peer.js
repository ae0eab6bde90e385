#!/usr/bin/env node
// wink-perceptron (npm, a multi-class averaged perceptron) driven through its own API
// for markone's conformance suite: it reads one problem as JSON on stdin and writes
// the answer as JSON on stdout (the protocol of `markone adversary check --cmd`).
//
//   npm install --no-save --prefix benchmarks wink-perceptron@2.0.0
//   markone adversary check suite/ --cmd "node benchmarks/wink_peer.js"
//
// wink-perceptron exposes only its averaged weights (exportJSON; predict uses them),
// so it answers the binary averaged cases and declines the others. A binary problem
// is given to it as two classes, "neg" (-1) and "pos" (+1), the stream in order
// (maxIterations 1, no shuffle); w is half the difference of the two classes' averaged
// rows, (W[pos] - W[neg]) / 2, and its bias difference the intercept weight (always
// learned: appended when the case has no intercept, unless it stayed 0).

const perceptron = require("wink-perceptron");

const LABEL = { 1: "pos", "-1": "neg" };

function decline(why) {
  return { unsupported: why };
}

function solve(p) {
  if (p.format === "markone.conformance.handshake/1") return {};
  if (p.task !== "binary" || p.variant !== "averaged") {
    return decline("wink-perceptron exposes only its averaged weights (exportJSON, " +
                   "predict): it answers the binary averaged cases");
  }
  const examples = p.order.map((i) => [
    Object.fromEntries(p.X[i].map((v, j) => ["x" + j, v])), { label: LABEL[p.y[i]] }]);
  const model = perceptron();
  model.defineConfig({ maxIterations: 1, shuffleData: false });
  try {
    model.learn(examples);
  } catch (err) {
    return decline(`wink-perceptron refuses the stream: ${err.message}`);
  }
  const [W, B] = JSON.parse(model.exportJSON());
  const half = (row, key) => (((row && row.pos) || 0) - ((row && row.neg) || 0)) / 2;
  const w = p.X[0].map((_, j) => half(W["x" + j]));
  const b = half(B);
  if (p.intercept || b !== 0) w.push(b);
  return { w };
}

let text = "";
process.stdin.on("data", (chunk) => { text += chunk; });
process.stdin.on("end", () => {
  process.stdout.write(JSON.stringify(solve(JSON.parse(text))) + "\n");
});
