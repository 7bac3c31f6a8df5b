/**
 * Module `i` (int): 64/128/256-bit object conversions and checked u256/i256 arithmetic.
 *
 * @module
 */
import { hf, type HostFn, type VmCtx } from "../ctx.ts";
import { valErr } from "../objects.ts";
import { i64, Tag, u64 } from "../val.ts";

const M64 = (1n << 64n) - 1n;
const U256_MAX = (1n << 256n) - 1n;
const I256_MIN = -(1n << 255n);
const I256_MAX = (1n << 255n) - 1n;

function newObj(c: VmCtx, tag: 64 | 65 | 66 | 67 | 68 | 69 | 70 | 71, n: bigint): bigint {
  return c.rel(c.store.add({ t: tag, n }));
}

function objNum(c: VmCtx, v: bigint, tag: number): bigint {
  return (c.store.get(c.obj(v, tag), tag) as { n: bigint }).n;
}

/** A U256Val / I256Val argument (small or object). */
function num256(c: VmCtx, v: bigint, signed: boolean): bigint {
  return c.num256(v, signed);
}

function ret256(c: VmCtx, n: bigint, signed: boolean): bigint {
  if (signed ? n < I256_MIN || n > I256_MAX : n < 0n || n > U256_MAX) {
    throw valErr("Object", "ArithDomain", "arithmetic overflow");
  }
  return c.rel(c.store.num(signed ? Tag.I256Object : Tag.U256Object, n));
}

function be32(n: bigint): Uint8Array {
  const out = new Uint8Array(32);
  let x = BigInt.asUintN(256, n);
  for (let i = 31; i >= 0; i--) {
    out[i] = Number(x & 0xffn);
    x >>= 8n;
  }
  return out;
}

function fromBe(b: Uint8Array): bigint {
  let n = 0n;
  for (const x of b) n = (n << 8n) | BigInt(x);
  return n;
}

function pow(base: bigint, exp: number, signed: boolean): bigint {
  if (exp === 0) return 1n;
  if (base === 0n || base === 1n) return base;
  if (base === -1n) return exp % 2 === 0 ? 1n : -1n;
  if (exp > 256) throw valErr("Object", "ArithDomain", "arithmetic overflow");
  const lo = signed ? I256_MIN : 0n;
  const hi = signed ? I256_MAX : U256_MAX;
  let result = 1n;
  for (let i = 0; i < exp; i++) {
    result *= base;
    if (result < lo || result > hi) throw valErr("Object", "ArithDomain", "arithmetic overflow");
  }
  return result;
}

function arith(signed: boolean, op: string) {
  return (c: VmCtx, a: bigint, b: bigint): bigint => {
    const x = num256(c, a, signed);
    const bits = 256n;
    switch (op) {
      case "add":
        return ret256(c, x + num256(c, b, signed), signed);
      case "sub":
        return ret256(c, x - num256(c, b, signed), signed);
      case "mul":
        return ret256(c, x * num256(c, b, signed), signed);
      case "div": {
        const y = num256(c, b, signed);
        if (y === 0n) throw valErr("Object", "ArithDomain", "division by zero");
        return ret256(c, x / y, signed);
      }
      case "rem": {
        const y = num256(c, b, signed);
        if (y === 0n) throw valErr("Object", "ArithDomain", "division by zero");
        let r = x % y;
        if (r < 0n) r += y < 0n ? -y : y;
        return ret256(c, r, signed);
      }
      case "pow":
        return ret256(c, pow(x, c.u32(b), signed), signed);
      case "shl": {
        const s = c.u32(b);
        if (BigInt(s) >= bits) throw valErr("Object", "ArithDomain", "shift too large");
        const r = BigInt.asUintN(256, x << BigInt(s));
        return ret256(c, signed ? BigInt.asIntN(256, r) : r, signed);
      }
      default: {
        const s = c.u32(b);
        if (BigInt(s) >= bits) throw valErr("Object", "ArithDomain", "shift too large");
        return ret256(c, x >> BigInt(s), signed);
      }
    }
  };
}

