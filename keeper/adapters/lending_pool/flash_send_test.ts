/**
 * Sending a liquidation's flash, alone (a fake vault, a fake chain head): the wait for the landing
 * ledger re-valued at every ledger from a few before the target, a stale sequence number rebuilt once, and how a failed flash is classified.
 */
import assert from "node:assert/strict";
import { Account, Keypair, StrKey } from "@stellar/stellar-sdk";
import { ContractCallError, TxRejectedError, UnexpectedAuthError } from "@vigil/soroban/errors";
import { LiquidatorError } from "@vigil/contracts/clients/liquidator";
import { type FlashOptions, FlashUnprofitableError, type VaultClient } from "../adapter.ts";
import { outcomeFields } from "../outcome.ts";
import { planLiquidation } from "./flash_plan.ts";
import { LedgerClock } from "@vigil/soroban/ledger";
import type { ChainRpc } from "@vigil/soroban/rpc";
import type { AuctionValue } from "./auction.ts";
import {
  awaitLanding,
  belowMinProfitResult,
  belowMinProfitStage,
  classifyFlashFailure,
  dexMoved,
  filledResult,
  landAndSend,
  raceLost,
  refusedFlash,
  ROUTER_MIN_OUT,
  sendFlash,
} from "./flash_send.ts";
import { type Revaluation, REVALUE_LEDGERS } from "./target_block.ts";

const contract = () => StrKey.encodeContract(crypto.getRandomValues(new Uint8Array(32)));
const USDC = contract();
const XLM = contract();
const POOL = contract();
const LIQUIDATOR = contract();
const KEEPER = Keypair.random().publicKey();
const USER = Keypair.random().publicKey();

/** A chain whose head moves one ledger every `perLedger` head reads, from `start`. */
function fakeChain(start: number, perLedger = 1) {
  let reads = 0;
  const chain = {
    closed: false,
    server: {
      getAccount: (id: string) => Promise.resolve(new Account(id, "1")),
      _getLatestLedger: () => {
        const sequence = start + Math.floor(reads++ / perLedger);
        return Promise.resolve({ sequence, closeTime: 0 });
      },
    },
  } as unknown as ChainRpc;
  return chain;
}

const DEPS = { clock: new LedgerClock(0.05), pollIntervalSec: 1 };
const value = (block: number) =>
  ({ block, lot: new Map(), bid: new Map(), lotValue: 1, bidCost: 1, ratio: 1.05 }) as AuctionValue;

Deno.test("awaitLanding: quiet until a few ledgers before the target, then re-values every ledger", async () => {
  const heads: number[] = [];
  // Head 90, target 100: the first look is at 100 - 1 - REVALUE_LEDGERS; sends at head 98.
  const r = await awaitLanding(
    fakeChain(90),
    KEEPER,
    { targetBlock: 100, next: 91, spl: 0.05 },
    (head) => {
      heads.push(head);
      return Promise.resolve(head < 98 ? { target: value(100) } : { send: value(head + 1) });
    },
    DEPS,
  );
  assert.ok("account" in r, JSON.stringify(r));
  assert.equal(r.reached, 98);
  assert.equal(r.value.block, 99);
  const first = 100 - 1 - REVALUE_LEDGERS;
  assert.deepEqual(heads, Array.from({ length: 98 - first + 1 }, (_, i) => first + i));
});

Deno.test("awaitLanding: the target follows the prices — earlier, later, then out of reach", async () => {
  const heads: number[] = [];
  const answers: Revaluation[] = [
    { target: value(97) }, // prices up: earlier (the next look is the next ledger anyway)
    { target: value(104) }, // prices down: later; the quiet wait starts again
    {
      wait: {
        kind: "too_early",
        auctionBlock: 1,
        targetBlock: 130,
        ledgersToGo: 30,
        ratioNow: 0.9,
        ratioAtTarget: 1.02,
      },
    },
  ];
  const r = await awaitLanding(
    fakeChain(95),
    KEEPER,
    { targetBlock: 100, next: 96, spl: 0.05 },
    (head) => {
      heads.push(head);
      return Promise.resolve(answers.shift()!);
    },
    DEPS,
  );
  assert.ok("wait" in r && r.wait.kind === "too_early");
  // 95 (the head as it was: 100 - 1 - 4 = 95), 96, then 104 - 1 - 4 = 99.
  assert.deepEqual(heads, [95, 96, 99]);
});

