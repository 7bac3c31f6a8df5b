/**
 * Bad debt on the market's Blend v2 pools, for tests of the keeper's `bad_debt` hygiene.
 *
 * - {@link liquidateAll}: the real pool's own path. A user far under water, a 100 % liquidation
 *   auction of everything it has, filled late — after block 200 of the auction the lot (all the
 *   collateral) is whole but the bid (the liabilities the filler takes over) scales down toward
 *   zero. Blend v2 then moves the rest of the user's debt to the backstop inside the fill (a
 *   `bad_debt` event), so the user is left with nothing and no `bad_debt(user)` call is needed.
 * - {@link createBadDebt}: the position `pool.bad_debt(user)` is for — liabilities and no
 *   collateral — which v2's auctions never leave behind; written into the node's ledger.
 *
 * A filler is a fresh test account that brings USDC collateral of its own, so it stays healthy
 * with whatever it takes over.
 *
 * @module
 */
import { Address, Asset, Keypair, xdr } from "@stellar/stellar-sdk";
import { RequestType } from "@blend-capital/blend-sdk";
import { seedTrustline } from "@vigil/localnet/dev_setup";
import type { Localnet } from "@vigil/localnet/node";
import { submitRequests } from "@vigil/localnet/protocols/blend/deploy";
import { stellarAsset } from "@vigil/localnet/protocols/oracle/contract/spec";
import type { Market } from "@vigil/localnet/scenarios/market";

/** Blend's user-liquidation auction type (`get_auction`, `new_auction`). */
const USER_LIQUIDATION = 0;
/** Blocks into an auction where the bid starts to scale down (Blend v2's Dutch auction). */
const BID_SCALES_AFTER = 200;
/** USDC collateral the filler brings (10M: far more than any test position takes over). */
const FILLER_COLLATERAL = 10_000_000n * 10_000_000n;

/** Options of {@link liquidateAll}. */
export interface BadDebtOptions {
  /** The pool (default the market's `lending_pool`). */
  pool?: string;
  /**
   * Moves an oracle price first, as `localnet_shock` does (`bps` < 0 is down), acting as the
   * market's admin. Without it the user must already be far enough under water for a 100 %
   * auction.
   */
  shock?: { asset: string; bps: number };
  /**
   * Blocks after the auction's start at which it is filled (default 300: the bid is then half
   * the liabilities; at 400 and later it is nothing). More than 200.
   */
  fillAfter?: number;
}

/** A user's positions as `get_positions` returns them (maps of reserve index → b/d-tokens). */
export interface Positions {
  collateral: Map<number, bigint>;
  liabilities: Map<number, bigint>;
  supply: Map<number, bigint>;
}

/** Reads `user`'s positions on `pool` (the pool's own view). */
export async function positionsOf(
  node: Pick<Localnet, "view">,
  pool: string,
  user: string,
): Promise<Positions> {
  // Maps decode as [key, value] pairs.
  const p = await node.view<Record<string, [number, bigint][]>>(pool, "get_positions", [user]);
  const map = (pairs: [number, bigint][] = []) =>
    new Map(pairs.map(([k, v]) => [Number(k), BigInt(v)]));
  return {
    collateral: map(p.collateral),
    liabilities: map(p.liabilities),
    supply: map(p.supply),
  };
}

/** What {@link liquidateAll} did. */
export interface LateFill {
  user: string;
  pool: string;
  /** The auction's start block and the block it was filled at. */
  auctionBlock: number;
  fillBlock: number;
  /** The test account that filled the auction. */
  filler: string;
  /**
   * Liabilities (d-tokens, by asset contract id) the pool moved to its backstop in the fill: the
   * part of the user's debt the scaled-down bid left behind.
   */
  toBackstop: Record<string, bigint>;
}

/**
 * The real pool's path to bad debt: (optionally shocks a price,) opens a 100 % liquidation
 * auction of all `user`'s liabilities against all its collateral, closes ledgers until
 * `fillAfter` blocks into it, and fills it 100 % from a fresh account. Blend v2 handles the
 * outcome itself, in the fill: the user has no collateral left, so the pool moves the rest of
 * its debt to the backstop (a `bad_debt` event in the fill's transaction) and the user ends with
 * no positions at all. Throws when the pool refuses the auction (not far enough under water) or
 * the user is left with anything.
 */
