/**
 * Pool events with Blend v2.0.0's exact topic and data shapes (pool/src/events.rs), so the
 * SDK's `poolEventV2FromEventResponse` parses them and keepers discover borrowers from them.
 *
 * @module
 */
import { xdr } from "@stellar/stellar-sdk";
import type { Env } from "../../../contracts/sdk.ts";
import { addr, i128, sym, u32, vec } from "./codec.ts";
import { type AuctionData, encodeAuction } from "./storage.ts";

/** supply / withdraw / supply_collateral / withdraw_collateral / borrow / repay. */
export function emitPositionEvent(
  env: Env,
  name: string,
  asset: string,
  from: string,
  tokens: bigint,
  shares: bigint,
): void {
  env.emit([sym(name), addr(asset), addr(from)], vec([i128(tokens), i128(shares)]));
}

/** new_auction: topics [type, user], data [percent u32, AuctionData]. */
export function emitNewAuction(
  env: Env,
  auctType: number,
  user: string,
  percent: number,
  data: AuctionData,
): void {
  env.emit(
    [sym("new_auction"), u32(auctType), addr(user)],
    vec([u32(percent), encodeAuction(data)]),
  );
}

/** fill_auction: topics [type, user], data [filler, fill_percent i128, filled AuctionData]. */
export function emitFillAuction(
  env: Env,
  auctType: number,
  user: string,
  filler: string,
  percent: bigint,
  filled: AuctionData,
): void {
  env.emit(
    [sym("fill_auction"), u32(auctType), addr(user)],
    vec([addr(filler), i128(percent), encodeAuction(filled)]),
  );
}

/** delete_auction: topics [type, user], data (). */
export function emitDeleteAuction(env: Env, auctType: number, user: string): void {
  env.emit([sym("delete_auction"), u32(auctType), addr(user)], xdr.ScVal.scvVoid());
}

/** bad_debt: topics [user, asset], data dTokens. */
export function emitBadDebt(env: Env, user: string, asset: string, dTokens: bigint): void {
  env.emit([sym("bad_debt"), addr(user), addr(asset)], i128(dTokens));
}
