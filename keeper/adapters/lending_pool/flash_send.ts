/**
 * Step 5 of a liquidation, send: wait for the block before the target, re-valuing the auction at
 * every new ledger from a few ledgers before it (the target follows the prices; a flash goes only
 * when the ledger it lands in clears MIN_PROFIT), send the flash, and classify how it ended — filled, a lost race, a refusal before sending, or an
 * error to throw. Whatever happens the flash reverted as a whole or settled: nothing is ever
 * outstanding.
 *
 * @module
 */
import type { AuctionData } from "@blend-capital/blend-sdk";
import type { Account, Keypair } from "@stellar/stellar-sdk";
import {
  ContractCallError,
  describeError,
  TxRejectedError,
  UnexpectedAuthError,
} from "@vigil/soroban/errors";
import { LiquidatorError } from "@vigil/contracts/clients/liquidator";
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
import {
  MIN_PROFIT_REVERTED_TEXT,
  type SkipReason,
  type TaskOutcome,
  type WaitReason,
} from "../outcome.ts";
import { type AuctionValue, readAuction } from "./auction.ts";
import type { ExecuteDeps } from "./execute_deps.ts";
import type { PlannedFlash } from "./flash_plan.ts";
import { finite, type Revaluation, REVALUE_LEDGERS } from "./target_block.ts";

/** Where the wait for the landing ledger ended: send now, with the value at the landing ledger. */
export interface Landing {
  /** The source account read before the wait; undefined when the send leases a channel. */
  account?: Account;
  /** The head the decision was made at; the flash lands in `reached + 1` at the earliest. */
  reached: number;
  /** The auction valued at the landing ledger with the prices in force. */
  value: AuctionValue;
}

/**
 * Step 5a: reads the source account `keeper` (its sequence number, so the latency-critical flash
 * needs no read; undefined: the send leases a channel, whose account the pool keeps), then waits for the ledger before the target, and from {@link REVALUE_LEDGERS} before
 * it calls `revalueAt(head)` at every new ledger: it re-reads the prices and reserves in force and
 * says send (the landing ledger `head + 1` clears MIN_PROFIT), a new target (earlier or later:
 * the wait goes on), or wait (out of reach: a later cycle decides). A skip when the chain did not
 * get there in time or the keeper shuts down; nothing was lent.
 */
export async function awaitLanding(
  chain: ChainRpc,
  keeper: string | undefined,
  at: { targetBlock: number; next: number; spl: number },
  revalueAt: (head: number) => Promise<Revaluation>,
  deps: Pick<ExecuteDeps, "clock" | "pollIntervalSec" | "signal">,
): Promise<Landing | { skip: SkipReason } | { wait: WaitReason }> {
  const { next, spl } = at;
  let target = at.targetBlock;
  const deadlineFor = (t: number) =>
    Date.now() + Math.max(2 * deps.pollIntervalSec, (t - next + 2) * spl * 2) * 1000 + 10_000;
  // Generous deadline (the pace estimate may be off); what matters is below: never fill early.
  let deadline = deadlineFor(target);
  const account = keeper === undefined ? undefined : await chain.server.getAccount(keeper);
  let seen: number | undefined;
  for (;;) {
    // Quietly until a few ledgers before the target, then at every new ledger; the first look
    // takes the head as it is (the cycle's own reading may already be a ledger old).
    const want = Math.max(seen === undefined ? next - 1 : seen + 1, target - 1 - REVALUE_LEDGERS);
    const reached = await waitForLedger(chain, want, deadline, {
      clock: deps.clock,
      signal: deps.signal,
      pollMs: Math.max(20, Math.min(250, spl * 100)),
    });
    const shutdown = deps.signal?.aborted ?? false;
    if (shutdown || reached.sequence < want) {
      return {
        skip: {
          kind: "target_not_reached",
          shutdown,
          targetBlock: target,
          latest: reached.sequence,
        },
      };
    }
    seen = reached.sequence;
    const r = await revalueAt(seen);
    if ("send" in r) return { account, reached: seen, value: r.send };
    if ("wait" in r) return { wait: r.wait };
    if (r.target.block > target) deadline = deadlineFor(r.target.block);
    target = r.target.block;
  }
}

/** How {@link landAndSend} ended: sent and settled, an early outcome, or the send's error. */
export type LandAndSend =
  | { out: FlashOutcome; landing: Landing }
  | { skip: SkipReason }
  | { wait: WaitReason }
  | { error: unknown };

/**
 * Steps 5a and 5b together: wait for the landing ledger (`wait`: {@link awaitLanding}), then send
 * (`send`: plan and {@link sendFlash} for that landing). A flash the liquidator's MIN_PROFIT check
 * refuses in simulation (BelowMinProfit: nothing was sent) is "not yet": the wait resumes from
 * the next ledger, re-valuing at each, as long as the landing ledger stays within
 * `latestTarget`; any other error (or a refusal past the window) is returned for
 * {@link classifyFlashFailure}.
 */
