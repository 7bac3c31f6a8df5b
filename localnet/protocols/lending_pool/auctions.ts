/**
 * User-liquidation auctions (Blend v2 `auctions/auction.rs`, `auctions/user_liquidation_auction.rs`,
 * `pool/bad_debt.rs`): creation with Blend's validation and health band, block-based scaling
 * over 400 ledgers, fills that move bid liabilities and lot collateral to the filler, and
 * stale-auction deletion.
 *
 * Bad-debt (1) and interest (2) auctions need a Blend backstop contract, which the local chain
 * does not have; they fail with 1200 BadRequest (documented in the README).
 *
 * @module
 */
import { type Env, fail } from "../../../contracts/sdk.ts";
import { PoolError } from "./errors.ts";
import { emitBadDebt } from "./events.ts";
import { divCeil, divFloor, mulCeil, mulFloor, SCALAR_7 } from "./math.ts";
import { isHfOver, isHfUnder, Pool, positionData, User } from "./pool.ts";
import {
  type AuctionData,
  delAuction,
  emptyPositions,
  getAuction,
  getInstanceAddress,
  hasAuction,
  keys,
  type Positions,
  setAuction,
} from "./storage.ts";

/** Auction type: user liquidation. */
export const USER_LIQUIDATION = 0;

/** 1200 on a duplicate address in a bid or lot list. */
function requireUnique(list: string[]): void {
  if (new Set(list).size !== list.length) fail(PoolError.BadRequest);
}

/**
 * Validates and builds a user-liquidation auction for `user` (not stored).
 * Rules: user is not the pool/backstop (1211); no auction in progress (1212); 0 < percent ≤ 100
 * (1211); bid+lot ≤ max_positions (1208); user underwater on effective values (1211); bids are
 * liabilities (1221), lots are collateral (1222); lot sized with Blend's estimated incentive;
 * post-liquidation HF within [1.03, 1.15] (1214 / 1213), full liquidations checked at 95%.
 */
