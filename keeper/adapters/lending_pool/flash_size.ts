/**
 * Step 3 of a liquidation, size: which auctions USDC capital can fill, and the flash amount for
 * the bid at the target block and the vault's available capital. A non-USDC bid (issue 24) is
 * bought with the flash's USDC: its exact output is sized here ({@link buyAmountOut}), its USDC
 * cost once quoted (`flash_plan.ts`).
 *
 * @module
 */
import type { AuctionData } from "@blend-capital/blend-sdk";
import { slippageCeiling } from "../../dex/swap_client.ts";
import { blockerText, type ConversionBlocker, type SkipReason } from "../outcome.ts";
import { type AuctionValue, bidAmounts } from "./auction.ts";
import { conversionBlocker } from "./auction_create.ts";
import type { ExecuteDeps } from "./execute_deps.ts";
import { oracleRefValue } from "./flash_plan.ts";
import type { PoolState } from "./pool_state.ts";

/** A sized liquidation: what {@link sizeLiquidation} decided. */
export interface SizedLiquidation {
  /** Percent of the auction to fill. */
  percent: number;
  /**
   * The flash's USDC for the USDC bid (bid + buffer, or one unit when there is none); the buys'
   * `max_in` are added once quoted.
   */
  amount: bigint;
  /** The USDC bid at the target block, 100 % (0 from block 400 on, or when the bid is not USDC). */
  need: bigint;
  lotAssets: string[];
  /**
   * Per non-USDC bid asset: the bid at `percent` (what the pool takes) and the exact output to
   * buy (the bid plus the margin of {@link buyAmountOut}). Empty for a USDC bid.
   */
  buys: Map<string, { bid: bigint; amountOut: bigint }>;
}

/** USDC units of 1 USDC (the leftover floor of {@link buyAmountOut}). */
const ONE_USDC = 10_000_000n;

/**
 * The exact output to buy for a non-USDC bid of `bid` units whose oracle value is `bidValue`
 * USDC units (pure): the bid plus the larger of 0.5 % and about 1 USDC's worth.
 *
 * Why a margin: the bid is read at the target block, but the pool converts its d-tokens at the
 * d-rate of the ledger the flash lands in, which has accrued interest since (and a flash that
 * lands a few ledgers late before block 200 owes the same d-tokens at a higher rate); buying
 * exactly the bid would leave the Repay short. Blend pulls the whole Repay and refunds the excess
 * to the keeper, and the liquidator sells that leftover back to USDC — a sale that returns
 * nothing (a dust leftover) is refused by the router and would revert the whole flash, so the
 * margin is never under ~1 USDC's worth. Its cost is the two swaps' fees on the margin (≈ 0.6 %
 * of 0.5 %).
 */
export function buyAmountOut(bid: bigint, bidValue: bigint): bigint {
  const pct = bid / 200n;
  const floor = bidValue > 0n ? (bid * ONE_USDC + bidValue - 1n) / bidValue : 1n;
  return bid + (pct > floor ? pct : floor);
}

/**
 * Step 3, size: every non-USDC bid must be buyable inside the flash ({@link unfillableBid}) and a
 * non-USDC lot convertible (skipped with a log line otherwise); then the flash amount for the
 * USDC bid, the exact outputs of the buys, and the percent the vault's available capital allows
 * ({@link sizeFlash}, on the USDC bid plus the buys' oracle ceilings; a short fill is logged).
 */
