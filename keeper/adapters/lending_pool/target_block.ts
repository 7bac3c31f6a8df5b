/**
 * Step 2 of a liquidation, target block: the first block of the auction's curve that clears
 * MIN_PROFIT, and whether it is near enough to wait for in this cycle; then, while waiting for it,
 * the re-valuation at every new ledger (issue 26): prices move while a keeper waits, so the target
 * follows them both ways, and a flash goes only when the ledger it lands in clears MIN_PROFIT.
 *
 * @module
 */
import type { AuctionData } from "@blend-capital/blend-sdk";
import type { WaitReason } from "../outcome.ts";
import { type AuctionValue, firstProfitableBlock, valueAt } from "./auction.ts";
import type { PoolState } from "./pool_state.ts";

/** What {@link targetBlock} needs besides the auction. */
export interface TargetInputs {
  /** MIN_PROFIT: the lot value / bid cost ratio a fill must clear. */
  minProfit: number;
  /** The next ledger (the earliest a transaction sent now can land in). */
  next: number;
  pollIntervalSec: number;
  /** The chain's pace estimate. */
  secondsPerLedger: number;
}

/**
 * The ledgers ahead a liquidation waits in place for its first profitable block: one poll
 * interval, plus a few ledgers for the trustline transactions. Further away, it is `too_early`.
 */
export function waitWindowLedgers(pollIntervalSec: number, secondsPerLedger: number): number {
  return Math.ceil(pollIntervalSec / secondsPerLedger) + 3;
}

/**
 * The wait reason of an auction whose first profitable block `target` is too far from `from` (the
 * next ledger), with its ratio at `from` (`ratioNow`).
 */
export function tooEarly(
  auctionBlock: number,
  target: Pick<AuctionValue, "block" | "ratio">,
  from: number,
  ratioNow: number,
): Extract<WaitReason, { kind: "too_early" }> {
  return {
    kind: "too_early",
    auctionBlock,
    targetBlock: target.block,
    ledgersToGo: target.block - from,
    ratioNow: finite(ratioNow),
    ratioAtTarget: finite(target.ratio),
  };
}

/**
 * When a waiting liquidation is worth executing again (ms), for the cycle to re-queue it while its
 * other tasks still run (`keeper/cycle.ts`): a `too_early` one once its block enters the wait
 * window, a refusal at the landing ledger after one ledger; undefined for the other reasons
 * (never profitable, a backup's turn: the next cycle is soon enough).
 */
export function retryAfterMs(
  reason: WaitReason,
  windowLedgers: number,
  spl: number,
): number | undefined {
  switch (reason.kind) {
    case "too_early":
      return Math.max(1, reason.ledgersToGo - windowLedgers) * spl * 1000;
    case "below_min_profit_at_landing":
      return spl * 1000;
    default:
      return undefined;
  }
}

/**
 * Step 2, target block (pure): the first block whose lot value / bid cost clears MIN_PROFIT, or a
 * wait reason when there is none or it is more than one poll interval (plus a few ledgers for the
 * trustline transactions) away — so the next cycle never arrives too late to send the flash.
 */
export function targetBlock(
  state: PoolState,
  user: string,
  auction: AuctionData,
  inp: TargetInputs,
): { target: AuctionValue; next: number } | { wait: WaitReason } {
  const { next } = inp;
  const target = firstProfitableBlock(state, user, auction, inp.minProfit, next);
  const now = valueAt(state, user, auction, next);
  if (!target) return { wait: { kind: "never_profitable", ratioNow: finite(now.ratio) } };
  if (target.block - next > waitWindowLedgers(inp.pollIntervalSec, inp.secondsPerLedger)) {
    return { wait: tooEarly(auction.block, target, next, now.ratio) };
  }
  return { target, next };
}

/**
 * How many ledgers before the planned block the keeper starts re-valuing the auction at every new
 * ledger (one getLedgerEntries for the reserves and one `lastprice` simulation per reserve each
 * ledger, only while a fill is imminent).
 */
export const REVALUE_LEDGERS = 4;

/** What a re-valuation at one ledger decided. */
export type Revaluation =
  /** The landing ledger clears MIN_PROFIT at the prices in force: send now. */
  | { send: AuctionValue }
  /** Not yet: the first profitable block at these prices (earlier or later than planned). */
  | { target: AuctionValue }
  /** It moved out of reach (later than `latestTarget`) or never clears: a later cycle decides. */
  | { wait: WaitReason };

/**
 * Re-values the auction with the prices and reserves in force (pure; `state` read after the head
 * closed): send when the LANDING ledger (the next one) clears MIN_PROFIT, else the new first
 * profitable block — which follows the prices both ways — or a wait when it is past
 * `latestTarget` or never comes.
 */
export function revalue(
  state: PoolState,
  user: string,
  auction: AuctionData,
  inp: { minProfit: number; landing: number; latestTarget: number },
): Revaluation {
  const at = valueAt(state, user, auction, inp.landing);
  if (at.ratio >= inp.minProfit) return { send: at };
  const target = firstProfitableBlock(state, user, auction, inp.minProfit, inp.landing + 1);
  if (!target) return { wait: { kind: "never_profitable", ratioNow: finite(at.ratio) } };
  if (target.block > inp.latestTarget) {
    return { wait: tooEarly(auction.block, target, inp.landing, at.ratio) };
  }
  return { target };
}

/** The pool as read for a transaction landing in `landing` (prices and reserves in force). */
export interface Reading {
  landing: number;
  state: PoolState;
}

/**
 * The auction's first profitable block as the keeper saw it (pure): each block valued with the
 * prices of the reading for that block — blocks before the first reading with the first
 * reading's prices (the keeper did not watch them), blocks between readings with the earlier
 * one's. Undefined when no reading shows a profitable block up to the last one.
 */
export function firstProfitableSeen(
  readings: readonly Reading[],
  user: string,
  auction: AuctionData,
  minProfit: number,
): number | undefined {
  const sorted = [...readings].sort((a, b) => a.landing - b.landing);
  let from = auction.block;
  for (const [i, r] of sorted.entries()) {
    const until = sorted[i + 1]?.landing ?? r.landing + 1;
    const v = firstProfitableBlock(r.state, user, auction, minProfit, from);
    if (v && v.block < until) return v.block;
    from = Math.max(from, until);
  }
  return undefined;
}

/** A ratio rounded to 6 places for logs and outcomes; null when not finite. */
export function finite(x: number): number | null {
  return Number.isFinite(x) ? Math.round(x * 1e6) / 1e6 : null;
}
