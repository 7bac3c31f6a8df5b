/**
 * Per-invocation pool state (Blend v2 `pool/pool.rs`, `pool/user.rs`, `pool/health_factor.rs`):
 * a reserve cache with the reserves to write back, the oracle decimals and price cache, the
 * user-position mutations and the health-factor maths.
 *
 * @module
 */
import { type Env, fail } from "../../../contracts/sdk.ts";
import { PoolError } from "./errors.ts";
import { divFloor, mulCeil, mulFloor, pow10, SCALAR_7 } from "./math.ts";
import {
  accrue,
  makeReserve,
  type Reserve,
  toAssetFromB,
  toAssetFromD,
  toEffectiveFromB,
  toEffectiveFromD,
} from "./reserve.ts";
import {
  getPoolConfig,
  getPositions,
  getResConfig,
  getResData,
  getResList,
  type PoolConfig,
  type Positions,
  setPositions,
  setResData,
} from "./storage.ts";

/** Price older than this (seconds) is rejected with 1210 by `Pool::load_price`. */
export const MAX_PRICE_AGE = 24n * 60n * 60n;

/** Loaded pool state for one invocation. */
export class Pool {
  readonly reserves = new Map<string, Reserve>();
  private readonly toStore: string[] = [];
  private priceDecimals: number | undefined;
  private readonly prices = new Map<string, bigint>();
  private resList: string[] | undefined;

  constructor(readonly env: Env, readonly config: PoolConfig) {}

  /** Loads the pool config from instance storage. */
  static load(env: Env): Pool {
    return new Pool(env, getPoolConfig(env));
  }

  /** The reserve list (cached). */
  reserveList(): string[] {
    if (!this.resList) this.resList = getResList(this.env);
    return this.resList;
  }

  /** A reserve accrued to the ledger time; `store` marks it to be written back. */
  loadReserve(asset: string, store: boolean): Reserve {
    if (store && !this.toStore.includes(asset)) this.toStore.push(asset);
    const cached = this.reserves.get(asset);
    if (cached) return cached;
    const r = makeReserve(asset, getResConfig(this.env, asset), getResData(this.env, asset));
    accrue(r, this.config.bstop_rate, this.env.ledger.timestamp);
    this.reserves.set(asset, r);
    return r;
  }

  /** Writes every reserve marked for storing. */
  storeCachedReserves(): void {
    for (const asset of this.toStore) {
      const r = this.reserves.get(asset);
      if (!r) fail(PoolError.InternalReserveNotFound);
      setResData(this.env, asset, r.data);
    }
  }

  /** 1206 when the pool status forbids the request type. */
  requireActionAllowed(requestType: number): void {
    const s = this.config.status;
    if (
      (s > 1 && (requestType === 4 || requestType === 9)) ||
      (s > 3 && (requestType === 2 || requestType === 0))
    ) {
      fail(PoolError.InvalidPoolStatus);
    }
  }

  /** 1208 when a user grows beyond max_positions. */
  requireUnderMax(positions: Positions, previous: number): void {
    const n = effectiveCount(positions);
    if (n > previous && this.config.max_positions < n) fail(PoolError.MaxPositionsExceeded);
  }

  /** The oracle's decimals (one call per invocation). */
  loadPriceDecimals(): number {
    if (this.priceDecimals === undefined) {
      this.priceDecimals = Number(this.env.call<number>(this.config.oracle, "decimals", []));
    }
    return this.priceDecimals;
  }

  /**
   * The oracle price of `asset`: `lastprice(Asset::Stellar(asset))`, unwrapped (None traps),
   * rejected with 1210 when older than 24 h or not positive.
   */
  loadPrice(asset: string): bigint {
    const cached = this.prices.get(asset);
    if (cached !== undefined) return cached;
    const pd = this.env.call<{ price: bigint; timestamp: bigint } | null | undefined>(
      this.config.oracle,
      "lastprice",
      [{ tag: "Stellar", values: [asset] }],
    );
    if (pd === null || pd === undefined) {
      throw new Error("oracle lastprice returned None (unwrap on None)");
    }
    const price = BigInt(pd.price);
    if (BigInt(pd.timestamp) + MAX_PRICE_AGE < this.env.ledger.timestamp || price <= 0n) {
      fail(PoolError.InvalidPrice);
    }
    this.prices.set(asset, price);
    return price;
  }
}

/** liabilities + collateral entries (supply does not count toward max_positions). */
export function effectiveCount(p: Positions): number {
  return p.liabilities.size + p.collateral.size;
}

/** Base-asset valuation of a set of positions (Blend `PositionData`). */
export interface PositionData {
  collateral_base: bigint;
  collateral_raw: bigint;
  liability_base: bigint;
  liability_raw: bigint;
  /** 10^oracleDecimals */
  scalar: bigint;
}

