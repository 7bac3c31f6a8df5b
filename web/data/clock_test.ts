import assert from "node:assert/strict";
import {
  chainAt,
  ChainClock,
  chainTimeOfLedger,
  chainTimeOfWall,
  clockRate,
  type ClockSample,
  formatRate,
  MIN_LEDGERS,
  rateIsNotable,
  realSeconds,
} from "./clock.ts";

/** The demo's node: a ledger every 200 ms, each advancing the close time 1 s. */
function demoSamples(n: number, from = { wall: 1_000_000, chain: 2_000_000, seq: 100 }) {
  const out: ClockSample[] = [];
  for (let i = 0; i < n; i++) {
    out.push({ wall: from.wall + i * 200, chain: from.chain + i, seq: from.seq + i });
  }
  return out;
}

Deno.test("clockRate: the demo's 200 ms ledgers of 1 s each run 5× real time", () => {
  const s = demoSamples(30);
  assert.equal(clockRate([s[0], s[29]]), 5);
  assert.ok(rateIsNotable(clockRate([s[0], s[29]])));
});

Deno.test("clockRate: unknown until the samples span enough ledgers and wall time", () => {
  const s = demoSamples(30);
  assert.equal(clockRate([s[0]]), null);
  // One ledger short of MIN_LEDGERS.
  assert.equal(clockRate([s[0], s[MIN_LEDGERS - 1]]), null);
  assert.equal(clockRate([s[0], s[MIN_LEDGERS]]), 5);
  // Enough ledgers, too little wall time (a burst of closes).
  assert.equal(
    clockRate([{ wall: 0, chain: 0, seq: 1 }, { wall: 1_500, chain: 50, seq: 51 }]),
    null,
  );
  // Enough wall time but fewer than MIN_LEDGERS ledgers (5 s ledgers, quantized close time).
  assert.equal(
    clockRate([{ wall: 0, chain: 0, seq: 1 }, { wall: 30_000, chain: 30, seq: 7 }]),
    null,
  );
});

Deno.test("rateIsNotable: a real network's jitter is not said; 0.5× and 5× are", () => {
  assert.equal(rateIsNotable(null), false);
  assert.equal(rateIsNotable(1), false);
  assert.equal(rateIsNotable(1.4), false);
  assert.equal(rateIsNotable(0.7), false);
  assert.equal(rateIsNotable(1.6), true);
  assert.equal(rateIsNotable(0.5), true);
  assert.equal(formatRate(5), "5×");
  assert.equal(formatRate(4.84), "4.8×");
  assert.equal(formatRate(12.4), "12×");
});

Deno.test("ChainClock: samples a rate, ignores repeats of the same ledger", () => {
  const c = new ChainClock();
  const s = demoSamples(20);
  c.observe(s[0]);
  c.observe({ ...s[0], wall: s[0].wall + 50 }); // same ledger read again
  assert.equal(c.view().rate, null);
  c.observe(s[19]);
  const v = c.view();
  assert.equal(v.rate, 5);
  assert.equal(v.secsPerLedger, 1);
  assert.deepEqual(v.anchor, s[19]);
});

Deno.test("chainTimeOfWall maps a keeper's wall time onto the chain clock, never past now", () => {
  const view = { anchor: { wall: 10_000, chain: 1_000, seq: 50 }, rate: 5, secsPerLedger: 1 };
  // 2 s of wall time before the anchor is 10 s of chain time before it.
  assert.equal(chainTimeOfWall(view, 8_000, 10_000), 990_000);
  // A line stamped after "now" (clock skew) shows now, never a future time.
  assert.equal(chainTimeOfWall(view, 12_000, 10_000), 1_000_000);
  assert.equal(chainAt(view, 11_000), 1_005_000);
  // The same event through its ledger: ledger 40 closed 10 ledgers (10 s) before the anchor.
  assert.equal(chainTimeOfLedger(view, 40), 990_000);
  assert.equal(chainTimeOfLedger(view, 60), 1_000_000);
  assert.equal(chainTimeOfLedger({ ...view, secsPerLedger: null }, 40), null);
  assert.equal(realSeconds(view, 300), 60);
  // Unknown rate: real time is taken as chain time.
  assert.equal(chainTimeOfWall({ ...view, rate: null }, 8_000, 10_000), 998_000);
  assert.equal(chainTimeOfWall({ anchor: null, rate: null, secsPerLedger: null }, 1, 2), null);
});
