/**
 * User-liquidation auctions: reading them from the ledger, valuing them on Blend's 400-block
 * Dutch curve (the SDK's `Auction.scale`, a copy of the contract's `scale_auction`), and finding
 * the first block where lot value / bid cost clears MIN_PROFIT.
 *
 * @module
 */
import { Auction, AuctionData, AuctionType } from "@blend-capital/blend-sdk";
import { contractDataKey, getLedgerEntries } from "@vigil/soroban/ledger";
import type { ChainRpc } from "@vigil/soroban/rpc";
import { sv } from "@vigil/soroban/scval";
import type { PoolState } from "./pool_state.ts";

/** Blocks after which the bid is 0 (Blend's auction length). */
export const AUCTION_LENGTH = 400;

/** Ledger key of the user-liquidation auction of `user` (temporary storage). */
export function auctionKey(poolId: string, user: string, type = AuctionType.Liquidation) {
  return contractDataKey(
    poolId,
    sv.variant("Auction", sv.struct({ auct_type: sv.u32(type), user: sv.address(user) })),
    "temporary",
  );
}

/** Reads the user's liquidation auction; undefined when there is none. */
export async function readAuction(
  chain: ChainRpc,
  poolId: string,
  user: string,
): Promise<AuctionData | undefined> {
  const key = auctionKey(poolId, user).toXDR("base64");
  const { entries } = await getLedgerEntries(chain, [key]);
  const e = entries.get(key);
  return e ? AuctionData.fromLedgerEntryData(e.xdr) : undefined;
}

/** An auction valued at one block. */
export interface AuctionValue {
  block: number;
  /** Scaled lot (bTokens per asset) and bid (dTokens per asset) at `block`, 100 % fill. */
  lot: Map<string, bigint>;
  bid: Map<string, bigint>;
  /** Oracle value of the lot and of the bid (floats, oracle base units). */
  lotValue: number;
  bidCost: number;
  /** lotValue / bidCost (Infinity when the bid is free and the lot is not). */
  ratio: number;
}

/** Values `data` filled 100 % at `block` with the pool's rates and oracle prices. */
export function valueAt(
  state: PoolState,
  user: string,
  data: AuctionData,
  block: number,
): AuctionValue {
  const [scaled] = new Auction(user, AuctionType.Liquidation, data).scale(
    Math.max(block, data.block),
    100,
  );
  let lotValue = 0;
  let bidCost = 0;
  for (const [asset, b] of scaled.data.lot) {
    const r = state.pool.reserves.get(asset);
    const p = state.oracle.getPriceFloat(asset);
    if (!r || p === undefined) return unpriced(block, scaled.data);
    lotValue += r.toAssetFromBTokenFloat(b) * p;
  }
  for (const [asset, d] of scaled.data.bid) {
    const r = state.pool.reserves.get(asset);
    const p = state.oracle.getPriceFloat(asset);
    if (!r || p === undefined) return unpriced(block, scaled.data);
    bidCost += r.toAssetFromDTokenFloat(d) * p;
  }
  const ratio = bidCost > 0 ? lotValue / bidCost : lotValue > 0 ? Number.POSITIVE_INFINITY : 0;
  return { block, lot: scaled.data.lot, bid: scaled.data.bid, lotValue, bidCost, ratio };
}

function unpriced(
  block: number,
  d: { lot: Map<string, bigint>; bid: Map<string, bigint> },
): AuctionValue {
  return { block, lot: d.lot, bid: d.bid, lotValue: 0, bidCost: 0, ratio: Number.NaN };
}

/**
 * The first block ≥ `fromBlock` at which the ratio clears `minProfit` (≥), scanning the
 * 400-block curve; undefined when it never does (or a leg is unpriced).
 */
export function firstProfitableBlock(
  state: PoolState,
  user: string,
  data: AuctionData,
  minProfit: number,
  fromBlock: number,
): AuctionValue | undefined {
  const start = Math.max(fromBlock, data.block);
  if (start > data.block + AUCTION_LENGTH) {
    // Past the curve the bid is free and the lot whole: fill now if there is anything to take.
    const v = valueAt(state, user, data, start);
    return Number.isNaN(v.ratio) || v.ratio < minProfit ? undefined : v;
  }
  for (let b = start; b <= data.block + AUCTION_LENGTH; b++) {
    const v = valueAt(state, user, data, b);
    if (Number.isNaN(v.ratio)) return undefined;
    if (v.ratio >= minProfit) return v;
  }
  return undefined;
}

/** Token amount of each bid leg at `v.block` (dTokens → underlying, rounded up as Blend does). */
export function bidAmounts(state: PoolState, v: AuctionValue): Map<string, bigint> {
  const out = new Map<string, bigint>();
  for (const [asset, d] of v.bid) {
    const r = state.pool.reserves.get(asset);
    if (!r) throw new Error(`no reserve for bid asset ${asset}`);
    out.set(asset, r.toAssetFromDToken(d));
  }
  return out;
}

/** Token amount of each lot leg at `v.block` (bTokens → underlying, rounded down). */
export function lotAmounts(state: PoolState, v: AuctionValue): Map<string, bigint> {
  const out = new Map<string, bigint>();
  for (const [asset, b] of v.lot) {
    const r = state.pool.reserves.get(asset);
    if (!r) throw new Error(`no reserve for lot asset ${asset}`);
    out.set(asset, r.toAssetFromBToken(b));
  }
  return out;
}
