/**
 * The liquidation's pure steps, each alone (no chain): ensure-auction's blocker, target block,
 * size, plan, send's stale-sequence rebuild, failure classification — and the Blend numbers the
 * keeper sends and branches on, pinned against blend-sdk.
 */
import assert from "node:assert/strict";
import { AuctionData, AuctionType, ContractErrorType, RequestType } from "@blend-capital/blend-sdk";
import { Account, Keypair, scValToNative, StrKey } from "@stellar/stellar-sdk";
import { TxRejectedError, UnexpectedAuthError } from "@vigil/soroban/errors";
import type { SwapClient } from "../../dex/swap_client.ts";
import { type FlashOptions, FlashUnprofitableError, type VaultClient } from "../adapter.ts";
import { outcomeFields } from "../outcome.ts";
import {
  ALLOWANCE_LEDGERS,
  conversionBlocker,
  creationBlocker,
  filledResult,
  planLiquidation,
  PoolErrors,
  raceLost,
  refusedFlash,
  sendFlash,
  sizeFlash,
  targetBlock,
  targetMissed,
  unfillableBid,
} from "./execute.ts";
import type { PoolState } from "./pool_state.ts";

const contract = () => StrKey.encodeContract(crypto.getRandomValues(new Uint8Array(32)));
const USDC = contract();
const XLM = contract();
const POOL = contract();
const LIQUIDATOR = contract();
const KEEPER = Keypair.random().publicKey();
const USER = Keypair.random().publicKey();

Deno.test("the Blend numbers the keeper relies on are blend-sdk's", () => {
  // Pinned: the keeper sent and branched on these numbers before it used the SDK's enums.
  assert.equal(RequestType.WithdrawCollateral, 3);
  assert.equal(RequestType.Repay, 5);
  assert.equal(RequestType.FillUserLiquidationAuction, 6);
  assert.equal(AuctionType.Liquidation, 0);
  assert.equal(ContractErrorType.InvalidLiquidation, 1211);
  assert.equal(ContractErrorType.AuctionInProgress, 1212);
  assert.equal(ContractErrorType.InvalidLiqTooLarge, 1213);
  assert.equal(ContractErrorType.InvalidLiqTooSmall, 1214);
  assert.equal(ContractErrorType.InvalidDTokenBurnAmount, 1219);
  assert.deepEqual(PoolErrors, {
    InvalidLiquidation: 1211,
    AuctionInProgress: 1212,
    InvalidLiqTooLarge: 1213,
    InvalidLiqTooSmall: 1214,
    InvalidDTokenBurnAmount: 1219,
  });
});

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

Deno.test("creationBlocker: no debt, no USDC debt, and an unconvertible lot block a new auction", () => {
  const state = { reserveList: [USDC, XLM] };
  const pos = (liab: number[], coll: number[]) => ({
    liabilities: new Map(liab.map((i) => [i, 1n])),
    collateral: new Map(coll.map((i) => [i, 1n])),
  });
  const venues = (n: number) => ({ flashVenues: () => new Array(n) }) as unknown as SwapClient;
  const deps = { usdc: USDC, dex: venues(1) };
  assert.deepEqual(creationBlocker(state, pos([], [1]), deps), { kind: "no_auction_no_debt" });
  assert.deepEqual(creationBlocker(state, pos([1], [0]), deps), { kind: "usdc_only" });
  assert.equal(creationBlocker(state, pos([0], [0]), { usdc: USDC }), undefined, "USDC lot");
  assert.equal(creationBlocker(state, pos([0], [1]), deps), undefined);
  assert.deepEqual(creationBlocker(state, pos([0], [1]), { usdc: USDC }), {
    kind: "lot_not_convertible",
    blocker: "no_dex",
  });
  assert.deepEqual(creationBlocker(state, pos([0], [1]), { usdc: USDC, dex: venues(0) }), {
    kind: "lot_not_convertible",
    blocker: "no_flash_venue",
  });
  assert.equal(conversionBlocker({ dex: venues(2) }), undefined);
});