/** Values `positions` with the pool's oracle (Blend `PositionData::calculate_from_positions`). */
export function positionData(pool: Pool, positions: Positions): PositionData {
  const scalar = pow10(pool.loadPriceDecimals());
  const list = pool.reserveList();
  let collateral_base = 0n, collateral_raw = 0n, liability_base = 0n, liability_raw = 0n;
  for (let i = 0; i < list.length; i++) {
    const b = positions.collateral.get(i) ?? 0n;
    const d = positions.liabilities.get(i) ?? 0n;
    if (b === 0n && d === 0n) continue;
    const r = pool.loadReserve(list[i], false);
    const price = pool.loadPrice(r.asset);
    if (b > 0n) {
      collateral_base += mulFloor(price, toEffectiveFromB(r, b), r.scalar);
      collateral_raw += mulFloor(price, toAssetFromB(r, b), r.scalar);
    }
    if (d > 0n) {
      liability_base += mulCeil(price, toEffectiveFromD(r, d), r.scalar);
      liability_raw += mulCeil(price, toAssetFromD(r, d), r.scalar);
    }
  }
  return { collateral_base, collateral_raw, liability_base, liability_raw, scalar };
}

/** Health factor in oracle decimals: floor(collateral_base * scalar / liability_base). */
export function healthFactor(p: PositionData): bigint {
  return divFloor(p.collateral_base, p.liability_base, p.scalar);
}

/** True when liabilities exist and HF < min (min in 7 decimals). */
export function isHfUnder(p: PositionData, min: bigint): boolean {
  if (p.liability_base === 0n) return false;
  return healthFactor(p) < mulFloor(p.scalar, min, SCALAR_7);
}

/** True when there are no liabilities or HF > max (max in 7 decimals). */
export function isHfOver(p: PositionData, max: bigint): boolean {
  if (p.liability_base === 0n) return true;
  return healthFactor(p) > mulCeil(p.scalar, max, SCALAR_7);
}

/** Adds to one reserve's entry of a position map (a non-positive amount fails `badAmount`). */
function addPosition(m: Map<number, bigint>, r: Reserve, amount: bigint, badAmount: number) {
  if (amount <= 0n) fail(badAmount);
  const i = r.config.index;
  m.set(i, (m.get(i) ?? 0n) + amount);
}

/**
 * Takes from one reserve's entry of a position map (a non-positive amount fails `badAmount`,
 * going below zero fails NegativeAmountError); an entry that reaches zero is removed.
 */
function removePosition(m: Map<number, bigint>, r: Reserve, amount: bigint, badAmount: number) {
  if (amount <= 0n) fail(badAmount);
  const i = r.config.index;
  const next = (m.get(i) ?? 0n) - amount;
  if (next < 0n) fail(PoolError.NegativeAmountError);
  if (next === 0n) m.delete(i);
  else m.set(i, next);
}

/** A user and its positions, mutated in memory and stored explicitly. */
export class User {
  constructor(readonly address: string, public positions: Positions) {}

  /** Loads a user's positions (empty when none). */
  static load(env: Env, address: string): User {
    return new User(address, getPositions(env, address));
  }

  /** Writes the positions back. */
  store(env: Env): void {
    setPositions(env, this.address, this.positions);
  }

  hasLiabilities(): boolean {
    return this.positions.liabilities.size > 0;
  }
  hasCollateral(): boolean {
    return this.positions.collateral.size > 0;
  }
  getLiabilities(i: number): bigint {
    return this.positions.liabilities.get(i) ?? 0n;
  }
  getCollateral(i: number): bigint {
    return this.positions.collateral.get(i) ?? 0n;
  }
  getSupply(i: number): bigint {
    return this.positions.supply.get(i) ?? 0n;
  }

  addLiabilities(r: Reserve, amount: bigint): void {
    addPosition(this.positions.liabilities, r, amount, PoolError.InvalidDTokenMintAmount);
    r.data.d_supply += amount;
  }

  removeLiabilities(r: Reserve, amount: bigint): void {
    removePosition(this.positions.liabilities, r, amount, PoolError.InvalidDTokenBurnAmount);
    r.data.d_supply -= amount;
  }

  addCollateral(r: Reserve, amount: bigint): void {
    addPosition(this.positions.collateral, r, amount, PoolError.InvalidBTokenMintAmount);
    r.data.b_supply += amount;
  }

  removeCollateral(r: Reserve, amount: bigint): void {
    removePosition(this.positions.collateral, r, amount, PoolError.InvalidBTokenBurnAmount);
    r.data.b_supply -= amount;
  }

  addSupply(r: Reserve, amount: bigint): void {
    addPosition(this.positions.supply, r, amount, PoolError.InvalidBTokenMintAmount);
    r.data.b_supply += amount;
  }

  removeSupply(r: Reserve, amount: bigint): void {
    removePosition(this.positions.supply, r, amount, PoolError.InvalidBTokenBurnAmount);
    r.data.b_supply -= amount;
  }

  /** Removes auction lot collateral and bid liabilities (user side of a fill). */
  rmPositions(pool: Pool, collateral: Map<string, bigint>, liabilities: Map<string, bigint>): void {
    for (const [asset, amount] of collateral) {
      if (amount > 0n) this.removeCollateral(pool.loadReserve(asset, true), amount);
    }
    for (const [asset, amount] of liabilities) {
      if (amount > 0n) this.removeLiabilities(pool.loadReserve(asset, true), amount);
    }
  }

  /** Adds auction lot collateral and bid liabilities (filler side of a fill). */
  addPositions(
    pool: Pool,
    collateral: Map<string, bigint>,
    liabilities: Map<string, bigint>,
  ): void {
    for (const [asset, amount] of collateral) {
      if (amount > 0n) this.addCollateral(pool.loadReserve(asset, true), amount);
    }
    for (const [asset, amount] of liabilities) {
      if (amount > 0n) this.addLiabilities(pool.loadReserve(asset, true), amount);
    }
  }
}