Deno.test("awaitLanding: shutdown or a stalled chain is a skip; nothing is sent", async () => {
  const ac = new AbortController();
  ac.abort();
  const shut = await awaitLanding(
    fakeChain(10, 1_000_000),
    KEEPER,
    { targetBlock: 100, next: 11, spl: 0.05 },
    () => Promise.reject(new Error("never re-valued")),
    { ...DEPS, signal: ac.signal },
  );
  assert.ok("skip" in shut && shut.skip.kind === "target_not_reached" && shut.skip.shutdown);
  assert.equal(
    outcomeFields({ status: "skipped", user: USER, reason: shut.skip }).reason,
    "shutdown before the profitable block",
  );
});

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
    minProfit: 1.02,
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

Deno.test("filledResult: ledgers after the first profitable block, in the outcome and its log fields", () => {
  const fill = (ledger: number) =>
    filledResult({ profit: 1n, txHash: "ef", ledger }, {
      user: USER,
      percent: 100,
      amount: 2n,
      responseTimeMs: 1,
      auctionBlock: 1000,
      target: { block: 1186, ratio: 1.03 },
      swaps: 0,
      firstProfitable: 1186,
    }).outcome;
  const onTime = fill(1186);
  assert.ok(onTime.status === "filled" && onTime.ledgersAfterFirstProfitable === 0);
  assert.equal(outcomeFields(onTime).ledgers_after_first_profitable, 0);
  const late = fill(1188);
  assert.equal(outcomeFields(late).ledgers_after_first_profitable, 2);
});

/** A contract error as `soroban/tx.ts` throws it, at a stage. */
function contractError(code: number, stage: "simulation" | "transaction"): ContractCallError {
  const tx = stage === "transaction" ? "ab".repeat(32) : undefined;
  return new ContractCallError(
    "C".padEnd(56, "A"),
    "flash",
    { type: "Contract", code },
    `Error(Contract, #${code})`,
    stage,
    tx,
  );
}

Deno.test("BelowMinProfit in simulation is 'not yet' (waiting, nothing sent), never a failure", () => {
  const err = contractError(LiquidatorError.BelowMinProfit, "simulation");
  assert.equal(belowMinProfitStage(err), "simulation");
  const r = belowMinProfitResult(err, "GUSER")!;
  assert.deepEqual(r.outcome, {
    status: "waiting",
    reason: { kind: "below_min_profit_at_landing" },
  });
  assert.equal(r.drew, 0n);
  assert.equal(r.txHash, undefined);
  assert.match(String(outcomeFields(r.outcome).reason), /below MIN_PROFIT: not yet/);
});

Deno.test("BelowMinProfit on chain is its own skip: nothing lent, fee only, the reverted tx named", () => {
  const err = contractError(LiquidatorError.BelowMinProfit, "transaction");
  assert.equal(belowMinProfitStage(err), "transaction");
  const r = belowMinProfitResult(err, "GUSER")!;
  assert.deepEqual(r.outcome, {
    status: "skipped",
    user: "GUSER",
    reason: { kind: "min_profit_reverted", txHash: "ab".repeat(32) },
  });
  assert.equal(r.drew, 0n);
  assert.equal(r.profit, 0n);
  assert.equal(r.txHash, "ab".repeat(32));
  assert.deepEqual(outcomeFields(r.outcome), {
    user: "GUSER",
    reason:
      "the oracle prices moved in the landing ledger; the flash reverted, nothing lent; fee only",
    reverted_tx: "ab".repeat(32),
  });
});

Deno.test("belowMinProfitStage: other contract errors, host errors and plain errors are not it", () => {
  for (
    const err of [
      contractError(LiquidatorError.SwapAboveCeiling, "transaction"),
      contractError(LiquidatorError.LiquidationShortfall, "simulation"),
      new ContractCallError(
        "C",
        "flash",
        { type: "Budget", code: "ExceededLimit" },
        "",
        "simulation",
      ),
      new Error("Error(Contract, #167)"),
      new FlashUnprofitableError(0n, 1n),
    ]
  ) {
    assert.equal(belowMinProfitStage(err), undefined, String(err));
    assert.equal(belowMinProfitResult(err, "GUSER"), undefined);
  }
});

Deno.test("classifyFlashFailure: BelowMinProfit is classified before any read, with the log sentence for a landed revert", async () => {
  const lines: [string, string, Record<string, unknown> | undefined][] = [];
  const log = (level: string, msg: string, f?: Record<string, unknown>) => {
    lines.push([level, msg, f]);
  };
  // A chain that must not be read: the classification needs no auction read.
  const chain = {} as ChainRpc;
  const c = { user: "GUSER", auction: { block: 5 } as never, poolId: "CPOOL", responseTimeMs: 7 };
  const landed = await classifyFlashFailure(
    chain,
    contractError(LiquidatorError.BelowMinProfit, "transaction"),
    c,
    log,
  );
  assert.equal(landed.outcome.status, "skipped");
  assert.deepEqual(lines, [[
    "info",
    "the oracle prices moved in the landing ledger; the flash reverted, nothing lent; fee only",
    { user: "GUSER", tx_hash: "ab".repeat(32) },
  ]]);
  const sim = await classifyFlashFailure(
    chain,
    contractError(LiquidatorError.BelowMinProfit, "simulation"),
    c,
    log,
  );
  assert.equal(sim.outcome.status, "waiting");
  assert.equal(lines.length, 1, "a simulated refusal logs nothing here (execute logs 'not yet')");
});

