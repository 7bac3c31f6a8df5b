/**
 * A reserve and its interest accrual (Blend v2 `pool/reserve.rs` + `pool/interest.rs`).
 *
 * The accrual follows `@blend-capital/blend-sdk` 3.2.2's `Reserve.accrue` step for step (the SDK
 * mirrors the contract), so the SDK's projected b/d rates equal what this pool stores when both
 * accrue to the same timestamp.
 *
 * @module
 */
import { fail } from "../../../contracts/sdk.ts";
import { PoolError } from "./errors.ts";
import {
  divCeil,
  divFloor,
  mulCeil,
  mulFloor,
  pow10,
  SCALAR_12,
  SCALAR_7,
  SECONDS_PER_YEAR,
} from "./math.ts";
import type { ReserveConfig, ReserveData } from "./storage.ts";

const FIXED_95 = 9_500_000n;
const FIXED_5 = 500_000n;

/** A loaded reserve. */
export interface Reserve {
  asset: string;
  config: ReserveConfig;
  data: ReserveData;
  /** 10^decimals */
  scalar: bigint;
}

/** Underlying from dTokens (rounds up: the pool is owed more). */
export const toAssetFromD = (r: Reserve, d: bigint): bigint => mulCeil(d, r.data.d_rate, SCALAR_12);
/** Underlying from bTokens (rounds down: suppliers get less). */
export const toAssetFromB = (r: Reserve, b: bigint): bigint =>
  mulFloor(b, r.data.b_rate, SCALAR_12);
/** Effective liability (divided by l_factor, rounds up). */
export const toEffectiveFromD = (r: Reserve, d: bigint): bigint =>
  divCeil(toAssetFromD(r, d), BigInt(r.config.l_factor), SCALAR_7);
/** Effective collateral (times c_factor, rounds down). */
export const toEffectiveFromB = (r: Reserve, b: bigint): bigint =>
  mulFloor(toAssetFromB(r, b), BigInt(r.config.c_factor), SCALAR_7);
/** dTokens for an amount, rounding up. */
export const toDUp = (r: Reserve, amount: bigint): bigint =>
  divCeil(amount, r.data.d_rate, SCALAR_12);
/** dTokens for an amount, rounding down. */
export const toDDown = (r: Reserve, amount: bigint): bigint =>
  divFloor(amount, r.data.d_rate, SCALAR_12);
/** bTokens for an amount, rounding up. */
export const toBUp = (r: Reserve, amount: bigint): bigint =>
  divCeil(amount, r.data.b_rate, SCALAR_12);
/** bTokens for an amount, rounding down. */
export const toBDown = (r: Reserve, amount: bigint): bigint =>
  divFloor(amount, r.data.b_rate, SCALAR_12);

/** Total liabilities in underlying. */
export const totalLiabilities = (r: Reserve): bigint => toAssetFromD(r, r.data.d_supply);
/** Total supply in underlying. */
export const totalSupply = (r: Reserve): bigint => toAssetFromB(r, r.data.b_supply);

/** Utilization in 7 decimals, capped at 100% as the contract does. */
export function utilization(r: Reserve): bigint {
  const liab = totalLiabilities(r);
  const supply = totalSupply(r);
  if (liab === 0n) return 0n;
  if (liab >= supply) return SCALAR_7;
  return divCeil(liab, supply, SCALAR_7);
}

/** 1207 when utilization exceeds the reserve's max. */
export function requireUtilizationBelowMax(r: Reserve): void {
  if (utilization(r) > BigInt(r.config.max_util)) fail(PoolError.InvalidUtilRate);
}

/** 1207 when utilization is at or above 100% (liquidity reserved for the backstop). */
export function requireUtilizationBelow100(r: Reserve): void {
  if (utilization(r) >= SCALAR_7) fail(PoolError.InvalidUtilRate);
}

