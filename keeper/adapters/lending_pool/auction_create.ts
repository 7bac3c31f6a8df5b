/**
 * Step 1 of a liquidation, ensure-auction: the user's open liquidation auction, or one created
 * now at 50 % — or, when the pool rejects 50 % for its health band (`InvalidLiqTooLarge` /
 * `InvalidLiqTooSmall`), the nearest accepted percent found by simulation (moved
 * {@link BAND_MARGIN} points inside the band when accepted). No auction is created
 * that could not be filled from USDC capital ({@link creationBlocker}): its bid is USDC debt and,
 * when a DEX venue usable inside the flash can buy them, the other liabilities ({@link bidAssets}).
 * A pool that says the user is not liquidatable now (`InvalidLiquidation`: another keeper's fill
 * or a price move since our read) makes a skip, not an error: nothing was sent.
 *
 * @module
 */
import {
  AuctionData,
  AuctionType,
  ContractErrorType,
  type Positions,
} from "@blend-capital/blend-sdk";
import type { Keypair, xdr } from "@stellar/stellar-sdk";
import { ROOT_ONLY } from "@vigil/soroban/auth_guard";
import { ContractCallError } from "@vigil/soroban/errors";
import type { ChainRpc } from "@vigil/soroban/rpc";
import { sv } from "@vigil/soroban/scval";
import { invokeContract, simulateRead } from "@vigil/soroban/tx";
import type { ConversionBlocker, SkipReason } from "../outcome.ts";
import { readAuction } from "./auction.ts";
import type { ExecuteDeps, LiquidationTask } from "./execute_deps.ts";
import type { PoolState } from "./pool_state.ts";

/**
 * The Blend pool errors the keeper's liquidation path knows, by name, with blend-sdk's numbers
 * (a test checks them against the real pool's spec).
 */
export const PoolErrors = {
  InvalidLiquidation: ContractErrorType.InvalidLiquidation,
  AuctionInProgress: ContractErrorType.AuctionInProgress,
  InvalidLiqTooLarge: ContractErrorType.InvalidLiqTooLarge,
  InvalidLiqTooSmall: ContractErrorType.InvalidLiqTooSmall,
  InvalidDTokenBurnAmount: ContractErrorType.InvalidDTokenBurnAmount,
} as const;

/** Percent of a new user-liquidation auction. */
export const DEFAULT_AUCTION_PERCENT = 50;

/**
 * Step 1, ensure-auction: the user's open auction, or one created now (50 %, or the nearest
 * accepted percent). A skip when none may be created ({@link creationBlocker}) or it vanished in
 * a creation race. Reads the auction, then (only when creating) simulates and sends `new_auction`.
 */
export async function ensureAuction(
  chain: ChainRpc,
  keypair: Keypair,
  state: PoolState,
  task: LiquidationTask,
  deps: ExecuteDeps,
): Promise<{ auction: AuctionData } | { skip: SkipReason }> {
  const existing = await readAuction(chain, deps.poolId, task.user);
  if (existing) return { auction: existing };
  const blocked = creationBlocker(state, task.positions, deps);
  if (blocked) return { skip: blocked };
  let auction: AuctionData | undefined;
  try {
    auction = await createAuction(chain, keypair, state, task, deps);
  } catch (err) {
    // Our view of the position is a read old (another keeper's fill, a price move): nothing was
    // sent, and the next cycle reads it again. A skip, not an execute error.
    if (isNotLiquidatable(err)) return { skip: { kind: "not_liquidatable" } };
    throw err;
  }
  return auction ? { auction } : { skip: { kind: "auction_vanished" } };
}

/** True for the pool's `InvalidLiquidation` (#1211): the user is not liquidatable now. */
export function isNotLiquidatable(err: unknown): boolean {
  return err instanceof ContractCallError &&
    err.contractCode === ContractErrorType.InvalidLiquidation;
}

/**
 * Why no auction may be created for a position (pure): no debt; no debt the vault's USDC can
 * repay — USDC, or (issue 24) any asset a DEX venue usable inside the flash can buy with USDC — so
 * the position is left alone rather than auctioned at a fee and never filled; or a non-USDC lot
 * that could not be converted inside the flash. Undefined when one may be created.
 */