export function createUserLiquidation(
  env: Env,
  user: string,
  bid: string[],
  lot: string[],
  percent: number,
): AuctionData {
  if (
    user === env.currentContract || user === getInstanceAddress(env, keys.backstop(), "backstop")
  ) {
    fail(PoolError.InvalidLiquidation);
  }
  if (hasAuction(env, USER_LIQUIDATION, user)) fail(PoolError.AuctionInProgress);
  if (percent > 100 || percent === 0) fail(PoolError.InvalidLiquidation);

  const block = env.ledger.sequence + 1;
  const quote: AuctionData = { bid: new Map(), lot: new Map(), block };
  const full: AuctionData = { bid: new Map(), lot: new Map(), block };
  const pool = Pool.load(env);
  if (pool.config.max_positions < lot.length + bid.length) fail(PoolError.MaxPositionsExceeded);

  const userState = User.load(env, user);
  const list = pool.reserveList();
  const pd = positionData(pool, userState.positions);
  if (pd.liability_base <= pd.collateral_base) fail(PoolError.InvalidLiquidation);

  const auctioned: Positions = emptyPositions();
  for (const asset of bid) {
    const r = pool.loadReserve(asset, false);
    const amount = userState.positions.liabilities.get(r.config.index);
    if (amount === undefined) fail(PoolError.InvalidBid);
    auctioned.liabilities.set(r.config.index, amount);
  }
  if (auctioned.liabilities.size === 0) fail(PoolError.InvalidBid);
  for (const asset of lot) {
    const r = pool.loadReserve(asset, false);
    const amount = userState.positions.collateral.get(r.config.index);
    if (amount === undefined) fail(PoolError.InvalidLot);
    auctioned.collateral.set(r.config.index, amount);
  }
  if (auctioned.collateral.size === 0) fail(PoolError.InvalidLot);

  const inc = positionData(pool, auctioned);
  const isAllCollateral = inc.collateral_raw === pd.collateral_raw;
  const isAllPositions = isAllCollateral && inc.liability_raw === pd.liability_raw;
  const isFull = isAllPositions && percent > 95;
  const pctToCheck = BigInt(isFull ? 95 : percent);
  const pctScaled = (pctToCheck * pd.scalar) / 100n;

  const s = inc.scalar;
  const avgCf = divFloor(inc.collateral_base, inc.collateral_raw, s);
  const avgLf = divFloor(inc.liability_base, inc.liability_raw, s); // inverse of avg l_factor
  const estIncentive = divCeil(s - divCeil(avgCf, avgLf, s), 2n * s, s) + s;
  const estWithdrawn = mulFloor(mulFloor(inc.liability_raw, pctScaled, s), estIncentive, s);
  let estWithdrawnPct = divCeil(estWithdrawn, inc.collateral_raw, s);
  if (estWithdrawnPct > s) {
    estWithdrawnPct = s;
    if (!isAllCollateral) fail(PoolError.InvalidLiquidation);
  }

  // Iterate in reserve-index order, as the host's Map<u32, _> does.
  for (const idx of [...auctioned.collateral.keys()].sort((a, b) => a - b)) {
    const amount = auctioned.collateral.get(idx)!;
    quote.lot.set(list[idx], mulCeil(amount, estWithdrawnPct, pd.scalar));
    full.lot.set(list[idx], amount);
  }
  for (const idx of [...auctioned.liabilities.keys()].sort((a, b) => a - b)) {
    const amount = auctioned.liabilities.get(idx)!;
    quote.bid.set(list[idx], mulCeil(amount, pctScaled, pd.scalar));
    full.bid.set(list[idx], amount);
  }

  userState.rmPositions(pool, quote.lot, quote.bid);
  const after = positionData(pool, userState.positions);
  if (isFull) {
    if (estWithdrawn < pd.collateral_raw && isHfOver(after, 1_1500000n)) {
      fail(PoolError.InvalidLiqTooLarge);
    }
    return full;
  }
  if (isHfOver(after, 1_1500000n)) fail(PoolError.InvalidLiqTooLarge);
  if (isHfUnder(after, 1_0300000n)) fail(PoolError.InvalidLiqTooSmall);
  return quote;
}

/** Creates an auction (`new_auction`): validates, stores it (block = seq + 1) and returns it. */
export function createAuction(
  env: Env,
  auctionType: number,
  user: string,
  bid: string[],
  lot: string[],
  percent: number,
): AuctionData {
  if (auctionType > 2) fail(PoolError.BadRequest);
  requireUnique(bid);
  requireUnique(lot);
  if (auctionType !== USER_LIQUIDATION) {
    // Bad-debt and interest auctions price against a Blend backstop, absent on the local chain.
    fail(PoolError.BadRequest);
  }
  const data = createUserLiquidation(env, user, bid, lot, percent);
  setAuction(env, auctionType, user, data);
  return data;
}

/** (bid_modifier, lot_modifier) in 7 decimals for `blockDif` ledgers since the auction start. */
export function timingModifiers(blockDif: bigint): [bigint, bigint] {
  const perBlock = 50_000n; // 0.5% per ledger
  if (blockDif > 200n) {
    return blockDif < 400n ? [SCALAR_7 - (blockDif - 200n) * perBlock, SCALAR_7] : [0n, SCALAR_7];
  }
  return [SCALAR_7, blockDif * perBlock];
}

/**
 * Scales an auction to `currentBlock` and a fill percent (1..100): bids round up, lots round
 * down, zero entries are left out; returns [filled part, remainder or undefined when none].
 */
