/** Sizing a liquidation's flash, alone: the amount, a short fill, and bids USDC cannot fill. */
import assert from "node:assert/strict";
import { StrKey } from "@stellar/stellar-sdk";
import { AuctionData } from "@blend-capital/blend-sdk";
import { NO_DEX } from "../outcome.ts";
import type { AuctionValue } from "./auction.ts";
import { sizeFlash, sizeLiquidation, unfillableBid } from "./flash_size.ts";
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

Deno.test("unfillableBid: any bid asset but USDC skips, naming it", () => {
  assert.equal(unfillableBid(new Map([[USDC, 5n]]), USDC), undefined);
  assert.equal(unfillableBid(new Map(), USDC), undefined);
  assert.deepEqual(unfillableBid(new Map([[USDC, 5n], [XLM, 1n]]), USDC), {
    kind: "usdc_only",
    bidAsset: XLM,
  });
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
    { percent: 59, amount: 590_591n, need: 1_000_000n, lotAssets: [USDC] },
  );
  assert.deepEqual(logs, [[
    "vault capital short: filling 59% of the auction",
    { user: "GU", need: "1000000", available: "600000" },
  ]]);
});
