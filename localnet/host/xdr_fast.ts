/**
 * A fast XDR writer for the values the host encodes on every call (ScVal, ScAddress, the
 * LedgerKeys of contract data, accounts and trustlines), plus base64, canonical ScVal ordering
 * and size helpers.
 *
 * Why: the SDK's generic encoder allocates an 8 KiB buffer per `toXdr()` (~10 µs even for an
 * i128). The host encodes storage keys and compares arguments thousands of times per second,
 * so it writes XDR itself into one reused buffer. Anything uncommon falls back to the SDK's
 * encoder, so the output is always byte-identical to `toXdr()` (checked by tests).
 *
 * @module
 */
import { xdr } from "@stellar/stellar-sdk";

let buf = new Uint8Array(4096);
let view = new DataView(buf.buffer);
let off = 0;

function ensure(n: number): void {
  if (off + n <= buf.length) return;
  let size = buf.length * 2;
  while (size < off + n) size *= 2;
  const next = new Uint8Array(size);
  next.set(buf.subarray(0, off));
  buf = next;
  view = new DataView(buf.buffer);
}

function u32(v: number): void {
  ensure(4);
  view.setUint32(off, v >>> 0, false);
  off += 4;
}

function i32(v: number): void {
  ensure(4);
  view.setInt32(off, v | 0, false);
  off += 4;
}

function u64(v: bigint): void {
  ensure(8);
  view.setBigUint64(off, BigInt.asUintN(64, v), false);
  off += 8;
}

function i64(v: bigint): void {
  ensure(8);
  view.setBigInt64(off, BigInt.asIntN(64, v), false);
  off += 8;
}

function fixed(b: Uint8Array): void {
  ensure(b.length);
  buf.set(b, off);
  off += b.length;
}

function varOpaque(b: Uint8Array): void {
  const pad = (4 - (b.length % 4)) % 4;
  ensure(4 + b.length + pad);
  view.setUint32(off, b.length, false);
  off += 4;
  buf.set(b, off);
  off += b.length;
  for (let i = 0; i < pad; i++) buf[off++] = 0;
}

// deno-lint-ignore no-explicit-any
type Any = any;

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

/** The numeric ScValType of an ScVal. */
export function scvTypeCode(v: xdr.ScVal): number {
  return SCV_TYPE[v.type];
}

function writeScAddress(a: xdr.ScAddress): void {
  switch (a.type) {
    case "scAddressTypeAccount":
      u32(0);
      u32(0); // PUBLIC_KEY_TYPE_ED25519
      fixed((a as Any).accountId.ed25519.value);
      return;
    case "scAddressTypeContract":
      u32(1);
      fixed((a as Any).contractId.value);
      return;
    default:
      fixed(a.toXdr());
  }
}

function writeScVal(v: xdr.ScVal): void {
  const x = v as Any;
  switch (v.type) {
    case "scvBool":
      u32(SCV_TYPE.scvBool);
      u32(x.b ? 1 : 0);
      return;
    case "scvVoid":
      u32(1);
      return;
    case "scvU32":
      u32(3);
      u32(x.u32);
      return;
    case "scvI32":
      u32(4);
      i32(x.i32);
      return;
    case "scvU64":
      u32(5);
      u64(BigInt(x.u64));
      return;
    case "scvI64":
      u32(6);
      i64(BigInt(x.i64));
      return;
    case "scvTimepoint":
      u32(7);
      u64(BigInt(x.timepoint));
      return;
    case "scvDuration":
      u32(8);
      u64(BigInt(x.duration));
      return;
    case "scvU128":
      u32(9);
      u64(BigInt(x.u128.hi));
      u64(BigInt(x.u128.lo));
      return;
    case "scvI128":
      u32(10);
      i64(BigInt(x.i128.hi));
      u64(BigInt(x.i128.lo));
      return;
    case "scvBytes":
      u32(13);
      varOpaque(x.bytes.value);
      return;
    case "scvString":
      u32(14);
      varOpaque(x.str.bytes);
      return;
    case "scvSymbol":
      u32(15);
      varOpaque(x.sym.bytes);
      return;
    case "scvVec": {
      u32(16);
      const items: xdr.ScVal[] | null = x.vec;
      if (items === null || items === undefined) {
        u32(0);
        return;
      }
      u32(1);
      u32(items.length);
      for (const it of items) writeScVal(it);
      return;
    }
    case "scvMap": {
      u32(17);
      const entries: xdr.ScMapEntry[] | null = x.map;
      if (entries === null || entries === undefined) {
        u32(0);
        return;
      }
      u32(1);
      u32(entries.length);
      for (const e of entries) {
        writeScVal(e.key);
        writeScVal(e.val);
      }
      return;
    }
    case "scvAddress":
      u32(18);
      writeScAddress(x.address);
      return;
    case "scvLedgerKeyContractInstance":
      u32(20);
      return;
    case "scvLedgerKeyNonce":
      u32(21);
      i64(BigInt(x.nonceKey.nonce));
      return;
    default:
      // Rare arms (errors, 256-bit ints, instances, tags): the SDK's encoder.
      fixed(v.toXdr());
  }
}

