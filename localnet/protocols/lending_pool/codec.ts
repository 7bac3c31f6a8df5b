/**
 * ScVal codec helpers for the Blend-compatible stand-ins.
 *
 * Storage values are built by hand (not through the spec) so their bytes match what the
 * soroban `#[contracttype]` macro writes: structs are ScMaps with Symbol keys sorted bytewise,
 * `Map<K, V>` values are ScMaps sorted by key the way the Soroban host orders them.
 *
 * @module
 */
import { Address, nativeToScVal, scValToBigInt, StrKey, xdr } from "@stellar/stellar-sdk";

/** An ScVal with the v17 property shape (`type` plus the arm's field). */
// deno-lint-ignore no-explicit-any
type AnyScVal = any;

/** Compares two strings by their UTF-8 bytes (how Soroban orders Symbols and Strings). */
export function compareBytes(a: string, b: string): number {
  const ea = new TextEncoder().encode(a);
  const eb = new TextEncoder().encode(b);
  const n = Math.min(ea.length, eb.length);
  for (let i = 0; i < n; i++) {
    if (ea[i] !== eb[i]) return ea[i] - eb[i];
  }
  return ea.length - eb.length;
}

// Strkey encoding/decoding dominates a pool call's cost, and the same few addresses recur:
// conversions are cached (bounded; cleared wholesale when full).
const CACHE_MAX = 200_000;
const orderCache = new Map<string, Uint8Array>();
const scvCache = new Map<string, xdr.ScVal>();
const textCache = new Map<string, string>();

function remember<V>(m: Map<string, V>, k: string, v: V): V {
  if (m.size >= CACHE_MAX) m.clear();
  m.set(k, v);
  return v;
}

/** Raw ordering bytes of an address: the ScAddress XDR (discriminant first, then the key). */
function addressBytes(a: string): Uint8Array {
  return orderCache.get(a) ??
    remember(orderCache, a, new Address(a).toScAddress().toXDR() as Uint8Array);
}

/** Compares two G…/C… addresses as the Soroban host orders `Address` values. */
export function compareAddresses(a: string, b: string): number {
  const ba = addressBytes(a);
  const bb = addressBytes(b);
  const n = Math.min(ba.length, bb.length);
  for (let i = 0; i < n; i++) {
    if (ba[i] !== bb[i]) return ba[i] - bb[i];
  }
  return ba.length - bb.length;
}

const symCache = new Map<string, xdr.ScVal>();
const orderOf = new Map<string, string[]>();

/** Symbol ScVal (cached). */
function symbol(s: string): xdr.ScVal {
  return symCache.get(s) ?? remember(symCache, s, xdr.ScVal.scvSymbol(s));
}

/** A struct as `#[contracttype]` encodes it: ScMap with Symbol keys in byte order. */
export function struct(fields: Record<string, xdr.ScVal>): xdr.ScVal {
  const names = Object.keys(fields);
  const sig = names.join(",");
  let order = orderOf.get(sig);
  if (!order) order = remember(orderOf, sig, [...names].sort(compareBytes));
  return xdr.ScVal.scvMap(
    order.map((n) => new xdr.ScMapEntry({ key: symbol(n), val: fields[n] })),
  );
}

/** Reads a struct's fields by name; throws when the value is not a Symbol-keyed map. */
export function fields(v: xdr.ScVal): Record<string, xdr.ScVal> {
  const s = v as AnyScVal;
  if (s.type !== "scvMap") throw new Error(`expected a struct map, got ${s.type}`);
  const out: Record<string, xdr.ScVal> = {};
  for (const e of (s.map ?? []) as xdr.ScMapEntry[]) {
    const k = (e as AnyScVal).key;
    if (k.type !== "scvSymbol") throw new Error("struct key is not a symbol");
    out[symText(k)] = (e as AnyScVal).val;
  }
  return out;
}

/** Text of a Symbol or String ScVal. */
export function symText(v: xdr.ScVal): string {
  const s = v as AnyScVal;
  const raw = s.type === "scvSymbol" ? s.sym : s.type === "scvString" ? s.str : undefined;
  if (raw === undefined) throw new Error(`expected symbol/string, got ${s.type}`);
  if (typeof raw === "string") return raw;
  const bytes: Uint8Array | undefined = raw instanceof Uint8Array ? raw : raw.bytes;
  if (!(bytes instanceof Uint8Array)) return String(raw);
  // Symbols are short ASCII: a plain loop beats TextDecoder by far.
  let out = "";
  for (let i = 0; i < bytes.length; i++) {
    if (bytes[i] > 0x7f) return new TextDecoder().decode(bytes);
    out += String.fromCharCode(bytes[i]);
  }
  return out;
}

