/**
 * Host objects of one invocation and their conversion to and from ScVals.
 *
 * As in rs-soroban-env, objects live in one host-wide table (absolute handles) and are
 * immutable; a Wasm frame only sees frame-relative handles (see {@link FrameHandles}), so a
 * handle from another frame is invalid. Vals stored inside vecs and maps carry absolute
 * handles. Maps are kept sorted by the host's Val order ({@link ObjectStore.compare}), which
 * is the ScVal order, so they round-trip to `ScMap` byte for byte.
 *
 * @module
 */
import { xdr } from "@stellar/stellar-sdk";
import { addressFromScAddress } from "../keys.ts";
import { encodeScAddress } from "../xdr_fast.ts";
import {
  body,
  boolVal,
  ERR_CODE_NAME,
  ERR_TYPE_NAME,
  ErrCode,
  errorVal,
  ErrType,
  fitsI56,
  fitsU56,
  i32Val,
  isObjectTag,
  major,
  minor,
  sbody,
  small,
  smallSymbol,
  smallSymbolBytes,
  Tag,
  tagOf,
  u32Val,
  validSymbol,
  VOID,
} from "./val.ts";

// deno-lint-ignore no-explicit-any
type Any = any;

/** A host object. */
export type HostObject =
  | { t: 64 | 65 | 66 | 67 | 68 | 69 | 70 | 71; n: bigint }
  | { t: 72 | 73 | 74; b: Uint8Array }
  | { t: 75; v: bigint[] }
  | { t: 76; k: bigint[]; v: bigint[] }
  | { t: 77 | 78; a: xdr.ScAddress; s?: string };

/** A host error raised by object operations: `Error(type, code)` plus a message. */
export class ValError extends Error {
  constructor(readonly type: string, readonly code: string, msg: string) {
    super(msg);
  }
}

export function valErr(type: string, code: string, msg: string): ValError {
  return new ValError(type, code, msg);
}

const SCV_RANK: Record<number, number> = {
  [Tag.False]: 0,
  [Tag.True]: 0,
  [Tag.Void]: 1,
  [Tag.Error]: 2,
  [Tag.U32]: 3,
  [Tag.I32]: 4,
  [Tag.U64Small]: 5,
  [Tag.U64Object]: 5,
  [Tag.I64Small]: 6,
  [Tag.I64Object]: 6,
  [Tag.TimepointSmall]: 7,
  [Tag.TimepointObject]: 7,
  [Tag.DurationSmall]: 8,
  [Tag.DurationObject]: 8,
  [Tag.U128Small]: 9,
  [Tag.U128Object]: 9,
  [Tag.I128Small]: 10,
  [Tag.I128Object]: 10,
  [Tag.U256Small]: 11,
  [Tag.U256Object]: 11,
  [Tag.I256Small]: 12,
  [Tag.I256Object]: 12,
  [Tag.BytesObject]: 13,
  [Tag.StringObject]: 14,
  [Tag.SymbolSmall]: 15,
  [Tag.SymbolObject]: 15,
  [Tag.VecObject]: 16,
  [Tag.MapObject]: 17,
  [Tag.AddressObject]: 18,
  [Tag.MuxedAddressObject]: 18,
};

/** Small tag ↔ object tag of the numeric kinds. */
const SMALL_OF_OBJ: Record<number, number> = {
  64: 6,
  65: 7,
  66: 8,
  67: 9,
  68: 10,
  69: 11,
  70: 12,
  71: 13,
};
const OBJ_OF_SMALL: Record<number, number> = {
  6: 64,
  7: 65,
  8: 66,
  9: 67,
  10: 68,
  11: 69,
  12: 70,
  13: 71,
};
const SIGNED_SMALL = new Set<number>([Tag.I64Small, Tag.I128Small, Tag.I256Small]);

function cmpBig(a: bigint, b: bigint): number {
  return a === b ? 0 : a < b ? -1 : 1;
}

function cmpBytes(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return a[i] < b[i] ? -1 : 1;
  return a.length === b.length ? 0 : a.length < b.length ? -1 : 1;
}

const M64 = (1n << 64n) - 1n;

/** Memory host objects of one invocation may hold (the real host's budget is 40 MiB). */
export const MEMORY_LIMIT = 40 * 1024 * 1024;

