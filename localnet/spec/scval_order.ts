/**
 * The host's total order on ScVals (the derived `Ord` of the XDR `ScVal` in rs-soroban-env), used
 * to keep ScMap keys sorted as the host requires.
 *
 * @module
 */
import type { xdr } from "@stellar/stellar-sdk";

// deno-lint-ignore no-explicit-any
type Any = any;

/** The numeric ScValType of each ScVal arm (stellar-xdr `SCValType`). */
const SCV_TYPE: Record<string, number> = {
  scvBool: 0,
  scvVoid: 1,
  scvError: 2,
  scvU32: 3,
  scvI32: 4,
  scvU64: 5,
  scvI64: 6,
  scvTimepoint: 7,
  scvDuration: 8,
  scvU128: 9,
  scvI128: 10,
  scvU256: 11,
  scvI256: 12,
  scvBytes: 13,
  scvString: 14,
  scvSymbol: 15,
  scvVec: 16,
  scvMap: 17,
  scvAddress: 18,
  scvContractInstance: 19,
  scvLedgerKeyContractInstance: 20,
  scvLedgerKeyNonce: 21,
  scvExecutableTag: 22,
};

// ---------------------------------------------------------------------------------------------
// Ordering: the host's total order on values (the derived Ord of the XDR ScVal), used to keep
// ScMap keys sorted as the real host requires.
// ---------------------------------------------------------------------------------------------

/** Lexicographic byte order (shorter first on a common prefix), as Rust's `[u8]` Ord. */
export function cmpBytes(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    if (a[i] !== b[i]) return a[i] < b[i] ? -1 : 1;
  }
  return a.length === b.length ? 0 : a.length < b.length ? -1 : 1;
}

function cmpBig(a: bigint, b: bigint): number {
  return a === b ? 0 : a < b ? -1 : 1;
}

function cmpNum(a: number, b: number): number {
  return a === b ? 0 : a < b ? -1 : 1;
}

/** Compares two ScAddresses (type first, then bytes). */
export function compareScAddress(a: xdr.ScAddress, b: xdr.ScAddress): number {
  return cmpBytes(a.toXdr(), b.toXdr());
}

/**
 * Total order on ScVals matching the Rust host (`Ord` of `ScVal`): by type tag, then value
 * (numbers numerically, byte strings lexicographically, vecs/maps element-wise then by length).
 */
export function compareScVal(a: xdr.ScVal, b: xdr.ScVal): number {
  const ta = SCV_TYPE[a.type];
  const tb = SCV_TYPE[b.type];
  if (ta !== tb) return ta < tb ? -1 : 1;
  const x = a as Any;
  const y = b as Any;
  switch (a.type) {
    case "scvBool":
      return cmpNum(x.b ? 1 : 0, y.b ? 1 : 0);
    case "scvVoid":
    case "scvLedgerKeyContractInstance":
      return 0;
    case "scvU32":
      return cmpNum(x.u32, y.u32);
    case "scvI32":
      return cmpNum(x.i32, y.i32);
    case "scvU64":
      return cmpBig(BigInt(x.u64), BigInt(y.u64));
    case "scvI64":
      return cmpBig(BigInt(x.i64), BigInt(y.i64));
    case "scvTimepoint":
      return cmpBig(BigInt(x.timepoint), BigInt(y.timepoint));
    case "scvDuration":
      return cmpBig(BigInt(x.duration), BigInt(y.duration));
    case "scvU128":
      return cmpBig(BigInt(x.u128.hi), BigInt(y.u128.hi)) ||
        cmpBig(BigInt(x.u128.lo), BigInt(y.u128.lo));
    case "scvI128":
      return cmpBig(BigInt(x.i128.hi), BigInt(y.i128.hi)) ||
        cmpBig(BigInt(x.i128.lo), BigInt(y.i128.lo));
    case "scvBytes":
      return cmpBytes(x.bytes.value, y.bytes.value);
    case "scvString":
      return cmpBytes(x.str.bytes, y.str.bytes);
    case "scvSymbol":
      return cmpBytes(x.sym.bytes, y.sym.bytes);
    case "scvVec": {
      const va: xdr.ScVal[] | null = x.vec;
      const vb: xdr.ScVal[] | null = y.vec;
      if (va === null || vb === null) return va === vb ? 0 : va === null ? -1 : 1;
      const n = Math.min(va.length, vb.length);
      for (let i = 0; i < n; i++) {
        const c = compareScVal(va[i], vb[i]);
        if (c !== 0) return c;
      }
      return cmpNum(va.length, vb.length);
    }
    case "scvMap": {
      const ma: xdr.ScMapEntry[] | null = x.map;
      const mb: xdr.ScMapEntry[] | null = y.map;
      if (ma === null || mb === null) return ma === mb ? 0 : ma === null ? -1 : 1;
      const n = Math.min(ma.length, mb.length);
      for (let i = 0; i < n; i++) {
        const c = compareScVal(ma[i].key, mb[i].key) || compareScVal(ma[i].val, mb[i].val);
        if (c !== 0) return c;
      }
      return cmpNum(ma.length, mb.length);
    }
    case "scvAddress":
      return compareScAddress(x.address, y.address);
    case "scvLedgerKeyNonce":
      return cmpBig(BigInt(x.nonceKey.nonce), BigInt(y.nonceKey.nonce));
    case "scvU256":
    case "scvI256": {
      const p = a.type === "scvU256" ? x.u256 : x.i256;
      const q = a.type === "scvU256" ? y.u256 : y.i256;
      return cmpBig(BigInt(p.hiHi), BigInt(q.hiHi)) || cmpBig(BigInt(p.hiLo), BigInt(q.hiLo)) ||
        cmpBig(BigInt(p.loHi), BigInt(q.loHi)) || cmpBig(BigInt(p.loLo), BigInt(q.loLo));
    }
    default:
      // Errors and instances are rare as keys: their XDR bytes order them.
      return cmpBytes(a.toXdr(), b.toXdr());
  }
}