function take(): Uint8Array {
  const out = buf.slice(0, off);
  off = 0;
  return out;
}

/** XDR bytes of an ScVal (identical to `v.toXdr()`). */
export function encodeScVal(v: xdr.ScVal): Uint8Array {
  off = 0;
  writeScVal(v);
  return take();
}

/** XDR bytes of an ScAddress. */
export function encodeScAddress(a: xdr.ScAddress): Uint8Array {
  off = 0;
  writeScAddress(a);
  return take();
}

/** Byte length of an ScVal's XDR. */
export function scValSize(v: xdr.ScVal): number {
  off = 0;
  writeScVal(v);
  const n = off;
  off = 0;
  return n;
}

/** A string holding the ScVal's XDR bytes (one char per byte): a Map key / equality token. */
export function scvToken(v: xdr.ScVal): string {
  off = 0;
  writeScVal(v);
  const s = latin1(buf, 0, off);
  off = 0;
  return s;
}

/** ScVal equality by XDR bytes. */
export function scvEquals(a: xdr.ScVal, b: xdr.ScVal): boolean {
  return a === b || scvToken(a) === scvToken(b);
}

function latin1(b: Uint8Array, start: number, end: number): string {
  let s = "";
  const CH = 8192;
  for (let i = start; i < end; i += CH) {
    s += String.fromCharCode.apply(
      null,
      b.subarray(i, Math.min(end, i + CH)) as unknown as number[],
    );
  }
  return s;
}

const B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/** Standard base64 of bytes (with padding). */
export function toBase64(b: Uint8Array, start = 0, end = b.length): string {
  let s = "";
  let i = start;
  for (; i + 2 < end; i += 3) {
    const n = (b[i] << 16) | (b[i + 1] << 8) | b[i + 2];
    s += B64[n >> 18] + B64[(n >> 12) & 63] + B64[(n >> 6) & 63] + B64[n & 63];
  }
  const rest = end - i;
  if (rest === 1) {
    const n = b[i] << 16;
    s += B64[n >> 18] + B64[(n >> 12) & 63] + "==";
  } else if (rest === 2) {
    const n = (b[i] << 16) | (b[i + 1] << 8);
    s += B64[n >> 18] + B64[(n >> 12) & 63] + B64[(n >> 6) & 63] + "=";
  }
  return s;
}