export async function liquidateAll(
  node: Localnet,
  market: Market,
  user: string,
  opts: BadDebtOptions = {},
): Promise<LateFill> {
  const pool = opts.pool ?? market.contracts.lending_pool;
  const fillAfter = opts.fillAfter ?? 300;
  if (!Number.isInteger(fillAfter) || fillAfter <= BID_SCALES_AFTER) {
    throw new RangeError(`fillAfter must be an integer > ${BID_SCALES_AFTER}, got ${fillAfter}`);
  }
  if (opts.shock) await shockPrice(node, market, opts.shock.asset, opts.shock.bps);

  const reserves = await node.view<string[]>(pool, "get_reserve_list", []);
  const before = await positionsOf(node, pool, user);
  const bid = [...before.liabilities.keys()].map((i) => reserves[i]);
  const lot = [...before.collateral.keys()].map((i) => reserves[i]);
  if (bid.length === 0 || lot.length === 0) {
    throw new Error(`liquidateAll: ${user} needs both liabilities and collateral on ${pool}`);
  }
  try {
    await node.invoke(pool, "new_auction", {
      auction_type: USER_LIQUIDATION,
      user,
      bid,
      lot,
      percent: 100,
    });
  } catch (e) {
    throw new Error(
      `liquidateAll: the pool refused a 100 % auction of ${user} (not far enough under ` +
        `water? shock harder): ${e instanceof Error ? e.message : e}`,
    );
  }
  const auction = await node.view<{ block: number }>(pool, "get_auction", [
    USER_LIQUIDATION,
    user,
  ]);
  const auctionBlock = Number(auction.block);
  // The fill runs in the ledger after the latest closed one.
  const toClose = auctionBlock + fillAfter - (node.chain.latest.sequence + 1);
  if (toClose > 0) await node.closeLedgers(toClose);

  // Every pool of the market shares its backstop.
  const backstop = market.contracts.backstop;
  const debtBefore = (await positionsOf(node, pool, backstop)).liabilities;
  const filler = Keypair.random().publicKey();
  await node.fund(filler, 1000n);
  seedTrustline(node, filler, new Asset("USDC", market.usdcIssuer), FILLER_COLLATERAL);
  const fillBlock = node.chain.latest.sequence + 1;
  await submitRequests(node, pool, filler, [
    [RequestType.SupplyCollateral, market.contracts.usdc, FILLER_COLLATERAL],
    [RequestType.FillUserLiquidationAuction, user, 100n],
  ]);
  await node.closeLedgers(1);

  const after = await positionsOf(node, pool, user);
  if (after.collateral.size + after.liabilities.size !== 0) {
    throw new Error(
      `liquidateAll: ${user} was left with ${after.collateral.size} collateral and ` +
        `${after.liabilities.size} liability positions`,
    );
  }
  const toBackstop: Record<string, bigint> = {};
  for (const [i, d] of (await positionsOf(node, pool, backstop)).liabilities) {
    const moved = d - (debtBefore.get(i) ?? 0n);
    if (moved !== 0n) toBackstop[reserves[i]] = moved;
  }
  return { user, pool, auctionBlock, fillBlock, filler, toBackstop };
}

/** What {@link createBadDebt} left on the pool. */
export interface BadDebt {
  user: string;
  pool: string;
  /** The test account that now holds the user's collateral. */
  taker: string;
  /** The user's liabilities, unchanged, by asset contract id (d-tokens). */
  liabilities: Record<string, bigint>;
}

/**
 * Leaves `user` with its liabilities and no collateral on `opts.pool` — the position
 * `pool.bad_debt(user)` is for — and checks it with `get_positions`.
 *
 * Blend v2 never leaves this through its own auctions ({@link liquidateAll}: a fill that takes
 * the last collateral moves the debt to the backstop in the same call), so the state is written
 * directly into the node's ledger: the user's collateral moves to a fresh `taker` account, as
 * the lot of a fill at block 400+ (where the bid is nothing) would; the liabilities stay. The
 * pool's reserve totals still balance (the collateral changed hands, it did not vanish). A test
 * fixture only: it edits contract storage (`Positions(user)`, `Positions(taker)`).
 */