/** 1223 for supply / supply collateral / borrow on a disabled reserve. */
export function requireReserveActionAllowed(r: Reserve, requestType: number): void {
  if (!r.config.enabled && (requestType === 0 || requestType === 2 || requestType === 4)) {
    fail(PoolError.ReserveDisabled);
  }
}

/** Current borrow rate (7 decimals) for a utilization, using the stored ir_mod. */
export function currentRate(config: ReserveConfig, curUtil: bigint, irMod: bigint): bigint {
  const target = BigInt(config.util);
  const rBase = BigInt(config.r_base);
  const rOne = BigInt(config.r_one);
  const rTwo = BigInt(config.r_two);
  const rThree = BigInt(config.r_three);
  if (curUtil <= target) {
    const utilScalar = divCeil(curUtil, target, SCALAR_7);
    const base = mulCeil(utilScalar, rOne, SCALAR_7) + rBase;
    return mulCeil(base, irMod, SCALAR_7);
  }
  if (curUtil <= FIXED_95) {
    const utilScalar = divCeil(curUtil - target, FIXED_95 - target, SCALAR_7);
    const base = mulCeil(utilScalar, rTwo, SCALAR_7) + rOne + rBase;
    return mulCeil(base, irMod, SCALAR_7);
  }
  const utilScalar = divCeil(curUtil - FIXED_95, FIXED_5, SCALAR_7);
  const extra = mulCeil(utilScalar, rThree, SCALAR_7);
  const intersection = mulCeil(irMod, rTwo + rOne + rBase, SCALAR_7);
  return extra + intersection;
}

/**
 * Accrues interest on `r` in place up to `now` (seconds). Mirrors the contract's
 * `Reserve::load` short-circuits and the SDK's `accrue` arithmetic.
 */
export function accrue(r: Reserve, bstopRate: number, now: bigint): void {
  if (now === r.data.last_time) return;
  if (r.data.b_supply === 0n) {
    r.data.last_time = now;
    return;
  }
  const curUtil = utilization(r);
  if (curUtil === 0n) {
    r.data.last_time = now;
    return;
  }
  const dt = now - r.data.last_time;
  if (dt < 1n) fail(PoolError.InternalError);
  const curIr = currentRate(r.config, curUtil, r.data.ir_mod);
  const target = BigInt(r.config.util);
  const reactivity = BigInt(r.config.reactivity);
  if (curUtil > target) {
    const rateDif = mulFloor(dt * (curUtil - target), reactivity, SCALAR_7);
    const next = r.data.ir_mod + rateDif;
    const max = 10n * SCALAR_7;
    r.data.ir_mod = next > max ? max : next;
  } else if (curUtil < target) {
    const rateDif = mulCeil(dt * (target - curUtil), reactivity, SCALAR_7);
    const next = r.data.ir_mod - rateDif;
    const min = SCALAR_7 / 10n;
    r.data.ir_mod = next < min ? min : next;
  }
  const timeWeight = (dt * SCALAR_12) / SECONDS_PER_YEAR;
  const accrual = SCALAR_12 + mulCeil(timeWeight, curIr, SCALAR_7);
  const preLiab = totalLiabilities(r);
  const preSupply = totalSupply(r);
  r.data.d_rate = mulCeil(accrual, r.data.d_rate, SCALAR_12);
  const accrued = totalLiabilities(r) - preLiab;
  if (accrued > 0n) {
    const credit = bstopRate > 0 ? mulFloor(accrued, BigInt(bstopRate), SCALAR_7) : 0n;
    r.data.backstop_credit += credit;
    r.data.b_rate = divFloor(preSupply + accrued - credit, r.data.b_supply, SCALAR_12);
  }
  r.data.last_time = now;
}

/** Builds a reserve value from its stored parts. */
export function makeReserve(asset: string, config: ReserveConfig, data: ReserveData): Reserve {
  return { asset, config, data: { ...data }, scalar: pow10(config.decimals) };
}