export function scaleAuction(
  auction: AuctionData,
  currentBlock: number,
  percent: bigint,
): [AuctionData, AuctionData | undefined] {
  if (percent > 100n || percent <= 0n) fail(PoolError.BadRequest);
  // The contract subtracts u32s with overflow checks: filling before `block` traps.
  if (currentBlock < auction.block) {
    throw new Error("arithmetic overflow: ledger before auction block");
  }
  const toFill: AuctionData = { bid: new Map(), lot: new Map(), block: auction.block };
  const rest: AuctionData = { bid: new Map(), lot: new Map(), block: auction.block };
  const [bidMod, lotMod] = timingModifiers(BigInt(currentBlock - auction.block));
  const pct = percent * 100_000n;
  for (const [asset, amount] of auction.bid) {
    const base = mulCeil(amount, pct, SCALAR_7);
    if (amount - base > 0n) rest.bid.set(asset, amount - base);
    const scaled = mulCeil(base, bidMod, SCALAR_7);
    if (scaled > 0n) toFill.bid.set(asset, scaled);
  }
  for (const [asset, amount] of auction.lot) {
    const base = mulFloor(amount, pct, SCALAR_7);
    if (amount - base > 0n) rest.lot.set(asset, amount - base);
    const scaled = mulFloor(base, lotMod, SCALAR_7);
    if (scaled > 0n) toFill.lot.set(asset, scaled);
  }
  const none = rest.bid.size === 0 && rest.lot.size === 0;
  return [toFill, none ? undefined : rest];
}

/**
 * Fills `percent` of the auction of `auctionType` for `user` from `filler` (positions moved in
 * memory; the caller stores the filler and the reserves). A missing auction traps, as in Blend.
 */
export function fillAuction(
  env: Env,
  pool: Pool,
  auctionType: number,
  user: string,
  filler: User,
  percent: bigint,
): AuctionData {
  if (auctionType > 2) fail(PoolError.BadRequest);
  if (user === filler.address) fail(PoolError.InvalidLiquidation);
  const auction = getAuction(env, auctionType, user);
  const [toFill, rest] = scaleAuction(auction, env.ledger.sequence, percent);
  if (auctionType !== USER_LIQUIDATION) fail(PoolError.BadRequest);
  const userState = User.load(env, user);
  userState.rmPositions(pool, toFill.lot, toFill.bid);
  filler.addPositions(pool, toFill.lot, toFill.bid);
  if (rest === undefined) checkAndHandleUserBadDebt(env, pool, userState);
  userState.store(env);
  if (rest) setAuction(env, auctionType, user, rest);
  else delAuction(env, auctionType, user);
  return toFill;
}

/**
 * A user left with liabilities and no collateral hands the debt to the backstop's positions
 * (`bad_debt` events). Returns true when it did.
 */
export function checkAndHandleUserBadDebt(env: Env, pool: Pool, userState: User): boolean {
  if (!userState.hasLiabilities() || userState.hasCollateral()) return false;
  const list = pool.reserveList();
  const backstop = User.load(env, getInstanceAddress(env, keys.backstop(), "backstop"));
  for (const [idx, balance] of [...userState.positions.liabilities].sort(([a], [b]) => a - b)) {
    const asset = list[idx];
    const r = pool.loadReserve(asset, true);
    backstop.addLiabilities(r, balance);
    userState.removeLiabilities(r, balance);
    emitBadDebt(env, userState.address, asset, balance);
  }
  backstop.store(env);
  return true;
}

/** `del_auction`: removes an auction older than 500 ledgers; otherwise (or none) 1200. */
export function deleteStaleAuction(env: Env, auctionType: number, user: string): void {
  if (!hasAuction(env, auctionType, user)) fail(PoolError.BadRequest);
  const a = getAuction(env, auctionType, user);
  if (a.block + 500 > env.ledger.sequence) fail(PoolError.BadRequest);
  delAuction(env, auctionType, user);
}

/** Request 9: the user removes its own liquidation auction (health checked by submit). */
export function deleteLiquidation(env: Env, user: string): void {
  if (!hasAuction(env, USER_LIQUIDATION, user)) fail(PoolError.BadRequest);
  delAuction(env, USER_LIQUIDATION, user);
}
