/**
 * Which positions are bad debt (Blend v2's rule), and the once-per-position-state memory that
 * keeps the keeper from calling `bad_debt` every cycle.
 */
// @ts-ignore: the Blend SDK's stellar-sdk 14 graph resolves @types/node 12, which lacks node:assert/strict
import assert from "node:assert/strict";
import type { Positions } from "@blend-capital/blend-sdk";
import { BAD_DEBT_RETRY_MS, BadDebtAttempts, isBadDebt, positionFingerprint } from "./bad_debt.ts";

function pos(
  liabilities: [number, bigint][],
  collateral: [number, bigint][] = [],
  supply: [number, bigint][] = [],
): Positions {
  return {
    liabilities: new Map(liabilities),
    collateral: new Map(collateral),
    supply: new Map(supply),
  } as Positions;
}

Deno.test("isBadDebt: liabilities and no collateral entry; supply-only balances do not count", () => {
  assert.equal(isBadDebt(pos([[0, 5n]])), true);
  assert.equal(isBadDebt(pos([[0, 5n]], [], [[1, 9n]])), true, "supply is not collateral");
  assert.equal(isBadDebt(pos([[0, 5n]], [[1, 1n]])), false, "any collateral: auction it instead");
  assert.equal(isBadDebt(pos([])), false);
  assert.equal(isBadDebt(pos([], [[1, 1n]])), false);
});

Deno.test("BadDebtAttempts: once per position state, again after it changes, forgotten once healthy", () => {
  const a = new BadDebtAttempts();
  const p = pos([[0, 5n], [2, 7n]]);
  assert.equal(a.due("G1", p), true);
  a.tried("G1", p);
  assert.equal(a.due("G1", p), false, "not retried every cycle");
  assert.equal(a.due("G1", pos([[2, 7n], [0, 5n]])), false, "same balances, other map order");
  assert.equal(a.due("G1", pos([[0, 6n], [2, 7n]])), true, "the position changed: retry");
  assert.equal(a.due("G2", p), true, "per user");
  a.prune((u) => u !== "G1");
  assert.equal(a.due("G1", p), true, "forgotten when no longer bad debt");
  assert.equal(a.due("G1", pos([], [[1, 1n]])), false, "not bad debt");
});

Deno.test("BadDebtAttempts: a failed call (not the pool's refusal) is retried after its back-off", () => {
  const a = new BadDebtAttempts();
  const p = pos([[0, 5n]]);
  a.tried("G1", p, 1_000);
  assert.equal(a.due("G1", p, 999), false, "not every cycle");
  assert.equal(a.due("G1", p, 1_000), true, "after the back-off");
  assert.ok(BAD_DEBT_RETRY_MS >= 60_000);
});

Deno.test("positionFingerprint: every side counts", () => {
  const base = positionFingerprint(pos([[0, 5n]]));
  assert.notEqual(positionFingerprint(pos([[0, 5n]], [], [[1, 1n]])), base);
  assert.notEqual(positionFingerprint(pos([[1, 5n]])), base);
});
