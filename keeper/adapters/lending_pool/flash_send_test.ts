/**
 * Sending a liquidation's flash, alone (a fake vault, no chain): never before the target's
 * previous ledger, a stale sequence number rebuilt once, and how a failed flash is classified.
 */
import assert from "node:assert/strict";
import { Account, Keypair, StrKey } from "@stellar/stellar-sdk";
import { TxRejectedError, UnexpectedAuthError } from "@vigil/soroban/errors";
import { type FlashOptions, FlashUnprofitableError, type VaultClient } from "../adapter.ts";
import { outcomeFields } from "../outcome.ts";
import { planLiquidation } from "./flash_plan.ts";
import { filledResult, raceLost, refusedFlash, sendFlash, targetMissed } from "./flash_send.ts";

const contract = () => StrKey.encodeContract(crypto.getRandomValues(new Uint8Array(32)));
const USDC = contract();
const XLM = contract();
const POOL = contract();
const LIQUIDATOR = contract();
const KEEPER = Keypair.random().publicKey();
const USER = Keypair.random().publicKey();

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
