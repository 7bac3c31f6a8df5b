/**
 * Step 3 of a liquidation, size: which auctions USDC capital can fill, and the flash amount for
 * the bid at the target block and the vault's available capital.
 *
 * @module
 */
import type { AuctionData } from "@blend-capital/blend-sdk";
import { blockerText, type SkipReason } from "../outcome.ts";
import { type AuctionValue, bidAmounts } from "./auction.ts";
import { conversionBlocker } from "./auction_create.ts";
import type { ExecuteDeps } from "./execute_deps.ts";
import type { PoolState } from "./pool_state.ts";

/**
 * Step 3, size: the bid must be USDC ({@link unfillableBid}) and a non-USDC lot convertible
 * inside the flash (skipped with a log line otherwise); then the flash amount for the USDC bid
 * and the vault's available capital ({@link sizeFlash}; a short fill is logged).
 */
export async function sizeLiquidation(
  state: PoolState,
  auction: AuctionData,
  target: AuctionValue,
  user: string,
  deps: Pick<ExecuteDeps, "usdc" | "dex" | "routers" | "availableCapital" | "log">,
): Promise<
  { percent: number; amount: bigint; need: bigint; lotAssets: string[] } | { skip: SkipReason }
> {
  const bids = bidAmounts(state, target);
  const bidSkip = unfillableBid(bids, deps.usdc);
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
  const size = sizeFlash(need, await deps.availableCapital?.());
  if ("skip" in size) return size;
  if (size.short !== undefined) {
    deps.log("info", `vault capital short: filling ${size.percent}% of the auction`, {
      user,
      need: String(need),
      available: String(size.short),
    });
  }
  return { percent: size.percent, amount: size.amount, need, lotAssets };
}

/**
 * A skip when the auction bids anything but USDC (pure): an auction someone else created may
 * bid other assets, which USDC capital cannot fill.
 */
export function unfillableBid(
  bids: ReadonlyMap<string, bigint>,
  usdc: string,
): SkipReason | undefined {
  for (const asset of bids.keys()) {
    if (asset !== usdc) return { kind: "usdc_only", bidAsset: asset };
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