export const INT: [string, HostFn][] = [
  ["_", hf("obj_from_u64", 1, (c, v) => newObj(c, 64, u64(v)))],
  ["0", hf("obj_to_u64", 1, (c, o) => objNum(c, o, 64))],
  ["1", hf("obj_from_i64", 1, (c, v) => newObj(c, 65, i64(v)))],
  ["2", hf("obj_to_i64", 1, (c, o) => objNum(c, o, 65))],
  ["3", hf("obj_from_u128_pieces", 2, (c, hi, lo) => newObj(c, 68, (u64(hi) << 64n) | u64(lo)))],
  ["4", hf("obj_to_u128_lo64", 1, (c, o) => objNum(c, o, 68) & M64)],
  ["5", hf("obj_to_u128_hi64", 1, (c, o) => objNum(c, o, 68) >> 64n)],
  [
    "6",
    hf("obj_from_i128_pieces", 2, (c, hi, lo) => newObj(c, 69, (i64(hi) << 64n) | u64(lo))),
  ],
  ["7", hf("obj_to_i128_lo64", 1, (c, o) => objNum(c, o, 69) & M64)],
  ["8", hf("obj_to_i128_hi64", 1, (c, o) => BigInt.asIntN(64, objNum(c, o, 69) >> 64n))],
  [
    "9",
    hf(
      "obj_from_u256_pieces",
      4,
      (c, a, b, d, e) =>
        newObj(c, 70, (u64(a) << 192n) | (u64(b) << 128n) | (u64(d) << 64n) | u64(e)),
    ),
  ],
  [
    "a",
    hf("u256_val_from_be_bytes", 1, (c, b) => {
      const bytes = c.bytes(b);
      if (bytes.length !== 32) throw valErr("Object", "UnexpectedSize", "expected 32 bytes");
      return c.rel(c.store.num(70, fromBe(bytes)));
    }),
  ],
  ["b", hf("u256_val_to_be_bytes", 1, (c, v) => c.newBytes(be32(num256(c, v, false))))],
  ["c", hf("obj_to_u256_hi_hi", 1, (c, o) => (objNum(c, o, 70) >> 192n) & M64)],
  ["d", hf("obj_to_u256_hi_lo", 1, (c, o) => (objNum(c, o, 70) >> 128n) & M64)],
  ["e", hf("obj_to_u256_lo_hi", 1, (c, o) => (objNum(c, o, 70) >> 64n) & M64)],
  ["f", hf("obj_to_u256_lo_lo", 1, (c, o) => objNum(c, o, 70) & M64)],
  [
    "g",
    hf(
      "obj_from_i256_pieces",
      4,
      (c, a, b, d, e) =>
        newObj(c, 71, (i64(a) << 192n) | (u64(b) << 128n) | (u64(d) << 64n) | u64(e)),
    ),
  ],
  [
    "h",
    hf("i256_val_from_be_bytes", 1, (c, b) => {
      const bytes = c.bytes(b);
      if (bytes.length !== 32) throw valErr("Object", "UnexpectedSize", "expected 32 bytes");
      return c.rel(c.store.num(71, BigInt.asIntN(256, fromBe(bytes))));
    }),
  ],
  ["i", hf("i256_val_to_be_bytes", 1, (c, v) => c.newBytes(be32(num256(c, v, true))))],
  ["j", hf("obj_to_i256_hi_hi", 1, (c, o) => BigInt.asIntN(64, objNum(c, o, 71) >> 192n))],
  ["k", hf("obj_to_i256_hi_lo", 1, (c, o) => (objNum(c, o, 71) >> 128n) & M64)],
  ["l", hf("obj_to_i256_lo_hi", 1, (c, o) => (objNum(c, o, 71) >> 64n) & M64)],
  ["m", hf("obj_to_i256_lo_lo", 1, (c, o) => objNum(c, o, 71) & M64)],
  ["n", hf("u256_add", 2, arith(false, "add"))],
  ["o", hf("u256_sub", 2, arith(false, "sub"))],
  ["p", hf("u256_mul", 2, arith(false, "mul"))],
  ["q", hf("u256_div", 2, arith(false, "div"))],
  ["r", hf("u256_rem_euclid", 2, arith(false, "rem"))],
  ["s", hf("u256_pow", 2, arith(false, "pow"))],
  ["t", hf("u256_shl", 2, arith(false, "shl"))],
  ["u", hf("u256_shr", 2, arith(false, "shr"))],
  ["v", hf("i256_add", 2, arith(true, "add"))],
  ["w", hf("i256_sub", 2, arith(true, "sub"))],
  ["x", hf("i256_mul", 2, arith(true, "mul"))],
  ["y", hf("i256_div", 2, arith(true, "div"))],
  ["z", hf("i256_rem_euclid", 2, arith(true, "rem"))],
  ["A", hf("i256_pow", 2, arith(true, "pow"))],
  ["B", hf("i256_shl", 2, arith(true, "shl"))],
  ["C", hf("i256_shr", 2, arith(true, "shr"))],
  ["D", hf("timepoint_obj_from_u64", 1, (c, v) => newObj(c, 66, u64(v)))],
  ["E", hf("timepoint_obj_to_u64", 1, (c, o) => objNum(c, o, 66))],
  ["F", hf("duration_obj_from_u64", 1, (c, v) => newObj(c, 67, u64(v)))],
  ["G", hf("duration_obj_to_u64", 1, (c, o) => objNum(c, o, 67))],
];