Deno.test("classifyFlashFailure: a swap below its minimum out (router #507) is the skip dex_moved, at either stage, without reading the auction", async () => {
  const chain = {} as ChainRpc; // must not be read
  const c = { user: "GUSER", auction: { block: 5 } as never, poolId: "CPOOL", responseTimeMs: 7 };
  for (const stage of ["transaction", "simulation"] as const) {
    const r = await classifyFlashFailure(chain, contractError(ROUTER_MIN_OUT, stage), c);
    assert.equal(r.outcome.status, "skipped");
    assert.deepEqual(r.outcome.status === "skipped" && r.outcome.reason, {
      kind: "dex_moved",
      stage,
      txHash: stage === "transaction" ? "ab".repeat(32) : null,
    });
  }
  assert.equal(dexMoved(contractError(ROUTER_MIN_OUT + 1, "transaction")), undefined);
  assert.equal(dexMoved(new Error("Error(Contract, #507)")), undefined);
});

Deno.test("landAndSend: BelowMinProfit in simulation waits for the next ledger and sends there; other errors, an on-chain revert and the end of the window are returned", async () => {
  const account = new Account(Keypair.random().publicKey(), "1");
  const landingAt = (reached: number) => ({
    account,
    reached,
    value: { block: reached + 1, ratio: 1.03 } as AuctionValue,
  });
  const waits: { targetBlock: number; next: number }[] = [];
  const wait = (at: { targetBlock: number; next: number }) => {
    waits.push(at);
    return Promise.resolve(landingAt(at.targetBlock - 1));
  };
  const logged: string[] = [];
  const log = (_: "info", msg: string) => void logged.push(msg);
  const outcome = { profit: 5n, txHash: "tx", ledger: 103 };
  // Refused in simulation twice (the ratio at the landing ledger), then clears.
  let sends = 0;
  const r = await landAndSend(
    { targetBlock: 101, next: 100 },
    110,
    wait,
    (l) => {
      sends++;
      if (l.reached < 102) {
        return Promise.reject(contractError(LiquidatorError.BelowMinProfit, "simulation"));
      }
      return Promise.resolve(outcome);
    },
    log,
    "GUSER",
  );
  assert.deepEqual(waits, [
    { targetBlock: 101, next: 100 },
    { targetBlock: 102, next: 102 },
    { targetBlock: 103, next: 103 },
  ]);
  assert.equal(sends, 3);
  assert.ok("out" in r && r.out === outcome && r.landing.reached === 102);
  assert.equal(logged.length, 2);
  assert.match(logged[0], /not yet/);

  // Past the window: the refusal is returned (classified as waiting by classifyFlashFailure).
  waits.length = 0;
  const refusal = contractError(LiquidatorError.BelowMinProfit, "simulation");
  const late = await landAndSend(
    { targetBlock: 101, next: 100 },
    102,
    wait,
    () => Promise.reject(refusal),
    log,
    "GUSER",
  );
  assert.deepEqual(late, { error: refusal });
  assert.equal(waits.length, 2, "one more ledger (102 ≤ the window), not two");

  // An on-chain revert and any other error: returned at once, never re-sent.
  for (
    const err of [
      contractError(LiquidatorError.BelowMinProfit, "transaction"),
      contractError(LiquidatorError.LiquidationShortfall, "simulation"),
    ]
  ) {
    waits.length = 0;
    const once = await landAndSend(
      { targetBlock: 101, next: 100 },
      200,
      wait,
      () => Promise.reject(err),
      log,
      "GUSER",
    );
    assert.deepEqual(once, { error: err });
    assert.equal(waits.length, 1);
  }
  // A skip or wait from the wait itself is returned as it is.
  const skip = { skip: { kind: "target_not_reached", shutdown: true, targetBlock: 1, latest: 0 } };
  assert.deepEqual(
    await landAndSend(
      { targetBlock: 101, next: 100 },
      200,
      () => Promise.resolve(skip as never),
      () => Promise.reject(new Error("not sent")),
      log,
      "GUSER",
    ),
    skip,
  );
});