export async function createBadDebt(
  node: Localnet,
  market: Market,
  user: string,
  opts: Pick<BadDebtOptions, "pool"> = {},
): Promise<BadDebt> {
  const pool = opts.pool ?? market.contracts.lending_pool;
  const reserves = await node.view<string[]>(pool, "get_reserve_list", []);
  const before = await positionsOf(node, pool, user);
  if (before.liabilities.size === 0) {
    throw new Error(`createBadDebt: ${user} has no liabilities on ${pool}`);
  }
  const userKey = positionsKey(pool, user);
  const stored = node.chain.store.get(userKey);
  if (!stored) throw new Error(`createBadDebt: no Positions entry of ${user} on ${pool}`);
  const val = stored.data.type === "contractData" ? stored.data.contractData.val : undefined;
  const fields = (val?.type === "scvMap" ? val.map ?? [] : []) as xdr.ScMapEntry[];
  const field = (name: string): xdr.ScVal => {
    const f = fields.find((e) => e.key.type === "scvSymbol" && String(e.key.sym) === name);
    if (!f) throw new Error(`createBadDebt: Positions of ${user} has no ${name}`);
    return f.val;
  };
  const collateral = field("collateral");
  const empty = xdr.ScVal.scvMap([]);

  const taker = Keypair.random().publicKey();
  await node.fund(taker, 100n);
  const positions = (c: xdr.ScVal, l: xdr.ScVal, s: xdr.ScVal) =>
    xdr.ScVal.scvMap([
      new xdr.ScMapEntry({ key: xdr.ScVal.scvSymbol("collateral"), val: c }),
      new xdr.ScMapEntry({ key: xdr.ScVal.scvSymbol("liabilities"), val: l }),
      new xdr.ScMapEntry({ key: xdr.ScVal.scvSymbol("supply"), val: s }),
    ]);
  const entry = (user: string, val: xdr.ScVal) =>
    new xdr.LedgerEntry({
      lastModifiedLedgerSeq: node.chain.latest.sequence + 1,
      data: xdr.LedgerEntryData.contractData(
        new xdr.ContractDataEntry({
          ext: xdr.ExtensionPoint.v0(),
          contract: Address.fromString(pool).toScAddress(),
          key: positionsKeyVal(user),
          durability: xdr.ContractDataDurability.persistent,
          val,
        }),
      ),
      ext: xdr.LedgerEntryExt.v0(),
    });
  node.chain.applyDirect(
    new Map([
      [userKey, entry(user, positions(empty, field("liabilities"), field("supply")))],
      [positionsKey(pool, taker), entry(taker, positions(collateral, empty, empty))],
    ]),
  );
  await node.closeLedgers(1);

  const after = await positionsOf(node, pool, user);
  if (after.collateral.size !== 0 || after.liabilities.size === 0) {
    throw new Error(
      `createBadDebt: ${user} was left with ${after.collateral.size} collateral and ` +
        `${after.liabilities.size} liability positions`,
    );
  }
  const liabilities: Record<string, bigint> = {};
  for (const [i, d] of after.liabilities) liabilities[reserves[i]] = d;
  return { user, pool, taker, liabilities };
}

/** Blend v2's storage key of a user's positions: `PoolDataKey::Positions(user)`. */
function positionsKeyVal(user: string): xdr.ScVal {
  return xdr.ScVal.scvVec([xdr.ScVal.scvSymbol("Positions"), Address.fromString(user).toScVal()]);
}

/** The node's store key (base64 LedgerKey) of `user`'s positions on `pool`. */
function positionsKey(pool: string, user: string): string {
  return xdr.LedgerKey.contractData(
    new xdr.LedgerKeyContractData({
      contract: Address.fromString(pool).toScAddress(),
      key: positionsKeyVal(user),
      durability: xdr.ContractDataDurability.persistent,
    }),
  ).toXdr("base64");
}

/** Moves `asset`'s oracle price by `bps` as the market's admin (what `localnet_shock` does). */
async function shockPrice(node: Localnet, market: Market, asset: string, bps: number) {
  const oracle = market.contracts.oracle;
  const current = await node.view<{ price: bigint } | null>(oracle, "lastprice", [
    stellarAsset(asset),
  ]);
  if (!current) throw new Error(`createBadDebt: the oracle has no price for ${asset}`);
  const price = (BigInt(current.price) * BigInt(10000 + bps)) / 10000n;
  await node.invoke(oracle, "set_price", { asset: stellarAsset(asset), price }, {
    source: market.accounts.market_admin.public,
  });
  await node.closeLedgers(1);
}
