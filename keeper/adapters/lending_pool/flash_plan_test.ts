/** The liquidation plan, alone: the Blend requests, the liquidator's plan, what may be signed. */
import assert from "node:assert/strict";
import { Keypair, scValToNative, StrKey } from "@stellar/stellar-sdk";
import {
  ALLOWANCE_LEDGERS,
  fitToDepth,
  MIN_DEPTH_FIT_PERCENT,
  minRatioBps,
  planLiquidation,
  priceSwaps,
} from "./flash_plan.ts";
import type { AuctionValue } from "./auction.ts";
import type { PoolState } from "./pool_state.ts";

const contract = () => StrKey.encodeContract(crypto.getRandomValues(new Uint8Array(32)));
const USDC = contract();
const XLM = contract();
const POOL = contract();
const LIQUIDATOR = contract();
const ROUTER = contract();
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
    minProfit: 1.02,
  });
  assert.deepEqual(decoded(p.requests), [
    [6, USER, 59n],
    [5, USDC, 590_591n],
    [3, XLM, 1n << 62n],
    [3, USDC, 1n << 62n],
  ]);
  const plan = scValToNative(p.plan) as Record<string, unknown>;
  assert.deepEqual(Object.keys(plan), [
    "allowance_until",
    "buys",
    "min_ratio_bps",
    "pool",
    "requests",
    "swaps",
  ]);
  assert.deepEqual(plan.buys, []);
  assert.equal(plan.allowance_until, 5000 + ALLOWANCE_LEDGERS);
  assert.equal(plan.pool, POOL);
  assert.equal(plan.min_ratio_bps, 10_200, "MIN_PROFIT 1.02 for the liquidator's check");
  // The keeper may sign the pool's two submits (issue 26: the fill and the repayment, with the
  // pool's pull of at most the repayment beneath it; then the withdrawals) and the liquidator's
  // allowances: set and cleared per lot asset and USDC.
  assert.equal(p.auth.subs?.length, 2 + 2 * 2);
  const submits = p.auth.subs!.filter((c) => c.fn === "submit");
  assert.equal(submits.length, 2);
  assert.equal(submits[0].subs?.length, 1, "the pull beneath the first");
  assert.equal(submits[1].subs?.length, 0, "nothing beneath the withdrawals");
});

Deno.test("minRatioBps: MIN_PROFIT in whole basis points, rounded up, never 0 (0 turns the check off)", () => {
  assert.equal(minRatioBps(1.02), 10_200);
  assert.equal(minRatioBps(1), 10_000);
  assert.equal(minRatioBps(1.05), 10_500);
  assert.equal(minRatioBps(1.02345), 10_235);
  assert.equal(minRatioBps(1.000001), 10_001);
  assert.equal(minRatioBps(0.5), 5_000);
  assert.equal(minRatioBps(1e-9), 1);
  assert.equal(minRatioBps(1e9), 0xffff_ffff);
  // Never looser than the rule: bps / 10,000 ≥ MIN_PROFIT (up to float noise of 1e-10).
  for (let i = 0; i < 1000; i++) {
    const m = 0.5 + Math.random() * 2;
    assert.ok(minRatioBps(m) / 10_000 >= m - 1e-10, String(m));
    assert.ok(minRatioBps(m) / 10_000 < m + 1e-4, String(m));
  }
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
    minProfit: 1.02,
  });
  assert.deepEqual(decoded(p.requests), [[6, USER, 100n], [3, XLM, 1n << 62n]]);
});

