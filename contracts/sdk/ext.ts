// SDK additions for the Soroswap-ABI contracts: i128 arithmetic that traps on overflow (Rust's
// `checked_*().unwrap()`), integer square root, Strings, SHA-256 over XDR, and deploying a
// contract from an uploaded Wasm hash. Kept in its own file so the existing SDK is unchanged.
import * as env from "./env";
import { I128 } from "./int";
import {
  asciiBytes, expectTag, fromU32, tagOf, TAG_I256_OBJ, TAG_I256_SMALL, toU32,
} from "./val";

function toI256(a: I128): u64 {
  const s = a.hi >> 63;
  return env.obj_from_i256_pieces(s, s as u64, a.hi as u64, a.lo);
}

/** The i256 Val `v` as an i128; traps when it does not fit (a Rust overflow panic). */
function fromI256Trap(v: u64): I128 {
  const t = tagOf(v);
  if (t == TAG_I256_SMALL) return I128.of((v as i64) >> 8);
  expectTag(v, TAG_I256_OBJ);
  const hh = env.obj_to_i256_hi_hi(v);
  const hl = env.obj_to_i256_hi_lo(v);
  const lh = env.obj_to_i256_lo_hi(v);
  const ll = env.obj_to_i256_lo_lo(v);
  const sign = (lh as i64) >> 63;
  if (hh != sign || hl != (sign as u64)) unreachable();
  return new I128(lh as i64, ll);
}

/** a · b; traps on i128 overflow. */
export function mulT(a: I128, b: I128): I128 {
  return fromI256Trap(env.i256_mul(toI256(a), toI256(b)));
}

/** a / b truncated toward zero (Rust `/`); traps when b = 0. */
export function divT(a: I128, b: I128): I128 {
  if (b.isZero()) unreachable();
  return fromI256Trap(env.i256_div(toI256(a), toI256(b)));
}

/** a + b; traps on overflow. */
export function addT(a: I128, b: I128): I128 {
  const lo = a.lo + b.lo;
  const carry: i64 = lo < a.lo ? 1 : 0;
  const hi = a.hi + b.hi + carry;
  if (((a.hi ^ hi) & (b.hi ^ hi)) < 0) unreachable();
  return new I128(hi, lo);
}

/** a - b; traps on overflow. */
export function subT(a: I128, b: I128): I128 {
  const lo = a.lo - b.lo;
  const borrow: i64 = a.lo < b.lo ? 1 : 0;
  const hi = a.hi - b.hi - borrow;
  if (((a.hi ^ b.hi) & (a.hi ^ hi)) < 0) unreachable();
  return new I128(hi, lo);
}

/** Soroswap's `checked_ceiling_div`: a / b, plus one when a % b ≠ 0. */
export function ceilDivT(a: I128, b: I128): I128 {
  const q = divT(a, b);
  return mulT(q, b).eq(a) ? q : addT(q, I128.of(1));
}

function mulHi64(a: u64, b: u64): u64 {
  const a0 = a & 0xffffffff;
  const a1 = a >> 32;
  const b0 = b & 0xffffffff;
  const b1 = b >> 32;
  const p00 = a0 * b0;
  const p01 = a0 * b1;
  const p10 = a1 * b0;
  const p11 = a1 * b1;
  const mid = (p00 >> 32) + (p01 & 0xffffffff) + (p10 & 0xffffffff);
  return p11 + (p01 >> 32) + (p10 >> 32) + (mid >> 32);
}

/** floor(√n) for n ≥ 0 (num-integer's `Roots::sqrt`); traps on a negative n. */
export function sqrtT(n: I128): I128 {
  if (n.isNeg()) unreachable();
  const nh = n.hi as u64;
  const nl = n.lo;
  let r: u64 = 0;
  for (let bit: i32 = 63; bit >= 0; bit--) {
    const c = r | ((1 as u64) << (bit as u64));
    const hi = mulHi64(c, c);
    const lo = c * c;
    if (hi < nh || (hi == nh && lo <= nl)) r = c;
  }
  return new I128(0, r);
}

/** min(a, b). */
export function minI128(a: I128, b: I128): I128 {
  return a.lt(b) ? a : b;
}

// --- strings and bytes

/** A String Val of ASCII text. */
export function stringOf(s: string): u64 {
  return env.string_new_from_linear_memory(fromU32(asciiBytes(s) as u32), fromU32(s.length as u32));
}

/** Length of a String Val in bytes. */
export function stringLen(s: u64): u32 {
  return toU32(env.string_len(s));
}

/** Copies the first `n` bytes of String `s` to `dst`. */
export function stringCopy(s: u64, dst: usize, n: u32): void {
  if (n == 0) return;
  env.string_copy_to_linear_memory(s, fromU32(0), fromU32(dst as u32), fromU32(n));
}

/** A String Val from `len` bytes at `pos`. */
export function stringFromMemory(pos: usize, len: u32): u64 {
  return env.string_new_from_linear_memory(fromU32(pos as u32), fromU32(len));
}

/** sha256(xdr(a) ‖ xdr(b)): Soroswap's pair salt over two sorted token addresses. */
export function sha256OfXdrPair(a: u64, b: u64): u64 {
  return env.compute_hash_sha256(
    env.bytes_append(env.serialize_to_bytes(a), env.serialize_to_bytes(b)),
  );
}

// --- deployment

/** Deploys `wasmHash` with this contract as deployer and the given 32-byte salt. */
export function deployFromCurrent(wasmHash: u64, salt: u64): u64 {
  return env.create_contract(env.get_current_contract_address(), wasmHash, salt);
}

/** The address `deployer` gets (or got) deploying with `salt`. */
export function contractIdOf(deployer: u64, salt: u64): u64 {
  return env.get_contract_id(deployer, salt);
}

/** Pushes `x` at the front of Vec `v`. */
export function vecPushFront(v: u64, x: u64): u64 {
  return env.vec_push_front(v, x);
}