/** The host-wide object table of one invocation. */
export class ObjectStore {
  readonly objs: HostObject[] = [];
  /** Count of objects created (for metering). */
  get size(): number {
    return this.objs.length;
  }

  /** Bytes held by host objects (bounded, as the real host's memory budget). */
  memBytes = 0;

  /** Adds an object and returns its absolute Val. */
  add(o: HostObject): bigint {
    const size = "b" in o
      ? o.b.length
      : "k" in o
      ? 16 * o.k.length
      : "v" in o
      ? 8 * o.v.length
      : 16;
    this.memBytes += size + 32;
    if (this.memBytes > MEMORY_LIMIT) {
      throw valErr("Budget", "ExceededLimit", "host object memory limit exceeded");
    }
    const i = this.objs.length;
    this.objs.push(o);
    return (BigInt(i) << 32n) | BigInt(o.t);
  }

  /** The object of an absolute object Val (checking its tag). */
  get(v: bigint, tag?: number): HostObject {
    const t = tagOf(v);
    if (!isObjectTag(t)) throw valErr("Value", "UnexpectedType", "expected an object");
    if (tag !== undefined && t !== tag) {
      throw valErr("Value", "UnexpectedType", `expected object tag ${tag}, got ${t}`);
    }
    const o = this.objs[major(v)];
    if (!o || o.t !== t) throw valErr("Object", "MissingValue", "unknown object reference");
    return o;
  }

  bytes(v: bigint, tag: number = Tag.BytesObject): Uint8Array {
    return (this.get(v, tag) as { b: Uint8Array }).b;
  }

  vec(v: bigint): bigint[] {
    return (this.get(v, Tag.VecObject) as { v: bigint[] }).v;
  }

  map(v: bigint): { k: bigint[]; v: bigint[] } {
    return this.get(v, Tag.MapObject) as { k: bigint[]; v: bigint[] };
  }

  address(v: bigint): xdr.ScAddress {
    return (this.get(v, Tag.AddressObject) as { a: xdr.ScAddress }).a;
  }

  /** Strkey of an AddressObject. */
  addressStr(v: bigint): string {
    const o = this.get(v, Tag.AddressObject) as { a: xdr.ScAddress; s?: string };
    if (o.s === undefined) o.s = addressFromScAddress(o.a);
    return o.s;
  }

  newBytes(b: Uint8Array, tag: 72 | 73 | 74 = 72): bigint {
    return this.add({ t: tag, b });
  }

  newVec(v: bigint[]): bigint {
    return this.add({ t: 75, v });
  }

  newAddress(a: xdr.ScAddress, s?: string): bigint {
    return this.add({ t: 77, a, s });
  }

  /** A symbol Val (small when it fits). */
  symbol(b: Uint8Array): bigint {
    if (!validSymbol(b)) throw valErr("Value", "InvalidInput", "invalid symbol");
    return smallSymbol(b) ?? this.newBytes(b, 74);
  }

  /** Bytes of a Symbol Val (small or object). */
  symbolBytes(v: bigint): Uint8Array {
    const t = tagOf(v);
    if (t === Tag.SymbolSmall) return smallSymbolBytes(v);
    return this.bytes(v, Tag.SymbolObject);
  }

  // --- Numbers ---------------------------------------------------------------------------

  /** A number Val of kind `objTag` (small form when it fits). */
  num(objTag: number, n: bigint): bigint {
    const st = SMALL_OF_OBJ[objTag];
    const fits = SIGNED_SMALL.has(st) ? fitsI56(n) : fitsU56(n);
    if (fits) return small(st, n);
    return this.add({ t: objTag as 64, n });
  }

  /** The numeric value of a number Val of kind `objTag` (small or object). */
  numOf(v: bigint, objTag: number): bigint {
    const t = tagOf(v);
    if (t === objTag) return (this.get(v, objTag) as { n: bigint }).n;
    if (t === SMALL_OF_OBJ[objTag]) return SIGNED_SMALL.has(t) ? sbody(v) : body(v);
    throw valErr("Value", "UnexpectedType", `expected a number of tag ${objTag}, got ${t}`);
  }

  // --- Ordering --------------------------------------------------------------------------

