/**
 * The client-side drift maths of `localnet/protocols/allocation_vault/drift.ts` (what a keeper
 * derives from `fetch_total_managed_funds`): equal targets, the strict threshold, and a property:
 * a plan unwinds first, never invests in a paused strategy and never invests more than idle +
 * unwound. The same maths against the Wasm vault is in localnet/protocols/allocation_vault/contracts/allocation_vault_contract_test.ts.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import {
  computeDrift,
  type CurrentAssetInvestmentAllocation,
  equalTargets,
  needsRebalance,
  planRebalance,
} from "./drift.ts";

const E7 = 10_000_000n;

function funds(amounts: bigint[], idle = 0n, paused: boolean[] = []) {
  const invested = amounts.reduce((t, a) => t + a, 0n);
  return {
    asset: "A",
    idle_amount: idle,
    invested_amount: invested,
    strategy_allocations: amounts.map((amount, i) => ({
      amount,
      paused: paused[i] ?? false,
      strategy_address: `S${i}`,
    })),
    total_amount: idle + invested,
  } satisfies CurrentAssetInvestmentAllocation;
}

Deno.test("drift: equal targets over non-paused strategies; strict threshold; plan to targets", () => {
  assert.deepEqual(equalTargets(funds([1n, 1n, 1n])), { S0: 3334, S1: 3333, S2: 3333 });
  assert.deepEqual(equalTargets(funds([1n, 1n], 0n, [false, true])), { S0: 10_000, S1: 0 });
  const d = computeDrift(funds([700n * E7, 300n * E7]));
  assert.equal(d.driftBps, 2000);
  assert.ok(needsRebalance(d, 1999));
  assert.ok(!needsRebalance(d, 2000), "drift must exceed the threshold");
  assert.deepEqual(planRebalance(d), [
    { tag: "Unwind", values: ["S0", 200n * E7] },
    { tag: "Invest", values: ["S1", 200n * E7] },
  ]);
  // Idle counts as under-allocation; deltas at or below the dust are left alone.
  const idle = computeDrift(funds([500n * E7, 500n * E7], 1_000n * E7));
  assert.equal(idle.driftBps, 2500);
  assert.deepEqual(planRebalance(computeDrift(funds([5_000_001n, 4_999_999n]))), []);
  assert.equal(computeDrift(funds([0n, 0n])).driftBps, 0);
});

Deno.test("drift plan never invests more than idle + unwound (property)", () => {
  fc.assert(
    fc.property(
      fc.array(
        fc.record({ amount: fc.bigInt({ min: 0n, max: 10n ** 12n }), paused: fc.boolean() }),
        { minLength: 2, maxLength: 5 },
      ),
      fc.bigInt({ min: 0n, max: 10n ** 12n }),
      (strats, idle) => {
        const f = funds(strats.map((s) => s.amount), idle, strats.map((s) => s.paused));
        const targets = equalTargets(f);
        const sum = Object.values(targets).reduce((a, b) => a + b, 0);
        assert.equal(sum, strats.some((s) => !s.paused) ? 10_000 : 0);
        let cash = idle;
        let invested = false;
        for (const ins of planRebalance(computeDrift(f, targets), 0n)) {
          assert.ok(ins.values[1] > 0n);
          if (ins.tag === "Unwind") {
            assert.ok(!invested, "unwinds come first");
            cash += ins.values[1];
          } else {
            invested = true;
            assert.ok(!strats[Number(ins.values[0].slice(1))].paused, "no paused investment");
            cash -= ins.values[1];
          }
        }
        assert.ok(cash >= 0n, "invests are funded");
      },
    ),
    { numRuns: 300 },
  );
});