export async function sizeLiquidation(
  state: PoolState,
  auction: AuctionData,
  target: AuctionValue,
  user: string,
  deps: Pick<
    ExecuteDeps,
    "usdc" | "dex" | "routers" | "availableCapital" | "log" | "maxSlippageBps"
  >,
): Promise<SizedLiquidation | { skip: SkipReason }> {
  const bids = bidAmounts(state, target);
  const bidSkip = unfillableBid(bids, deps.usdc, conversionBlocker(deps));
  if (bidSkip) return { skip: bidSkip };
  const lotAssets = [...auction.lot.keys()];
  const lotBlocked = lotAssets.some((a) => a !== deps.usdc) ? conversionBlocker(deps) : undefined;
  if (lotBlocked) {
    deps.log(
      "info",
      "auction lot holds non-USDC assets that cannot be swapped in a flash: skipped",
      {
        user,
        lot: lotAssets.join(","),
        reason: blockerText(lotBlocked),
      },
    );
    return { skip: { kind: "lot_not_convertible", blocker: lotBlocked } };
  }
  const need = bids.get(deps.usdc) ?? 0n;
  // Non-USDC bids to buy (a free bid, from block 400 on, needs none).
  const toBuy = [...bids].filter(([a, b]) => a !== deps.usdc && b > 0n);
  // The most the buys may cost: their oracle value plus the policy's slippage bound (the
  // liquidator's own ceiling), so the percent chosen below fits whatever the quotes say.
  const bps = deps.maxSlippageBps ?? deps.dex?.slippageBps ?? 0;
  const ceilings = toBuy.reduce(
    (s, [a, b]) =>
      s + slippageCeiling(oracleRefValue(state, a, buyAmountOut(b, 0n), deps.usdc), bps) + 1n,
    0n,
  );
  const size = sizeFlash(need + ceilings, await deps.availableCapital?.());
  if ("skip" in size) return size;
  if (size.short !== undefined) {
    deps.log("info", `vault capital short: filling ${size.percent}% of the auction`, {
      user,
      need: String(need + ceilings),
      available: String(size.short),
    });
  }
  const { percent } = size;
  const buys = new Map<string, { bid: bigint; amountOut: bigint }>();
  for (const [asset, b] of toBuy) {
    const bid = (b * BigInt(percent) + 99n) / 100n;
    buys.set(asset, {
      bid,
      amountOut: buyAmountOut(bid, oracleRefValue(state, asset, bid, deps.usdc)),
    });
  }
  // Without buys the amount is sizeFlash's own; with them, only the USDC bid's part (the buys'
  // max_in are added once quoted).
  const amount = toBuy.length === 0 ? size.amount : need === 0n ? 0n : usdcPart(need, percent);
  return { percent, amount, need, lotAssets, buys };
}

/** The USDC bid at `percent`, rounded up, plus the 0.1 % buffer of {@link sizeFlash}. */
export function usdcPart(need: bigint, percent: number): bigint {
  const amount = (need * BigInt(percent) + 99n) / 100n;
  return amount + amount / 1000n + 1n;
}

/**
 * A skip when the auction bids an asset other than USDC and no DEX venue usable inside the flash
 * can buy it (pure; `blocker` from `conversionBlocker`, undefined when a venue exists): an auction
 * someone else created may bid any asset.
 */
export function unfillableBid(
  bids: ReadonlyMap<string, bigint>,
  usdc: string,
  blocker?: ConversionBlocker,
): SkipReason | undefined {
  if (blocker === undefined) return undefined;
  for (const asset of bids.keys()) {
    if (asset !== usdc) return { kind: "debt_not_buyable", bidAsset: asset, blocker };
  }
  return undefined;
}

/**
 * Step 3, size (pure): the flash amount for a USDC bid of `need` — the bid plus a 0.1 % buffer
 * for interest accrued until the fill (paid back with the rest). When `available` (the vault's
 * idle capital and per-flash cap; undefined = unknown) is short, the largest percent that fits
 * (`short` is then the available amount); a skip when not even 1 % fits.
 */
export function sizeFlash(
  need: bigint,
  available: bigint | undefined,
): { percent: number; amount: bigint; short?: bigint } | { skip: SkipReason } {
  const full = need + need / 1000n + 1n;
  if (available === undefined || full <= available) return { percent: 100, amount: full };
  const percent = Number((available * 100n) / full);
  if (percent < 1) return { skip: { kind: "insufficient_capital", need: full, available } };
  let amount = (need * BigInt(percent) + 99n) / 100n;
  amount += amount / 1000n + 1n;
  return { percent, amount, short: available };
}
