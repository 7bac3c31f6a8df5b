/**
 * Step 2 of a liquidation, target block: the first block of the auction's curve that clears
 * MIN_PROFIT, and whether it is near enough to wait for in this cycle.
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
  const maxWait = Math.ceil(inp.pollIntervalSec / inp.secondsPerLedger) + 3;
  if (target.block - next > maxWait) {
    return {
      wait: {
        kind: "too_early",
        auctionBlock: auction.block,
        targetBlock: target.block,
        ledgersToGo: target.block - next,
        ratioNow: finite(now.ratio),
        ratioAtTarget: finite(target.ratio),
      },
    };
  }
  return { target, next };
}

/** A ratio rounded to 6 places for logs and outcomes; null when not finite. */
export function finite(x: number): number | null {
  return Number.isFinite(x) ? Math.round(x * 1e6) / 1e6 : null;
}