Deno.test("unfillableBid: any bid asset but USDC skips, naming it", () => {
  assert.equal(unfillableBid(new Map([[USDC, 5n]]), USDC), undefined);
  assert.equal(unfillableBid(new Map(), USDC), undefined);
  assert.deepEqual(unfillableBid(new Map([[USDC, 5n], [XLM, 1n]]), USDC), {
    kind: "usdc_only",
    bidAsset: XLM,
  });
});

/** A pool where every token is worth 1 and one bToken/dToken is one token. */
function flatState(priced = true): PoolState {
  const reserve = {
    toAssetFromBTokenFloat: (b: bigint) => Number(b),
    toAssetFromDTokenFloat: (d: bigint) => Number(d),
  };
  return {
    pool: { reserves: new Map([[USDC, reserve], [XLM, reserve]]) },
    oracle: { getPriceFloat: () => (priced ? 1 : undefined) },
  } as unknown as PoolState;
}

Deno.test("targetBlock: the first block clearing MIN_PROFIT, near enough to wait for", () => {
  const auction = new AuctionData(
    new Map([[USDC, 1_000_000n]]),
    1000,
    new Map([[XLM, 1_000_000n]]),
  );
  const far = targetBlock(flatState(), USER, auction, {
    minProfit: 1.1,
    next: 1001,
    pollIntervalSec: 5,
    secondsPerLedger: 5,
  });
  assert.ok("wait" in far && far.wait.kind === "too_early");
  const { targetBlock: block, ledgersToGo, ratioNow, ratioAtTarget } = far.wait;
  // Blend's curve: the lot is whole at +200, then the bid shrinks; 1.1 is cleared past +200.
  assert.ok(block > 1200 && block < 1400, `target ${block}`);
  assert.equal(ledgersToGo, block - 1001);
  assert.ok(ratioNow !== null && ratioNow < 0.01);
  assert.ok(ratioAtTarget !== null && ratioAtTarget >= 1.1);
  // One poll interval (1 ledger) plus 3 ahead: go.
  for (const next of [block - 4, block]) {
    const go = targetBlock(flatState(), USER, auction, {
      minProfit: 1.1,
      next,
      pollIntervalSec: 5,
      secondsPerLedger: 5,
    });
    assert.ok("target" in go, `next ${next}`);
    assert.equal(go.target.block, block);
    assert.equal(go.next, next);
  }
  const early = targetBlock(flatState(), USER, auction, {
    minProfit: 1.1,
    next: block - 5,
    pollIntervalSec: 5,
    secondsPerLedger: 5,
  });
  assert.ok("wait" in early && early.wait.kind === "too_early" && early.wait.ledgersToGo === 5);
});

Deno.test("targetBlock: an unpriced auction never clears MIN_PROFIT", () => {
  const auction = new AuctionData(new Map([[USDC, 1n]]), 1000, new Map([[XLM, 1n]]));
  const r = targetBlock(flatState(false), USER, auction, {
    minProfit: 1.1,
    next: 1100,
    pollIntervalSec: 5,
    secondsPerLedger: 5,
  });
  assert.deepEqual(r, { wait: { kind: "never_profitable", ratioNow: null } });
});

Deno.test("targetMissed: a fill may go only from the ledger before the target on", () => {
  assert.equal(targetMissed(99, 100, false), undefined);
  assert.equal(targetMissed(150, 100, false), undefined);
  assert.deepEqual(targetMissed(98, 100, false), {
    kind: "target_not_reached",
    shutdown: false,
    targetBlock: 100,
    latest: 98,
  });
  const shut = targetMissed(10, 100, true);
  assert.ok(shut);
  assert.equal(
    outcomeFields({ status: "skipped", user: USER, reason: shut }).reason,
    "shutdown before the profitable block",
  );
});

/** Decodes a plan's requests as `[request_type, address, amount]`. */
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

/** A vault whose flash fails per `failures` (in order), then settles. */
function fakeVault(failures: unknown[]) {
  const calls: FlashOptions[] = [];
  const vault = {
    flash: (_e: string, _a: bigint, _d: unknown, _t: number, opts: FlashOptions) => {
      calls.push(opts);
      const f = failures.shift();
      return f ? Promise.reject(f) : Promise.resolve({ profit: 7n, txHash: "ab", ledger: 9 });
    },
  } as unknown as VaultClient;
  return { vault, calls };
}