/** i128 ScVal. */
export const i128 = (n: bigint): xdr.ScVal => nativeToScVal(n, { type: "i128" });
/** u64 ScVal. */
export const u64 = (n: bigint): xdr.ScVal => nativeToScVal(n, { type: "u64" });
/** u32 ScVal. */
export const u32 = (n: number): xdr.ScVal => xdr.ScVal.scvU32(n);
/** Address ScVal (cached per address; ScVals are never mutated). */
export const addr = (a: string): xdr.ScVal =>
  scvCache.get(a) ?? remember(scvCache, a, new Address(a).toScVal());
/** Symbol ScVal. */
export const sym = (s: string): xdr.ScVal => symbol(s);
/** Vec ScVal. */
export const vec = (items: xdr.ScVal[]): xdr.ScVal => xdr.ScVal.scvVec(items);

/** Integer value of any integer ScVal as bigint. */
export function big(v: xdr.ScVal): bigint {
  const s = v as AnyScVal;
  if (s.type === "scvU32") return BigInt(s.u32);
  if (s.type === "scvI32") return BigInt(s.i32);
  return scValToBigInt(v);
}

/** u32 value of an integer ScVal. */
export function num(v: xdr.ScVal): number {
  return Number(big(v));
}

/** Bool value. */
export function bool(v: xdr.ScVal): boolean {
  const s = v as AnyScVal;
  if (s.type !== "scvBool") throw new Error(`expected bool, got ${s.type}`);
  return Boolean(s.b);
}

/** G…/C… text of an Address ScVal (cached by key bytes). */
export function address(v: xdr.ScVal): string {
  const a = (v as AnyScVal).address;
  if (a?.type === "scAddressTypeAccount") {
    const raw = a.accountId.ed25519.value as Uint8Array;
    const k = "G" + latin1(raw);
    return textCache.get(k) ??
      remember(textCache, k, StrKey.encodeEd25519PublicKey(raw as unknown as Buffer));
  }
  if (a?.type === "scAddressTypeContract") {
    const raw = a.contractId.value as Uint8Array;
    const k = "C" + latin1(raw);
    return textCache.get(k) ??
      remember(textCache, k, StrKey.encodeContract(raw as unknown as Buffer));
  }
  return Address.fromScVal(v).toString();
}

function latin1(b: Uint8Array): string {
  let s = "";
  for (let i = 0; i < b.length; i++) s += String.fromCharCode(b[i]);
  return s;
}

/** Items of a Vec ScVal. */
export function items(v: xdr.ScVal): xdr.ScVal[] {
  const s = v as AnyScVal;
  if (s.type !== "scvVec") throw new Error(`expected vec, got ${s.type}`);
  return (s.vec ?? []) as xdr.ScVal[];
}

/** Entries of a Map ScVal as [key, value] pairs. */
export function entries(v: xdr.ScVal): [xdr.ScVal, xdr.ScVal][] {
  const s = v as AnyScVal;
  if (s.type !== "scvMap") throw new Error(`expected map, got ${s.type}`);
  return ((s.map ?? []) as AnyScVal[]).map((e) => [e.key, e.val]);
}

/** `Map<u32, i128>` as the host stores it (ascending keys). */
export function mapU32I128(m: Map<number, bigint>): xdr.ScVal {
  const keys = [...m.keys()].sort((a, b) => a - b);
  return xdr.ScVal.scvMap(
    keys.map((k) => new xdr.ScMapEntry({ key: u32(k), val: i128(m.get(k)!) })),
  );
}

/** Decodes a `Map<u32, i128>`. */
export function readMapU32I128(v: xdr.ScVal): Map<number, bigint> {
  return new Map(entries(v).map(([k, val]) => [num(k), big(val)]));
}

/** `Map<Address, i128>` as the host stores it (ascending by address). */
export function mapAddrI128(m: Map<string, bigint>): xdr.ScVal {
  const keys = [...m.keys()].sort(compareAddresses);
  return xdr.ScVal.scvMap(
    keys.map((k) => new xdr.ScMapEntry({ key: addr(k), val: i128(m.get(k)!) })),
  );
}

/** Decodes a `Map<Address, i128>`. */
export function readMapAddrI128(v: xdr.ScVal): Map<string, bigint> {
  return new Map(entries(v).map(([k, val]) => [address(k), big(val)]));
}

/** Sorts a native map's keys the way the host orders Address keys (for iteration parity). */
export function sortedAddrMap(m: Map<string, bigint>): Map<string, bigint> {
  return new Map([...m.entries()].sort(([a], [b]) => compareAddresses(a, b)));
}
