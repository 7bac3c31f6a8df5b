/**
 * Fixed-point helpers with the rounding of `soroban-fixed-point-math` (floor / ceil toward
 * negative / positive infinity), which is what Blend's contracts and JS SDK use.
 *
 * @module
 */

/** 1.0 with 7 decimals (factors, rates, health factors). */
export const SCALAR_7 = 10_000_000n;
/** 1.0 with 12 decimals (v2 b_rate / d_rate). */
export const SCALAR_12 = 1_000_000_000_000n;
/** Seconds per year used by Blend's interest accrual. */
export const SECONDS_PER_YEAR = 31_536_000n;

/** floor(a / b) for bigint (b > 0 or b < 0), rounding toward negative infinity. */
export function divFloorInt(a: bigint, b: bigint): bigint {
  const q = a / b;
  return (a % b !== 0n) && ((a < 0n) !== (b < 0n)) ? q - 1n : q;
}

/** ceil(a / b) for bigint, rounding toward positive infinity. */
export function divCeilInt(a: bigint, b: bigint): bigint {
  const q = a / b;
  return (a % b !== 0n) && ((a < 0n) === (b < 0n)) ? q + 1n : q;
}

/** floor(x * y / denominator) */
export const mulFloor = (x: bigint, y: bigint, denominator: bigint): bigint =>
  divFloorInt(x * y, denominator);
/** ceil(x * y / denominator) */
export const mulCeil = (x: bigint, y: bigint, denominator: bigint): bigint =>
  divCeilInt(x * y, denominator);
/** floor(x * denominator / y) */
export const divFloor = (x: bigint, y: bigint, denominator: bigint): bigint =>
  divFloorInt(x * denominator, y);
/** ceil(x * denominator / y) */
export const divCeil = (x: bigint, y: bigint, denominator: bigint): bigint =>
  divCeilInt(x * denominator, y);

/** 10^n as bigint. */
export const pow10 = (n: number): bigint => 10n ** BigInt(n);