Deno.test("planLiquidation: a non-USDC bid is bought first, repaid with the exact output, its leftover sold", () => {
  const buy = { amountOut: 100_500n, maxIn: 10_200n, path: [USDC, XLM], router: ROUTER };
  const sell = { amountIn: 500n, kind: 0, minOut: 45n, path: [XLM, USDC], router: ROUTER };
  const p = planLiquidation({
    keeper: KEEPER,
    user: USER,
    pool: POOL,
    liquidator: LIQUIDATOR,
    usdc: USDC,
    percent: 100,
    // No USDC bid: the flash lends only the buy's max_in.
    amount: 10_200n,
    need: 0n,
    lotAssets: [USDC],
    legs: [sell],
    buys: [buy],
    reachedLedger: 5000,
    minProfit: 1.02,
  });
  assert.deepEqual(decoded(p.requests), [
    [6, USER, 100n],
    [5, XLM, 100_500n],
    [3, USDC, 1n << 62n],
  ]);
  const plan = scValToNative(p.plan) as Record<string, unknown>;
  assert.deepEqual(plan.buys, [{
    amount_out: 100_500n,
    max_in: 10_200n,
    path: [USDC, XLM],
    router: ROUTER,
  }]);
  assert.equal((plan.swaps as unknown[]).length, 1);
  // The two submits (the first pulling at most the exact output of XLM), and the liquidator's
  // allowances: set and cleared for XLM (the leftover) and USDC (twice: the buy's input, the
  // repayment).
  assert.equal(p.auth.subs?.length, 2 + 2 * 2);
  const usdcApprovals = p.auth.subs!.filter((c) => c.contract === USDC);
  assert.deepEqual(usdcApprovals.map((c) => c.max), [2, 2]);
  // With a USDC bid as well: its Repay is the flash amount less the buys' max_in.
  const both = planLiquidation({
    keeper: KEEPER,
    user: USER,
    pool: POOL,
    liquidator: LIQUIDATOR,
    usdc: USDC,
    percent: 100,
    amount: 10_200n + 5_006n,
    need: 5_000n,
    lotAssets: [USDC],
    legs: [sell],
    buys: [buy],
    reachedLedger: 5000,
    minProfit: 1.02,
  });
  assert.deepEqual(decoded(both.requests).slice(1, 3), [[5, USDC, 5_006n], [5, XLM, 100_500n]]);
});

Deno.test("priceSwaps: (USDC lot + sales of lot and leftover) / (USDC bid + buys), from the quotes", () => {
  const reserve = { toAssetFromBToken: (b: bigint) => b };
  const state = {
    pool: { reserves: new Map([[USDC, reserve], [XLM, reserve]]) },
  } as unknown as PoolState;
  const target = { lot: new Map([[USDC, 12_000n]]), bid: new Map() } as unknown as AuctionValue;
  const priced = priceSwaps(state, target, { percent: 50, need: 0n }, [{ quote: 5_000n }], [{
    quote: 20n,
  }], USDC);
  assert.deepEqual(priced, { proceeds: 6_020n, cost: 5_000n, ratio: 6_020 / 5_000 });
  // A USDC bid counts at the percent filled.
  assert.equal(
    priceSwaps(state, target, { percent: 50, need: 2_000n }, [{ quote: 5_000n }], [], USDC).cost,
    6_000n,
  );
});

Deno.test("fitToDepth: the largest percent that plans, within a few points, in at most 6 quote rounds", async () => {
  for (const limit of [5, 6, 17, 42, 50, 77, 98]) {
    const tried: number[] = [];
    // A constant-product pair: a lot fits below the floor up to `limit` % of the auction.
    const fit = await fitToDepth(100, (p) => {
      tried.push(p);
      return Promise.resolve(p <= limit ? `legs@${p}` : undefined);
    });
    assert.ok(fit, `limit ${limit}`);
    assert.ok(fit.percent <= limit, `never above what fits (${fit.percent} > ${limit})`);
    assert.ok(limit - fit.percent <= 3, `within 3 points of ${limit}: ${fit.percent}`);
    assert.equal(fit.value, `legs@${fit.percent}`, "the legs planned for the percent returned");
    assert.ok(tried.length <= 6, `${tried.length} rounds`);
    assert.ok(tried.every((p) => p >= MIN_DEPTH_FIT_PERCENT && p < 100));
  }
});

Deno.test("fitToDepth: nothing fits, or nothing below the percent: undefined after one quote at most", async () => {
  const tried: number[] = [];
  const none = await fitToDepth(100, (p) => {
    tried.push(p);
    return Promise.resolve(undefined);
  });
  assert.equal(none, undefined);
  assert.deepEqual(tried, [MIN_DEPTH_FIT_PERCENT], "only the smallest is quoted");
  let calls = 0;
  const below = await fitToDepth(MIN_DEPTH_FIT_PERCENT, () => Promise.resolve(++calls));
  assert.equal(below, undefined);
  assert.equal(calls, 0);
});