  /** The host's total order on Vals (the ScVal order). */
  compare(a: bigint, b: bigint): number {
    if (a === b) {
      const t = tagOf(a);
      if (!isObjectTag(t)) return 0;
    }
    const ta = tagOf(a);
    const tb = tagOf(b);
    const ra = SCV_RANK[ta];
    const rb = SCV_RANK[tb];
    if (ra === undefined || rb === undefined) {
      throw valErr("Value", "InvalidInput", "invalid Val tag");
    }
    if (ra !== rb) return ra < rb ? -1 : 1;
    switch (ra) {
      case 0:
        return cmpBig(BigInt(ta), BigInt(tb));
      case 1:
        return 0;
      case 2: // errors: by type, then code (ScError order)
        return cmpBig(BigInt(minor(a)), BigInt(minor(b))) ||
          cmpBig(BigInt(major(a)), BigInt(major(b)));
      case 3:
        return cmpBig(BigInt(major(a)), BigInt(major(b)));
      case 4:
        return cmpBig(BigInt(major(a) | 0), BigInt(major(b) | 0));
      case 5:
      case 6:
      case 7:
      case 8:
      case 9:
      case 10:
      case 11:
      case 12: {
        const objTag = ta >= 64 ? ta : OBJ_OF_SMALL[ta];
        return cmpBig(this.numOf(a, objTag), this.numOf(b, objTag));
      }
      case 13:
        return cmpBytes(this.bytes(a), this.bytes(b));
      case 14:
        return cmpBytes(this.bytes(a, Tag.StringObject), this.bytes(b, Tag.StringObject));
      case 15:
        return cmpBytes(this.symbolBytes(a), this.symbolBytes(b));
      case 16: {
        const x = this.vec(a);
        const y = this.vec(b);
        const n = Math.min(x.length, y.length);
        for (let i = 0; i < n; i++) {
          const c = this.compare(x[i], y[i]);
          if (c !== 0) return c;
        }
        return cmpBig(BigInt(x.length), BigInt(y.length));
      }
      case 17: {
        const x = this.map(a);
        const y = this.map(b);
        const n = Math.min(x.k.length, y.k.length);
        for (let i = 0; i < n; i++) {
          const c = this.compare(x.k[i], y.k[i]) || this.compare(x.v[i], y.v[i]);
          if (c !== 0) return c;
        }
        return cmpBig(BigInt(x.k.length), BigInt(y.k.length));
      }
      default: {
        const x = (this.get(a) as { a: xdr.ScAddress }).a;
        const y = (this.get(b) as { a: xdr.ScAddress }).a;
        return cmpBytes(encodeScAddress(x), encodeScAddress(y));
      }
    }
  }