export function creationBlocker(
  state: Pick<PoolState, "reserveList">,
  positions: Pick<Positions, "liabilities" | "collateral">,
  deps: Pick<ExecuteDeps, "usdc" | "dex" | "routers">,
): SkipReason | undefined {
  if (positions.liabilities.size === 0) return { kind: "no_auction_no_debt" };
  if (bidAssets(state, positions, deps).length === 0) {
    return { kind: "debt_not_buyable", blocker: conversionBlocker(deps) };
  }
  const nonUsdcLot = [...positions.collateral.keys()].some((i) =>
    state.reserveList[i] !== deps.usdc
  );
  const blocker = nonUsdcLot ? conversionBlocker(deps) : undefined;
  return blocker ? { kind: "lot_not_convertible", blocker } : undefined;
}

/**
 * The liabilities a new auction bids (pure): USDC, and every other liability when a DEX venue
 * usable inside the flash exists to buy it with USDC (issue 24; which route, and whether it pays,
 * is decided from quotes when the auction is filled). Without one, only USDC: other debt stays
 * with the borrower for a keeper that holds those assets.
 */
export function bidAssets(
  state: Pick<PoolState, "reserveList">,
  positions: Pick<Positions, "liabilities">,
  deps: Pick<ExecuteDeps, "usdc" | "dex" | "routers">,
): string[] {
  const buyable = conversionBlocker(deps) === undefined;
  return [...positions.liabilities.keys()]
    .map((i) => state.reserveList[i])
    .filter((a) => a === deps.usdc || buyable);
}

/**
 * Why a non-USDC lot could not be converted to USDC inside a flash (no DEX client, or no usable
 * venue among the flash policy's routers), or undefined when a usable venue exists.
 */
export function conversionBlocker(
  deps: Pick<ExecuteDeps, "dex" | "routers">,
): ConversionBlocker | undefined {
  if (!deps.dex) return "no_dex";
  return deps.dex.flashVenues(deps.routers).length === 0 ? "no_flash_venue" : undefined;
}

/** Creates the auction (50 %, or a percent inside the accepted band); undefined if it vanished. */
async function createAuction(
  chain: ChainRpc,
  keypair: Keypair,
  state: PoolState,
  task: LiquidationTask,
  deps: ExecuteDeps,
): Promise<AuctionData | undefined> {
  // Blend lets the creator choose the bid assets: those the flash can repay.
  const bid = bidAssets(state, task.positions, deps);
  const lot = [...task.positions.collateral.keys()].map((i) => state.reserveList[i]);
  if (bid.length === 0 || lot.length === 0) {
    throw new Error("position has no debt or no collateral");
  }
  const args = (p: number) => [
    sv.u32(AuctionType.Liquidation),
    sv.address(task.user),
    sv.addresses(bid),
    sv.addresses(lot),
    sv.u32(p),
  ];
  for (let attempt = 1;; attempt++) {
    const created = await probeAndCreate(chain, keypair, task, deps, args);
    if (created !== "band_moved") return created;
    // The pool's band is narrow (a few points) and moves with every price and ledger of interest:
    // the percent found by simulation fell out of it before the transaction applied. Once more
    // from the new prices; a second miss goes to the cycle as the error it is.
    if (attempt >= CREATE_ATTEMPTS) {
      throw new Error(
        "the pool's accepted liquidation band moved before new_auction applied, twice",
      );
    }
    deps.log("info", "the pool's accepted band moved before the auction applied; choosing again", {
      user: task.user,
    });
  }
}

/** Times {@link createAuction} chooses a percent and sends `new_auction`. */
const CREATE_ATTEMPTS = 2;

/**
 * Chooses the percent by simulation and sends `new_auction`: the auction, undefined when it
 * vanished, or "band_moved" when sending it failed with the band's own errors (in the send's
 * simulation or at apply).
 */
