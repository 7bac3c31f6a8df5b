/** Allocation adapter maths (pure): targets, drift, and the Unwind/Invest plan. */
import assert from "node:assert/strict";
import {
  type AssetAllocation,
  driftBps,
  parseFunds,
  parseTargets,
  planRebalance,
  targetWeights,
} from "@vigil/keeper/adapters/allocation/allocation_adapter";

const A = "CASSET";
const alloc = (amounts: [string, bigint, boolean?][], idle = 0n): AssetAllocation => ({
  asset: A,
  idle,
  total: idle + amounts.reduce((t, [, a]) => t + a, 0n),
  strategies: amounts.map(([strategy, amount, paused]) => ({ strategy, amount, paused: !!paused })),
});

Deno.test("equal targets over live strategies sum to 10000; paused strategies target 0", () => {
  const w = targetWeights(alloc([["s1", 1n], ["s2", 1n], ["s3", 1n], ["s4", 1n, true]]));
  assert.deepEqual([...w.values()].reduce((a, b) => a + b, 0), 10_000);
  assert.equal(w.get("s4"), 0);
  assert.deepEqual([w.get("s1"), w.get("s2"), w.get("s3")], [3334, 3333, 3333]);
});

Deno.test("vault-published targets win when they name the strategies", () => {
  const a = alloc([["s1", 700n], ["s2", 300n]]);
  const t = parseTargets(new Map([["s1", 7000], ["s2", 3000]]));
  assert.equal(driftBps(a, targetWeights(a, t)), 0);
  assert.equal(driftBps(a, targetWeights(a)), 2000); // against equal weights
  assert.equal(parseTargets({}), undefined);
  assert.deepEqual(parseTargets([["s1", 1], ["s2", 2n]]), new Map([["s1", 1], ["s2", 2]]));
  assert.deepEqual(parseTargets({ s1: 5000, s2: 5000 }), new Map([["s1", 5000], ["s2", 5000]]));
});

Deno.test("drift is max |current - target| in bps of the total; idle counts as under-allocation", () => {
  assert.equal(
    driftBps(alloc([["s1", 500n], ["s2", 500n]]), new Map([["s1", 5000], ["s2", 5000]])),
    0,
  );
  assert.equal(
    driftBps(alloc([["s1", 560n], ["s2", 440n]]), new Map([["s1", 5000], ["s2", 5000]])),
    600,
  );
  assert.equal(
    driftBps(alloc([["s1", 400n], ["s2", 400n]], 200n), new Map([["s1", 5000], ["s2", 5000]])),
    1000,
  );
  assert.equal(driftBps(alloc([]), new Map()), 0);
});

Deno.test("plan: unwinds first, invests funded by idle + unwound, dust ignored, paused never invested", () => {
  const a = alloc([["s1", 800_000n], ["s2", 100_000n], ["s3", 50_000n, true]], 50_000n);
  const w = targetWeights(a); // s1, s2 5000 each; s3 0 (paused)
  const plan = planRebalance(a, w, 1_000n);
  assert.deepEqual(plan, [
    { kind: "Unwind", strategy: "s1", amount: 300_000n },
    { kind: "Unwind", strategy: "s3", amount: 50_000n },
    { kind: "Invest", strategy: "s2", amount: 400_000n },
  ]);
  // Everything invested never exceeds what is available.
  const invested = plan.filter((i) => i.kind === "Invest").reduce((t, i) => t + i.amount, 0n);
  const freed = plan.filter((i) => i.kind === "Unwind").reduce((t, i) => t + i.amount, 0n);
  assert.ok(invested <= a.idle + freed);
  assert.deepEqual(planRebalance(alloc([["s1", 500_010n], ["s2", 499_990n]]), w, 1_000n), []);
});

Deno.test("parseFunds reads DeFindex's CurrentAssetInvestmentAllocation list", () => {
  const funds = parseFunds([{
    asset: A,
    idle_amount: 5n,
    invested_amount: 10n,
    total_amount: 15n,
    strategy_allocations: [{ amount: 10n, paused: false, strategy_address: "s1" }],
  }]);
  assert.deepEqual(funds, [{
    asset: A,
    idle: 5n,
    total: 15n,
    strategies: [{ strategy: "s1", amount: 10n, paused: false }],
  }]);
  assert.throws(() => parseFunds({}), /expected a list/);
});
