/**
 * Step 5 of a liquidation, send: wait for the block before the target (never fill early), send
 * the flash, and classify how it ended — filled, a lost race, a refusal before sending, or an
 * error to throw. Whatever happens the flash reverted as a whole or settled: nothing is ever
 * outstanding.
 *
 * @module
 */
import type { AuctionData } from "@blend-capital/blend-sdk";
import type { Account } from "@stellar/stellar-sdk";
import { describeError, TxRejectedError, UnexpectedAuthError } from "@vigil/soroban/errors";
import { waitForLedger } from "@vigil/soroban/ledger";
import type { ChainRpc } from "@vigil/soroban/rpc";
import {
  type FlashOutcome,
  FlashUnprofitableError,
  noCapitalResult,
  type Result,
  skipped,
  type VaultClient,
} from "../adapter.ts";
import type { SkipReason, TaskOutcome } from "../outcome.ts";
import { type AuctionValue, readAuction } from "./auction.ts";
import type { ExecuteDeps } from "./execute_deps.ts";
import type { PlannedFlash } from "./flash_plan.ts";
import { finite } from "./target_block.ts";

/**
 * Step 5a: reads the keeper's account (its sequence number, so the latency-critical flash needs
 * no read), then waits for the ledger before `targetBlock`. A skip when the wait ended before it
 * (shutdown, or the chain slower than estimated): a fill now would land before the first
 * profitable block. Nothing was lent; a later cycle comes back.
 */
export async function awaitTarget(
  chain: ChainRpc,
  keeper: string,
  at: { targetBlock: number; next: number; spl: number },
  deps: Pick<ExecuteDeps, "clock" | "pollIntervalSec" | "signal">,
): Promise<{ account: Account; reached: number } | { skip: SkipReason }> {
  const { targetBlock, next, spl } = at;
  // Generous deadline (the pace estimate may be off); what matters is below: never fill early.
  const deadline = Date.now() +
    Math.max(2 * deps.pollIntervalSec, (targetBlock - next + 2) * spl * 2) * 1000 + 10_000;
  const account = await chain.server.getAccount(keeper);
  const reached = await waitForLedger(chain, targetBlock - 1, deadline, {
    clock: deps.clock,
    signal: deps.signal,
    pollMs: Math.max(20, Math.min(250, spl * 100)),
  });
  const skip = targetMissed(reached.sequence, targetBlock, deps.signal?.aborted ?? false);
  return skip ? { skip } : { account, reached: reached.sequence };
}

/** A skip when ledger `reached` is not the one before `targetBlock` or later (pure). */
export function targetMissed(
  reached: number,
  targetBlock: number,
  shutdown: boolean,
): SkipReason | undefined {
  return reached + 1 < targetBlock
    ? { kind: "target_not_reached", shutdown, targetBlock, latest: reached }
    : undefined;
}

/**
 * Step 5b, send: `vault.flash(liquidator, amount, plan, …)` with the prefetched account. When its
 * sequence number went stale (something else signed for this account: txBadSeq, nothing was
 * included) it is sent once more with a fresh one — not a retry of the flash.
 */
export async function sendFlash(
  vault: VaultClient,
  liquidator: string,
  amount: bigint,
  planned: PlannedFlash,
  responseTimeMs: number,
  account: Account,
): Promise<FlashOutcome> {
  const { plan, auth } = planned;
  try {
    return await vault.flash(liquidator, amount, plan, responseTimeMs, { account, auth });
  } catch (err) {
    if (!(err instanceof TxRejectedError && err.txCode === "txBadSeq")) throw err;
    return await vault.flash(liquidator, amount, plan, responseTimeMs, { auth });
  }
}

/** The filled {@link Result} of a settled flash (pure). */
export function filledResult(
  out: FlashOutcome,
  f: {
    user: string;
    percent: number;
    amount: bigint;
    responseTimeMs: number;
    auctionBlock: number;
    target: Pick<AuctionValue, "block" | "ratio">;
    swaps: number;
  },
): Result {
  return {
    drew: f.amount,
    proceeds: f.amount + out.profit,
    profit: out.profit,
    responseTimeMs: f.responseTimeMs,
    txHash: out.txHash,
    outcome: {
      status: "filled",
      user: f.user,
      percent: f.percent,
      auctionBlock: f.auctionBlock,
      fillLedger: out.ledger,
      targetBlock: f.target.block,
      ratio: finite(f.target.ratio),
      swaps: f.swaps,
    },
  };
}

/**
 * Step 5c, classify a failed flash (nothing moved: it reverted as a whole, or was never signed or
 * sent): a skip for an unprofitable simulation or a refused authorization ({@link refusedFlash});
 * otherwise the auction is read again and a lost race is returned when it is gone or was replaced
 * ({@link raceLost}); anything else is thrown.
 */
export async function classifyFlashFailure(
  chain: ChainRpc,
  err: unknown,
  c: { user: string; auction: AuctionData; poolId: string; responseTimeMs: number },
): Promise<Result> {
  const refused = refusedFlash(err);
  if (refused) return skipped(refused, c.user);
  let still: AuctionData | undefined;
  let readOk = true;
  try {
    still = await readAuction(chain, c.poolId, c.user);
  } catch {
    readOk = false;
  }
  if (raceLost(readOk, still, c.auction)) {
    // Another keeper filled first: our flash reverted as a whole (or was never sent).
    const outcome: TaskOutcome = { status: "lost_race", user: c.user, error: describeError(err) };
    return noCapitalResult(outcome, { responseTimeMs: c.responseTimeMs });
  }
  throw err;
}

/**
 * The skip for a flash refused before sending (pure): its simulated profit was not positive, or
 * it asked the keeper to authorize something it did not plan (a hostile pool, router or token;
 * nothing was signed, and the refusal was logged with its reason where it happened).
 */
export function refusedFlash(err: unknown): SkipReason | undefined {
  if (err instanceof FlashUnprofitableError) {
    return { kind: "unprofitable", simulatedProfit: err.simulatedProfit };
  }
  if (err instanceof UnexpectedAuthError) {
    return {
      kind: "auth_refused",
      refusal: err.reason,
      invocation: err.invocation,
      path: err.path,
    };
  }
  return undefined;
}

/**
 * True when a failed flash lost the race (pure): the auction, read back successfully, is gone or
 * started at another block than the one we planned on.
 */
export function raceLost(
  readOk: boolean,
  still: Pick<AuctionData, "block"> | undefined,
  ours: Pick<AuctionData, "block">,
): boolean {
  return readOk && (!still || still.block !== ours.block);
}
