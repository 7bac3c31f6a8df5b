/**
 * Sizing a liquidation's flash, alone: the amount, a short fill, bids USDC cannot fill, and the
 * exact output bought for a non-USDC bid.
 */
import assert from "node:assert/strict";
import { StrKey } from "@stellar/stellar-sdk";
import { AuctionData } from "@blend-capital/blend-sdk";
import type { SwapClient } from "../../dex/swap_client.ts";
import { NO_DEX } from "../outcome.ts";
import type { AuctionValue } from "./auction.ts";
import { buyAmountOut, sizeFlash, sizeLiquidation, unfillableBid } from "./flash_size.ts";
import type { PoolState } from "./pool_state.ts";

const contract = () => StrKey.encodeContract(crypto.getRandomValues(new Uint8Array(32)));
const USDC = contract();
const XLM = contract();

Deno.test("sizeFlash: the bid plus 0.1 % and one unit; a percent that fits when capital is short", () => {
  assert.deepEqual(sizeFlash(1_000_000n, undefined), { percent: 100, amount: 1_001_001n });
  assert.deepEqual(sizeFlash(1_000_000n, 1_001_001n), { percent: 100, amount: 1_001_001n });
  // 600 000 of 1 001 001 is 59 %: 59 % of the bid, rounded up, plus the buffer.
  assert.deepEqual(sizeFlash(1_000_000n, 600_000n), {
    percent: 59,
    amount: 590_000n + 590n + 1n,
    short: 600_000n,
  });
  // A free bid (block 400 on) still lends one unit.
  assert.deepEqual(sizeFlash(0n, 0n), {
    skip: { kind: "insufficient_capital", need: 1n, available: 0n },
  });
  assert.deepEqual(sizeFlash(0n, 1n), { percent: 100, amount: 1n });
});

Deno.test("sizeFlash: a skip when not even 1 % fits", () => {
  assert.deepEqual(sizeFlash(1_000_000n, 10_009n), {
    skip: { kind: "insufficient_capital", need: 1_001_001n, available: 10_009n },
  });
  const one = sizeFlash(1_000_000n, 10_011n);
  assert.ok("percent" in one && one.percent === 1 && one.amount <= 10_011n);
});

Deno.test("unfillableBid: a bid asset but USDC skips, naming it, only when no flash venue can buy it", () => {
  assert.equal(unfillableBid(new Map([[USDC, 5n]]), USDC, "no_dex"), undefined);
  assert.equal(unfillableBid(new Map(), USDC, "no_dex"), undefined);
  assert.deepEqual(unfillableBid(new Map([[USDC, 5n], [XLM, 1n]]), USDC, "no_flash_venue"), {
    kind: "debt_not_buyable",
    bidAsset: XLM,
    blocker: "no_flash_venue",
  });
  assert.equal(unfillableBid(new Map([[USDC, 5n], [XLM, 1n]]), USDC, undefined), undefined);
});

Deno.test("buyAmountOut: the bid plus 0.5 %, never less than about 1 USDC's worth", () => {
  // 100,000 XLM worth 10,000 USDC: + 500 XLM (0.5 %).
  assert.equal(buyAmountOut(100_000_0000000n, 10_000_0000000n), 100_500_0000000n);
  // 100 XLM worth 10 USDC: 0.5 % is 0.5 XLM (0.05 USDC), so + 10 XLM (1 USDC's worth).
  assert.equal(buyAmountOut(100_0000000n, 10_0000000n), 110_0000000n);
  // Unpriced: one unit at least.
  assert.equal(buyAmountOut(100n, 0n), 101n);
});

Deno.test("sizeLiquidation: an unconvertible lot is skipped with a log line; a short vault fills less, logged", async () => {
  const reserve = { toAssetFromDToken: (d: bigint) => d };
  const state = {
    pool: { reserves: new Map([[USDC, reserve], [XLM, reserve]]) },
  } as unknown as PoolState;
  const target = { block: 9, bid: new Map([[USDC, 1_000_000n]]), lot: new Map() } as AuctionValue;
  const logs: [string, Record<string, unknown> | undefined][] = [];
  const log = (_l: string, msg: string, f?: Record<string, unknown>) => void logs.push([msg, f]);
  const xlmLot = new AuctionData(new Map(), 1, new Map([[XLM, 5n]]));
  assert.deepEqual(await sizeLiquidation(state, xlmLot, target, "GU", { usdc: USDC, log }), {
    skip: { kind: "lot_not_convertible", blocker: "no_dex" },
  });
  assert.deepEqual(logs.splice(0), [[
    "auction lot holds non-USDC assets that cannot be swapped in a flash: skipped",
    { user: "GU", lot: XLM, reason: NO_DEX },
  ]]);
  const usdcLot = new AuctionData(new Map(), 1, new Map([[USDC, 5n]]));
  const availableCapital = () => Promise.resolve(600_000n);
  assert.deepEqual(
    await sizeLiquidation(state, usdcLot, target, "GU", { usdc: USDC, log, availableCapital }),
    { percent: 59, amount: 590_591n, need: 1_000_000n, lotAssets: [USDC], buys: new Map() },
  );
  assert.deepEqual(logs.splice(0), [[
    "vault capital short: filling 59% of the auction",
    { user: "GU", need: "1000000", available: "600000" },
  ]]);
});

Deno.test("sizeLiquidation: a non-USDC bid is bought (no DEX: skipped); its oracle ceiling counts against capital", async () => {
  const reserve = { toAssetFromDToken: (d: bigint) => d, config: { decimals: 7 } };
  // XLM at $0.10, USDC at $1 (7 decimals).
  const prices = new Map([[USDC, 10_000_000n], [XLM, 1_000_000n]]);
  const state = {
    pool: { reserves: new Map([[USDC, reserve], [XLM, reserve]]) },
    oracle: { getPrice: (a: string) => prices.get(a), decimals: 7 },
  } as unknown as PoolState;
  // Bid 100,000 XLM (10,000 USDC), lot USDC.
  const target = {
    block: 9,
    bid: new Map([[XLM, 100_000_0000000n]]),
    lot: new Map([[USDC, 1n]]),
  } as AuctionValue;
  const lot = new AuctionData(new Map(), 1, new Map([[USDC, 5n]]));
  const log = () => {};
  assert.deepEqual(await sizeLiquidation(state, lot, target, "GU", { usdc: USDC, log }), {
    skip: { kind: "debt_not_buyable", bidAsset: XLM, blocker: "no_dex" },
  });
  const dex = { flashVenues: () => [{}], slippageBps: 100 } as unknown as SwapClient;
  const deps = { usdc: USDC, log, dex, maxSlippageBps: 300 };
  assert.deepEqual(await sizeLiquidation(state, lot, target, "GU", deps), {
    percent: 100,
    amount: 0n,
    need: 0n,
    lotAssets: [USDC],
    buys: new Map([[XLM, { bid: 100_000_0000000n, amountOut: 100_500_0000000n }]]),
  });
  // 5,000 USDC available: the buys' ceiling (100,500 XLM × $0.10 + 3 %, ≈ 10,351.5 USDC) does not
  // fit, so 48 % is filled and its exact output bought.
  const short = await sizeLiquidation(state, lot, target, "GU", {
    ...deps,
    availableCapital: () => Promise.resolve(5_000_0000000n),
  });
  assert.ok("percent" in short);
  assert.equal(short.percent, 48);
  assert.deepEqual(short.buys.get(XLM), { bid: 48_000_0000000n, amountOut: 48_240_0000000n });
});