async function probeAndCreate(
  chain: ChainRpc,
  keypair: Keypair,
  task: LiquidationTask,
  deps: ExecuteDeps,
  args: (p: number) => xdr.ScVal[],
): Promise<AuctionData | undefined | "band_moved"> {
  const percent = await choosePercent(async (p) => {
    try {
      await simulateRead(chain, deps.poolId, "new_auction", args(p));
      return "ok";
    } catch (err) {
      const code = err instanceof ContractCallError ? err.contractCode : undefined;
      if (code === ContractErrorType.InvalidLiqTooLarge) return "large";
      if (code === ContractErrorType.InvalidLiqTooSmall) return "small";
      if (code === ContractErrorType.AuctionInProgress) return "exists";
      throw err;
    }
  });
  if (percent === "exists") return await readAuction(chain, deps.poolId, task.user);
  if (percent !== DEFAULT_AUCTION_PERCENT) {
    deps.log(
      "info",
      `pool rejected a ${DEFAULT_AUCTION_PERCENT}% auction; using ${percent}%, inside its accepted band`,
      {
        user: task.user,
        percent,
      },
    );
  }
  try {
    // Creating an auction needs no nested authorization from the keeper.
    const r = await invokeContract(
      chain,
      keypair,
      deps.poolId,
      "new_auction",
      args(percent),
      { ...deps.invoke, auth: ROOT_ONLY },
    );
    deps.log("info", `liquidation auction created for ${task.user} at ${percent}%`, {
      user: task.user,
      percent,
      tx_hash: r.hash,
      ledger: r.ledger,
    });
    if (r.returnValue) return AuctionData.fromScVal(r.returnValue.toXDR("base64"));
    return await readAuction(chain, deps.poolId, task.user);
  } catch (err) {
    // Another keeper created it between our simulation and our transaction.
    if (
      err instanceof ContractCallError && err.contractCode === ContractErrorType.AuctionInProgress
    ) {
      return await readAuction(chain, deps.poolId, task.user);
    }
    // The band's errors from the send's own simulation or from the transaction: the prices or
    // a ledger's interest moved it after the probes.
    if (
      err instanceof ContractCallError &&
      (err.contractCode === ContractErrorType.InvalidLiqTooLarge ||
        err.contractCode === ContractErrorType.InvalidLiqTooSmall)
    ) {
      return "band_moved";
    }
    throw err;
  }
}

/** Outcome of probing one percent. */
export type Probe = "ok" | "large" | "small" | "exists";

/**
 * The accepted percent nearest to 50: 50 itself, else the smallest accepted above it (when 50 is
 * too small) or the largest accepted below it (when 50 is too large), by binary search over the
 * pool's monotone health band, then {@link BAND_MARGIN} points inward when still accepted. "exists" when an auction already exists. Throws when no percent
 * is accepted.
 */
export async function choosePercent(
  probe: (p: number) => Promise<Probe>,
): Promise<number | "exists"> {
  const first = await probe(DEFAULT_AUCTION_PERCENT);
  if (first === "ok" || first === "exists") {
    return first === "ok" ? DEFAULT_AUCTION_PERCENT : "exists";
  }
  if (first === "small") {
    // Smallest p in (50, 100] that is not "too small".
    let lo = DEFAULT_AUCTION_PERCENT, hi = 100;
    const top = await probe(hi);
    if (top === "exists") return "exists";
    if (top === "small") {
      throw new Error("no accepted liquidation percent (even 100% is too small)");
    }
    let best = top === "ok" ? hi : undefined;
    while (hi - lo > 1) {
      const mid = (lo + hi) >> 1;
      const r = await probe(mid);
      if (r === "exists") return "exists";
      if (r === "small") lo = mid;
      else {
        hi = mid;
        if (r === "ok") best = mid;
      }
    }
    if (best === undefined) throw new Error("no accepted liquidation percent above 50%");
    return await inward(probe, best, +BAND_MARGIN);
  }
  // Too large: largest p in [1, 50) that is not "too large".
  let lo = 1, hi = DEFAULT_AUCTION_PERCENT;
  const bottom = await probe(lo);
  if (bottom === "exists") return "exists";
  if (bottom === "large") throw new Error("no accepted liquidation percent (even 1% is too large)");
  let best = bottom === "ok" ? lo : undefined;
  while (hi - lo > 1) {
    const mid = (lo + hi) >> 1;
    const r = await probe(mid);
    if (r === "exists") return "exists";
    if (r === "large") hi = mid;
    else {
      lo = mid;
      if (r === "ok") best = mid;
    }
  }
  if (best === undefined) throw new Error("no accepted liquidation percent below 50%");
  return await inward(probe, best, -BAND_MARGIN);
}

/**
 * Percentage points a percent at the edge of the pool's band is moved inward: the edge found by
 * simulation is exactly where the post-liquidation health factor meets Blend's bound, and a price
 * write or a ledger's interest before the transaction applies tips it out (`InvalidLiqTooSmall` /
 * `InvalidLiqTooLarge` at apply, seen in the race bench).
 */
export const BAND_MARGIN = 2;

/** `edge + step` when the pool accepts it too (the band may be narrower), else `edge`. */
async function inward(
  probe: (p: number) => Promise<Probe>,
  edge: number,
  step: number,
): Promise<number | "exists"> {
  const p = edge + step;
  if (p < 1 || p > 100) return edge;
  const r = await probe(p);
  return r === "exists" ? "exists" : r === "ok" ? p : edge;
}
