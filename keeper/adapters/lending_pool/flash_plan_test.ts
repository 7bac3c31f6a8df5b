/** The liquidation plan, alone: the Blend requests, the liquidator's plan, what may be signed. */
import assert from "node:assert/strict";
import { Keypair, scValToNative, StrKey } from "@stellar/stellar-sdk";
import { ALLOWANCE_LEDGERS, planLiquidation } from "./flash_plan.ts";

const contract = () => StrKey.encodeContract(crypto.getRandomValues(new Uint8Array(32)));
const USDC = contract();
const XLM = contract();
const POOL = contract();
const LIQUIDATOR = contract();
const KEEPER = Keypair.random().publicKey();
const USER = Keypair.random().publicKey();

function decoded(requests: ReturnType<typeof planLiquidation>["requests"]) {
  return requests.map((r) => {
    const o = scValToNative(r) as { request_type: number; address: string; amount: bigint };
    return [o.request_type, o.address, o.amount];
  });
}

Deno.test("planLiquidation: fill, repay, withdraw every lot asset; the allowance far ahead", () => {
  const p = planLiquidation({
    keeper: KEEPER,
    user: USER,
    pool: POOL,
    liquidator: LIQUIDATOR,
    usdc: USDC,
    percent: 59,
    amount: 590_591n,
    need: 1_000_000n,
    lotAssets: [XLM, USDC],
    legs: [],
    reachedLedger: 5000,
  });
  assert.deepEqual(decoded(p.requests), [
    [6, USER, 59n],
    [5, USDC, 590_591n],
    [3, XLM, 1n << 62n],
    [3, USDC, 1n << 62n],
  ]);
  const plan = scValToNative(p.plan) as Record<string, unknown>;
  assert.deepEqual(Object.keys(plan), ["allowance_until", "pool", "requests", "swaps"]);
  assert.equal(plan.allowance_until, 5000 + ALLOWANCE_LEDGERS);
  assert.equal(plan.pool, POOL);
  // The keeper may sign the pool's submit (with the pool's pull of at most the repayment
  // beneath it) and the liquidator's allowances: set and cleared per lot asset and USDC.
  assert.equal(p.auth.subs?.length, 1 + 2 * 2);
});

Deno.test("planLiquidation: no Repay once the bid is free (block 400 on)", () => {
  const p = planLiquidation({
    keeper: KEEPER,
    user: USER,
    pool: POOL,
    liquidator: LIQUIDATOR,
    usdc: USDC,
    percent: 100,
    amount: 1n,
    need: 0n,
    lotAssets: [XLM],
    legs: [],
    reachedLedger: 7,
  });
  assert.deepEqual(decoded(p.requests), [[6, USER, 100n], [3, XLM, 1n << 62n]]);
});
