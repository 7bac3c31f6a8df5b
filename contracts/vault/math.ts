/**
 * i128 arithmetic for the Vigil contracts.
 *
 * JavaScript bigints never overflow, but the contracts must behave like Rust code compiled with
 * `overflow-checks = true` using `checked_*` operations: every intermediate and final result
 * must fit in i128, otherwise the call fails with the typed error `MathOverflow`. `mulDiv`
 * checks the product too (as `a.checked_mul(b)?.checked_div(c)` would), so behaviour does not
 * depend on a wider intermediate type the real contract would not have.
 *
 * With classic-asset amounts bounded by i64 (the SAC's supply limit) and deposit_cap at most
 * i64::MAX, products of two amounts stay below 2^126; overflow is only reachable for share
 * counts after a near-total loss, where refusing the call is the right outcome.
 *
 * @module
 */
import { fail } from "../sdk.ts";
import { VigilError } from "../registry/errors.ts";

/** Largest i128. */
export const I128_MAX = (1n << 127n) - 1n;
/** Smallest i128. */
export const I128_MIN = -(1n << 127n);
/** Largest i64 (the most a classic asset balance can hold). */
export const I64_MAX = (1n << 63n) - 1n;
/** Largest u64. */
export const U64_MAX = (1n << 64n) - 1n;
/** Largest u128. */
export const U128_MAX = (1n << 128n) - 1n;

/** Returns `x` if it fits in i128, else fails with MathOverflow. */
export function checked(x: bigint): bigint {
  if (x > I128_MAX || x < I128_MIN) fail(VigilError.MathOverflow);
  return x;
}

/** Checked i128 addition. */
export const add = (a: bigint, b: bigint): bigint => checked(a + b);
/** Checked i128 subtraction. */
export const sub = (a: bigint, b: bigint): bigint => checked(a - b);

/** floor(a * b / c) for a, b ≥ 0 and c > 0, with the product checked to fit i128. */
export function mulDivFloor(a: bigint, b: bigint, c: bigint): bigint {
  if (c <= 0n) fail(VigilError.MathOverflow);
  return checked(a * b) / c; // non-negative operands: bigint division truncates = floors
}

/** ceil(a * b / c) for a, b ≥ 0 and c > 0, with the product checked to fit i128. */
export function mulDivCeil(a: bigint, b: bigint, c: bigint): bigint {
  if (c <= 0n) fail(VigilError.MathOverflow);
  const p = checked(a * b);
  return (p + c - 1n) / c;
}

/** Saturating add for statistics counters that must never block a call (u64/u128/i128). */
export function saturatingAdd(a: bigint, b: bigint, max: bigint): bigint {
  const s = a + b;
  return s > max ? max : s;
}