export async function landAndSend(
  first: { targetBlock: number; next: number },
  latestTarget: number,
  wait: (
    at: { targetBlock: number; next: number },
  ) => Promise<Landing | { skip: SkipReason } | { wait: WaitReason }>,
  send: (landing: Landing) => Promise<FlashOutcome>,
  log: (level: "info", msg: string, fields: Record<string, unknown>) => void,
  user: string,
): Promise<LandAndSend> {
  let at = first;
  for (;;) {
    const landing = await wait(at);
    if (!("reached" in landing)) return landing;
    try {
      return { out: await send(landing), landing };
    } catch (error) {
      const again = landing.reached + 2;
      if (belowMinProfitStage(error) !== "simulation" || again > latestTarget) return { error };
      log("info", BELOW_MIN_PROFIT_NOT_YET, { user, landing: landing.reached + 1 });
      at = { targetBlock: again, next: again };
    }
  }
}

/**
 * Step 5b, send: `vault.flash(liquidator, amount, plan, …)` with the prefetched account (the
 * keeper's, or `channel`'s: then the channel is the source and the keeper signs only the
 * authorization). When its sequence number went stale (something else signed for this account:
 * txBadSeq, nothing was included) it is sent once more with a fresh one — not a retry of the
 * flash.
 */
export async function sendFlash(
  vault: VaultClient,
  liquidator: string,
  amount: bigint,
  planned: PlannedFlash,
  responseTimeMs: number,
  account: Account,
  channel?: Keypair,
): Promise<FlashOutcome> {
  const { plan, auth } = planned;
  try {
    return await vault.flash(liquidator, amount, plan, responseTimeMs, { account, auth, channel });
  } catch (err) {
    if (!(err instanceof TxRejectedError && err.txCode === "txBadSeq")) throw err;
    return await vault.flash(liquidator, amount, plan, responseTimeMs, { auth, channel });
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
    /** The auction's first profitable block, from that block's prices. */
    firstProfitable?: number;
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
      ...(f.firstProfitable === undefined
        ? {}
        : { ledgersAfterFirstProfitable: out.ledger - f.firstProfitable }),
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
  log?: ExecuteDeps["log"],
): Promise<Result> {
  const below = belowMinProfitResult(err, c.user);
  if (below) {
    const o = below.outcome;
    if (o.status === "skipped" && o.reason.kind === "min_profit_reverted") {
      log?.("info", MIN_PROFIT_REVERTED, { user: c.user, tx_hash: o.reason.txHash });
    }
    return below;
  }
  const refused = refusedFlash(err) ?? dexMoved(err);
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

/** The log sentence of a flash the liquidator refused in simulation (BelowMinProfit). */
export const BELOW_MIN_PROFIT_NOT_YET =
  "the liquidator's check puts the landing ledger's oracle lot/bid below MIN_PROFIT (simulated, nothing sent): not yet, re-valuing";

/** The log sentence of a flash that landed and reverted with BelowMinProfit. */
export const MIN_PROFIT_REVERTED = MIN_PROFIT_REVERTED_TEXT;

/**
 * Where the liquidator's MIN_PROFIT check (`BelowMinProfit`) refused a flash (pure): in
 * "simulation" (nothing sent) or in the "transaction" (it landed and reverted); undefined for
 * any other error.
 */
export function belowMinProfitStage(err: unknown): "simulation" | "transaction" | undefined {
  if (!(err instanceof ContractCallError)) return undefined;
  return err.contractCode === LiquidatorError.BelowMinProfit ? err.stage : undefined;
}

/**
 * The result of a flash refused by the liquidator's MIN_PROFIT check (pure), neither a failure
 * nor an alarm: refused in simulation it is "waiting" (not yet: the ratio at the landing ledger
 * is below MIN_PROFIT, a later ledger may clear it); landed and reverted it is the skip
 * `min_profit_reverted` (a price write earlier in the landing ledger moved the ratio: nothing
 * lent, the fee paid). Undefined for any other error.
 */
export function belowMinProfitResult(err: unknown, user: string): Result | undefined {
  const stage = belowMinProfitStage(err);
  if (stage === "simulation") {
    return noCapitalResult({ status: "waiting", reason: { kind: "below_min_profit_at_landing" } });
  }
  if (stage === "transaction") {
    const txHash = (err as ContractCallError).txHash ?? null;
    return {
      ...skipped({ kind: "min_profit_reverted", txHash }, user),
      ...(txHash ? { txHash } : {}),
    };
  }
  return undefined;
}

/** Soroswap's router error for a swap below its minimum out (`InsufficientOutputAmount`). */
export const ROUTER_MIN_OUT = 507;

/**
 * The skip for a flash whose swap got less than its minimum out (pure): the DEX pair moved
 * after the keeper's quote. Undefined for any other error.
 */
export function dexMoved(err: unknown): SkipReason | undefined {
  if (!(err instanceof ContractCallError) || err.contractCode !== ROUTER_MIN_OUT) return undefined;
  return { kind: "dex_moved", stage: err.stage, txHash: err.txHash ?? null };
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