  /** Index of `key` in a sorted key array, or -(insertion point) - 1. */
  search(keys: bigint[], key: bigint): number {
    let lo = 0;
    let hi = keys.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const c = this.compare(keys[mid], key);
      if (c === 0) return mid;
      if (c < 0) lo = mid + 1;
      else hi = mid - 1;
    }
    return -lo - 1;
  }

  /** A new map from unsorted entries (duplicate keys: the last wins unless `strict`). */
  newMap(keys: bigint[], vals: bigint[], strict = false): bigint {
    const idx = keys.map((_, i) => i);
    idx.sort((i, j) => this.compare(keys[i], keys[j]) || i - j);
    const k: bigint[] = [];
    const v: bigint[] = [];
    for (const i of idx) {
      if (k.length > 0 && this.compare(k[k.length - 1], keys[i]) === 0) {
        if (strict) throw valErr("Object", "InvalidInput", "duplicate map key");
        v[v.length - 1] = vals[i];
        continue;
      }
      k.push(keys[i]);
      v.push(vals[i]);
    }
    return this.add({ t: 76, k, v });
  }

  // --- ScVal conversion ------------------------------------------------------------------

  /** ScVal → absolute Val. */
  fromScVal(s: xdr.ScVal): bigint {
    const x = s as Any;
    switch (s.type) {
      case "scvBool":
        return boolVal(x.b);
      case "scvVoid":
        return VOID;
      case "scvError": {
        const e = x.error.toXdrObject();
        if (e.type === 0) return errorVal(0, e.contractCode);
        return errorVal(e.type, e.code);
      }
      case "scvU32":
        return u32Val(x.u32);
      case "scvI32":
        return i32Val(x.i32);
      case "scvU64":
        return this.num(64, BigInt(x.u64));
      case "scvI64":
        return this.num(65, BigInt(x.i64));
      case "scvTimepoint":
        return this.num(66, BigInt(x.timepoint));
      case "scvDuration":
        return this.num(67, BigInt(x.duration));
      case "scvU128":
        return this.num(68, (BigInt(x.u128.hi) << 64n) | (BigInt(x.u128.lo) & M64));
      case "scvI128":
        return this.num(69, (BigInt(x.i128.hi) << 64n) | (BigInt(x.i128.lo) & M64));
      case "scvU256":
      case "scvI256": {
        const p = s.type === "scvU256" ? x.u256 : x.i256;
        const n = (BigInt(p.hiHi) << 192n) | ((BigInt(p.hiLo) & M64) << 128n) |
          ((BigInt(p.loHi) & M64) << 64n) | (BigInt(p.loLo) & M64);
        return s.type === "scvU256" ? this.num(70, n) : this.num(71, n);
      }
      case "scvBytes":
        return this.newBytes(Uint8Array.from(x.bytes.value ?? x.bytes));
      case "scvString":
        return this.newBytes(Uint8Array.from(x.str.bytes ?? x.str), 73);
      case "scvSymbol": {
        const b: Uint8Array = x.sym.bytes ?? new TextEncoder().encode(String(x.sym));
        return smallSymbol(b) ?? this.newBytes(Uint8Array.from(b), 74);
      }
      case "scvVec":
        return this.newVec(((x.vec ?? []) as xdr.ScVal[]).map((e) => this.fromScVal(e)));
      case "scvMap": {
        const entries = (x.map ?? []) as xdr.ScMapEntry[];
        return this.newMap(
          entries.map((e) => this.fromScVal(e.key)),
          entries.map((e) => this.fromScVal(e.val)),
          true,
        );
      }
      case "scvAddress": {
        const a = x.address as xdr.ScAddress;
        if (a.type === "scAddressTypeMuxedAccount") return this.add({ t: 78, a });
        return this.newAddress(a);
      }
      default:
        throw valErr("Value", "UnexpectedType", `${s.type} cannot be a contract value`);
    }
  }

  /** Absolute Val → ScVal. */
  toScVal(v: bigint): xdr.ScVal {
    const t = tagOf(v);
    switch (t) {
      case Tag.False:
      case Tag.True:
        if (body(v) !== 0n) break;
        return xdr.ScVal.scvBool(t === Tag.True);
      case Tag.Void:
        if (body(v) !== 0n) break;
        return xdr.ScVal.scvVoid();
      case Tag.Error: {
        const type = minor(v);
        const code = major(v);
        if (type === 0) return xdr.ScVal.scvError(xdr.ScError.sceContract(code) as Any);
        if (type >= ERR_TYPE_NAME.length || code >= ERR_CODE_NAME.length) break;
        return xdr.ScVal.fromXdrObject({ type: 2, error: { type, code } } as Any);
      }
      case Tag.U32:
        if (minor(v) !== 0) break;
        return xdr.ScVal.scvU32(major(v));
      case Tag.I32:
        if (minor(v) !== 0) break;
        return xdr.ScVal.scvI32(major(v) | 0);
      case Tag.SymbolSmall:
        return xdr.ScVal.scvSymbol(smallSymbolBytes(v) as Any);
      case Tag.U64Small:
      case Tag.U64Object:
        return xdr.ScVal.scvU64(this.numOf(v, 64) as Any);
      case Tag.I64Small:
      case Tag.I64Object:
        return xdr.ScVal.scvI64(this.numOf(v, 65) as Any);
      case Tag.TimepointSmall:
      case Tag.TimepointObject:
        return xdr.ScVal.scvTimepoint(this.numOf(v, 66) as Any);
      case Tag.DurationSmall:
      case Tag.DurationObject:
        return xdr.ScVal.scvDuration(this.numOf(v, 67) as Any);
      case Tag.U128Small:
      case Tag.U128Object: {
        const n = this.numOf(v, 68);
        return xdr.ScVal.fromXdrObject({ type: 9, u128: { hi: n >> 64n, lo: n & M64 } } as Any);
      }
      case Tag.I128Small:
      case Tag.I128Object: {
        const n = this.numOf(v, 69);
        return xdr.ScVal.fromXdrObject(
          { type: 10, i128: { hi: BigInt.asIntN(64, n >> 64n), lo: n & M64 } } as Any,
        );
      }
      case Tag.U256Small:
      case Tag.U256Object:
      case Tag.I256Small:
      case Tag.I256Object: {
        const signed = t === Tag.I256Small || t === Tag.I256Object;
        const n = this.numOf(v, signed ? 71 : 70);
        const parts = {
          hiHi: signed ? BigInt.asIntN(64, n >> 192n) : (n >> 192n) & M64,
          hiLo: (n >> 128n) & M64,
          loHi: (n >> 64n) & M64,
          loLo: n & M64,
        };
        return xdr.ScVal.fromXdrObject(
          signed ? { type: 12, i256: parts } as Any : { type: 11, u256: parts } as Any,
        );
      }
      case Tag.BytesObject:
        return xdr.ScVal.scvBytes(this.bytes(v) as Any);
      case Tag.StringObject:
        return xdr.ScVal.scvString(this.bytes(v, 73) as Any);
      case Tag.SymbolObject:
        return xdr.ScVal.scvSymbol(this.bytes(v, 74) as Any);
      case Tag.VecObject:
        return xdr.ScVal.scvVec(this.vec(v).map((e) => this.toScVal(e)));
      case Tag.MapObject: {
        const m = this.map(v);
        return xdr.ScVal.scvMap(
          m.k.map((k, i) =>
            new xdr.ScMapEntry({ key: this.toScVal(k), val: this.toScVal(m.v[i]) })
          ),
        );
      }
      case Tag.AddressObject:
      case Tag.MuxedAddressObject:
        return xdr.ScVal.scvAddress((this.get(v) as { a: xdr.ScAddress }).a);
    }
    throw valErr("Value", "InvalidInput", `invalid Val (tag ${t})`);
  }

  /** Checks that a Val is well-formed (valid tag, live object). */
  check(v: bigint): void {
    const t = tagOf(v);
    if (isObjectTag(t)) this.get(v);
    else if (SCV_RANK[t] === undefined) throw valErr("Value", "InvalidInput", "invalid Val tag");
  }
}

