// 128-bit integers as (hi, lo) 64-bit pieces, with checked arithmetic. No floating point.
// Products and quotients go through the host's 256-bit integers, so every intermediate is
// exact; the caller chooses the contract error raised on overflow.
import * as env from "./env";
import {
  expectTag,
  fail,
  tagOf,
  TAG_I128_OBJ,
  TAG_I128_SMALL,
  TAG_I256_OBJ,
  TAG_I256_SMALL,
  TAG_U128_OBJ,
  TAG_U128_SMALL,
  TAG_U256_OBJ,
  TAG_U256_SMALL,
} from "./val";

/** A signed 128-bit integer. */
export class I128 {
  constructor(public hi: i64, public lo: u64) {}

  static of(x: i64): I128 {
    return new I128(x >> 63, x as u64);
  }

  static zero(): I128 {
    return new I128(0, 0);
  }

  static max(): I128 {
    return new I128(i64.MAX_VALUE, u64.MAX_VALUE);
  }

  isZero(): bool {
    return this.hi == 0 && this.lo == 0;
  }

  isNeg(): bool {
    return this.hi < 0;
  }

  /** True when the value is > 0. */
  isPos(): bool {
    return this.hi > 0 || (this.hi == 0 && this.lo != 0);
  }

  /** -1, 0 or 1. */
  cmp(o: I128): i32 {
    if (this.hi != o.hi) return this.hi < o.hi ? -1 : 1;
    if (this.lo != o.lo) return this.lo < o.lo ? -1 : 1;
    return 0;
  }

  lt(o: I128): bool {
    return this.cmp(o) < 0;
  }

  gt(o: I128): bool {
    return this.cmp(o) > 0;
  }

  eq(o: I128): bool {
    return this.hi == o.hi && this.lo == o.lo;
  }

  /** The Val: a small I128 when it fits 56 bits, else a host object. */
  toVal(): u64 {
    const x = this.lo as i64;
    if (this.hi == (x >> 63) && x >= -(1 << 55) && x < (1 << 55)) {
      return ((x << 8) as u64) | TAG_I128_SMALL;
    }
    return env.obj_from_i128_pieces(this.hi, this.lo);
  }

  static fromVal(v: u64): I128 {
    const t = tagOf(v);
    if (t == TAG_I128_SMALL) return I128.of((v as i64) >> 8);
    expectTag(v, TAG_I128_OBJ);
    return new I128(env.obj_to_i128_hi64(v), env.obj_to_i128_lo64(v));
  }
}

/** a + b, or `Error(Contract, #err)` if the sum does not fit i128. */
export function addI128(a: I128, b: I128, err: u32): I128 {
  const lo = a.lo + b.lo;
  const carry: i64 = lo < a.lo ? 1 : 0;
  const hi = a.hi + b.hi + carry;
  if (((a.hi ^ hi) & (b.hi ^ hi)) < 0) fail(err);
  return new I128(hi, lo);
}

/** a - b, or `Error(Contract, #err)` if the difference does not fit i128. */
export function subI128(a: I128, b: I128, err: u32): I128 {
  const lo = a.lo - b.lo;
  const borrow: i64 = a.lo < b.lo ? 1 : 0;
  const hi = a.hi - b.hi - borrow;
  if (((a.hi ^ b.hi) & (a.hi ^ hi)) < 0) fail(err);
  return new I128(hi, lo);
}

/** a + b saturating at i128::MAX (for statistics counters with b ≥ 0). */
export function saturatingAddI128(a: I128, b: I128): I128 {
  const lo = a.lo + b.lo;
  const carry: i64 = lo < a.lo ? 1 : 0;
  const hi = a.hi + b.hi + carry;
  if (((a.hi ^ hi) & (b.hi ^ hi)) < 0) return a.isNeg() ? new I128(i64.MIN_VALUE, 0) : I128.max();
  return new I128(hi, lo);
}

function toI256(a: I128): u64 {
  const s = a.hi >> 63;
  return env.obj_from_i256_pieces(s, s as u64, a.hi as u64, a.lo);
}

/** The i256 Val `v` as an i128, or `Error(Contract, #err)` when it does not fit. */
function fromI256(v: u64, err: u32): I128 {
  const t = tagOf(v);
  if (t == TAG_I256_SMALL) return I128.of((v as i64) >> 8);
  expectTag(v, TAG_I256_OBJ);
  const hh = env.obj_to_i256_hi_hi(v);
  const hl = env.obj_to_i256_hi_lo(v);
  const lh = env.obj_to_i256_lo_hi(v);
  const ll = env.obj_to_i256_lo_lo(v);
  const sign = (lh as i64) >> 63;
  if (hh != sign || hl != (sign as u64)) fail(err);
  return new I128(lh as i64, ll);
}

/**
 * floor(a · b / c) for a, b ≥ 0 and c > 0. The product must fit i128 (as Rust's
 * `a.checked_mul(b)?.checked_div(c)` would), else `Error(Contract, #err)`.
 */
export function mulDivFloor(a: I128, b: I128, c: I128, err: u32): I128 {
  if (a.isNeg() || b.isNeg() || !c.isPos()) fail(err);
  const p = env.i256_mul(toI256(a), toI256(b));
  fromI256(p, err); // the product itself must fit i128
  return fromI256(env.i256_div(p, toI256(c)), err);
}

/** An unsigned 128-bit integer. */
export class U128 {
  constructor(public hi: u64, public lo: u64) {}

  static of(x: u64): U128 {
    return new U128(0, x);
  }

  toVal(): u64 {
    if (this.hi == 0 && this.lo < (1 << 56)) return (this.lo << 8) | TAG_U128_SMALL;
    return env.obj_from_u128_pieces(this.hi, this.lo);
  }

  static fromVal(v: u64): U128 {
    const t = tagOf(v);
    if (t == TAG_U128_SMALL) return new U128(0, v >> 8);
    expectTag(v, TAG_U128_OBJ);
    return new U128(env.obj_to_u128_hi64(v), env.obj_to_u128_lo64(v));
  }
}

/** a + b saturating at u128::MAX. */
export function saturatingAddU128(a: U128, b: u64): U128 {
  const lo = a.lo + b;
  const carry: u64 = lo < a.lo ? 1 : 0;
  const hi = a.hi + carry;
  if (hi < a.hi) return new U128(u64.MAX_VALUE, u64.MAX_VALUE);
  return new U128(hi, lo);
}

/** floor(a / d) for d > 0, when the quotient fits u64 (else it saturates at u64::MAX). */
export function divU128ByU64(a: U128, d: u64): u64 {
  if (d == 0) unreachable();
  if (a.hi == 0) return a.lo / d;
  const q = env.u256_div(env.obj_from_u256_pieces(0, 0, a.hi, a.lo), env.obj_from_u256_pieces(0, 0, 0, d));
  const t = tagOf(q);
  if (t == TAG_U256_SMALL) return q >> 8;
  expectTag(q, TAG_U256_OBJ);
  if (env.obj_to_u256_hi_hi(q) != 0 || env.obj_to_u256_hi_lo(q) != 0 || env.obj_to_u256_lo_hi(q) != 0) {
    return u64.MAX_VALUE;
  }
  return env.obj_to_u256_lo_lo(q);
}

/** a + b saturating at u64::MAX. */
export function saturatingAddU64(a: u64, b: u64): u64 {
  const s = a + b;
  return s < a ? u64.MAX_VALUE : s;
}