Deno.test("sendFlash: a stale sequence number is rebuilt once with a fresh one; other errors throw", async () => {
  const planned = planLiquidation({
    keeper: KEEPER,
    user: USER,
    pool: POOL,
    liquidator: LIQUIDATOR,
    usdc: USDC,
    percent: 100,
    amount: 1n,
    need: 0n,
    lotAssets: [USDC],
    legs: [],
    reachedLedger: 7,
  });
  const account = new Account(KEEPER, "1");
  const ok = fakeVault([]);
  assert.equal((await sendFlash(ok.vault, LIQUIDATOR, 1n, planned, 3, account)).ledger, 9);
  assert.equal(ok.calls.length, 1);
  assert.equal(ok.calls[0].account, account);
  assert.equal(ok.calls[0].auth, planned.auth);

  const stale = fakeVault([new TxRejectedError("ERROR", "txBadSeq", "h")]);
  assert.equal((await sendFlash(stale.vault, LIQUIDATOR, 1n, planned, 3, account)).txHash, "ab");
  assert.deepEqual(stale.calls.map((c) => c.account), [account, undefined]);

  const rejected = new TxRejectedError("ERROR", "txInsufficientFee", "h");
  const other = fakeVault([rejected]);
  await assert.rejects(
    sendFlash(other.vault, LIQUIDATOR, 1n, planned, 3, account),
    (e) => e === rejected,
  );
  assert.equal(other.calls.length, 1, "never a retry of the flash");
});

Deno.test("refusedFlash: an unprofitable simulation and a refused authorization are skips", () => {
  assert.deepEqual(refusedFlash(new FlashUnprofitableError(-3n, 1n)), {
    kind: "unprofitable",
    simulatedProfit: -3n,
  });
  const auth = new UnexpectedAuthError("unexpected call", {
    contract: XLM,
    fn: "transfer",
    path: "flash › exec › submit",
    invocation: `${XLM}.transfer(…)`,
  });
  assert.deepEqual(refusedFlash(auth), {
    kind: "auth_refused",
    refusal: "unexpected call",
    invocation: `${XLM}.transfer(…)`,
    path: "flash › exec › submit",
  });
  assert.equal(refusedFlash(new Error("pool trapped")), undefined);
});

Deno.test("raceLost: only when the auction, read back, is gone or replaced", () => {
  const ours = { block: 100 };
  assert.equal(raceLost(true, undefined, ours), true);
  assert.equal(raceLost(true, { block: 130 }, ours), true);
  assert.equal(raceLost(true, { block: 100 }, ours), false);
  assert.equal(raceLost(false, undefined, ours), false, "an unreadable auction is not a lost race");
});

Deno.test("filledResult: lent, returned and booked from the flash, with the fill's facts", () => {
  const r = filledResult({ profit: 40n, txHash: "cd", ledger: 1234 }, {
    user: USER,
    percent: 100,
    amount: 1_001_001n,
    responseTimeMs: 12,
    auctionBlock: 1000,
    target: { block: 1233, ratio: 1.23456789 },
    swaps: 1,
  });
  assert.deepEqual(r, {
    drew: 1_001_001n,
    proceeds: 1_001_041n,
    profit: 40n,
    responseTimeMs: 12,
    txHash: "cd",
    outcome: {
      status: "filled",
      user: USER,
      percent: 100,
      auctionBlock: 1000,
      fillLedger: 1234,
      targetBlock: 1233,
      ratio: 1.234568,
      swaps: 1,
    },
  });
  const inf = filledResult({ profit: 0n, txHash: "", ledger: 1 }, {
    user: USER,
    percent: 1,
    amount: 1n,
    responseTimeMs: 0,
    auctionBlock: 0,
    target: { block: 401, ratio: Infinity },
    swaps: 0,
  });
  assert.equal(inf.outcome.status === "filled" && inf.outcome.ratio, null);
});