/** Error type/code of an Error Val. */
export function errorOfVal(v: bigint): { type: string; code: number | string } {
  const type = minor(v);
  const code = major(v);
  if (type === 0) return { type: "Contract", code };
  return { type: ERR_TYPE_NAME[type] ?? "Context", code: ERR_CODE_NAME[code] ?? "InternalError" };
}

/** An Error Val from names. */
export function errorValOf(type: string, code: number | string): bigint {
  if (type === "Contract") return errorVal(0, Number(code));
  return errorVal(ErrType[type] ?? 2, ErrCode[String(code)] ?? 7);
}

/**
 * The handle table of one Wasm frame: relative handles (what the guest sees) ↔ absolute
 * object Vals. A handle is valid only in the frame that received it.
 */
export class FrameHandles {
  private readonly abs: bigint[] = [];
  private readonly rel = new Map<bigint, bigint>();

  constructor(readonly store: ObjectStore) {}

  /** Guest Val → absolute Val (objects resolved through this frame's table). */
  toAbs(v: bigint): bigint {
    const t = tagOf(v);
    if (!isObjectTag(t)) return v;
    if (minor(v) !== 0) throw valErr("Value", "InvalidInput", "invalid object Val");
    const a = this.abs[major(v)];
    // The real host's relative_to_absolute: both cases are the guest's invalid input.
    if (a === undefined) throw valErr("Value", "InvalidInput", "unknown relative object reference");
    if (tagOf(a) !== t) {
      throw valErr("Value", "InvalidInput", "relative and absolute object types differ");
    }
    return a;
  }

  /** Absolute Val → guest Val. */
  toRel(v: bigint): bigint {
    const t = tagOf(v);
    if (!isObjectTag(t)) return v;
    let r = this.rel.get(v);
    if (r === undefined) {
      r = (BigInt(this.abs.length) << 32n) | BigInt(t);
      this.abs.push(v);
      this.rel.set(v, r);
    }
    return r;
  }
}