/** Bytes of a base64 string. */
export function fromBase64(s: string): Uint8Array {
  const bin = atob(s);
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

/** Base64 LedgerKey of a contract data entry (durability: 0 temporary, 1 persistent). */
export function contractDataKey(
  contract: xdr.ScAddress,
  key: xdr.ScVal,
  durability: 0 | 1,
): string {
  off = 0;
  u32(6);
  writeScAddress(contract);
  writeScVal(key);
  u32(durability);
  const s = toBase64(buf, 0, off);
  off = 0;
  return s;
}

/** Base64 LedgerKey of an account (raw 32-byte ed25519 key). */
export function accountKey(pk: Uint8Array): string {
  off = 0;
  u32(0);
  u32(0);
  fixed(pk);
  const s = toBase64(buf, 0, off);
  off = 0;
  return s;
}

/** Base64 LedgerKey of a contract code entry. */
export function contractCodeKey(hash: Uint8Array): string {
  off = 0;
  u32(7);
  fixed(hash);
  const s = toBase64(buf, 0, off);
  off = 0;
  return s;
}

/** Base64 LedgerKey of a trustline for an alphanum asset (code padded to 4 or 12 bytes). */
export function trustlineKey(pk: Uint8Array, code: Uint8Array, issuer: Uint8Array): string {
  off = 0;
  u32(1);
  u32(0);
  fixed(pk);
  u32(code.length === 4 ? 1 : 2);
  fixed(code);
  u32(0);
  fixed(issuer);
  const s = toBase64(buf, 0, off);
  off = 0;
  return s;
}

/**
 * XDR size of a LedgerEntry, cached per entry object (entries are immutable in the SDK).
 * Contract data entries are sized with the fast writer; others with the SDK encoder.
 */
const sizeCache = new WeakMap<xdr.LedgerEntry, number>();
export function ledgerEntrySize(e: xdr.LedgerEntry): number {
  let n = sizeCache.get(e);
  if (n !== undefined) return n;
  const d = e.data as Any;
  if (e.data.type === "contractData" && e.ext.type === "v0") {
    const cd = d.contractData;
    off = 0;
    // lastModifiedLedgerSeq + data type + ext(ContractDataEntry) + address + key + durability + val + ext
    u32(0);
    u32(6);
    u32(0);
    writeScAddress(cd.contract);
    writeScVal(cd.key);
    u32(0);
    writeScVal(cd.val);
    u32(0);
    n = off;
    off = 0;
  } else {
    n = classicSize(e) ?? e.toXdr().length;
  }
  sizeCache.set(e, n);
  return n;
}

/** Records that `next` (derived from `prev` by changing fixed-size fields) has prev's size. */
export function inheritSize(next: xdr.LedgerEntry, prev: xdr.LedgerEntry): void {
  sizeCache.set(next, ledgerEntrySize(prev));
}

const pad4 = (n: number) => n + ((4 - (n % 4)) % 4);

/** XDR size of plain account / trustline entries (ext v0) without encoding; else undefined. */
function classicSize(e: xdr.LedgerEntry): number | undefined {
  if (e.ext.type !== "v0") return undefined;
  const d = e.data as Any;
  if (e.data.type === "account") {
    const a = d.account;
    if (a.ext.type !== "v0") return undefined;
    let n = 36 + 8 + 8 + 4 + 4 + (a.inflationDest ? 36 : 0) + 4 + 4 + pad4(a.homeDomain.length) +
      4 +
      4 + 4;
    for (const sg of a.signers as Any[]) {
      const k = sg.key;
      if (k.type === "signerKeyTypeEd25519SignedPayload") {
        n += 4 + 32 + 4 + pad4(k.ed25519SignedPayload.payload.length) + 4;
      } else n += 4 + 32 + 4;
    }
    return 4 + 4 + n + 4;
  }
  if (e.data.type === "trustline") {
    const t = d.trustLine;
    if (t.ext.type !== "v0") return undefined;
    const asset = t.asset.type === "assetTypeCreditAlphanum4"
      ? 4 + 4 + 36
      : t.asset.type === "assetTypeCreditAlphanum12"
      ? 4 + 12 + 36
      : t.asset.type === "assetTypePoolShare"
      ? 4 + 32
      : 4;
    return 4 + 4 + 36 + asset + 8 + 8 + 4 + 4 + 4;
  }
  return undefined;
}

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
  return cmpBytes(encodeScAddress(a), encodeScAddress(b));
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
      return cmpBytes(encodeScVal(a), encodeScVal(b));
  }
}
