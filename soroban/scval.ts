/**
 * ScVal helpers for call arguments and results (stellar-sdk 17).
 *
 * @module
 */
import { Address, nativeToScVal, scValToNative, xdr } from "@stellar/stellar-sdk";

/** Encoders for contract call arguments. */
export const sv = {
  address: (a: string): xdr.ScVal => new Address(a).toScVal(),
  i128: (n: bigint): xdr.ScVal => nativeToScVal(n, { type: "i128" }),
  u64: (n: bigint | number): xdr.ScVal => nativeToScVal(BigInt(n), { type: "u64" }),
  u32: (n: number): xdr.ScVal => xdr.ScVal.scvU32(n),
  bool: (b: boolean): xdr.ScVal => xdr.ScVal.scvBool(b),
  string: (s: string): xdr.ScVal => xdr.ScVal.scvString(s),
  symbol: (s: string): xdr.ScVal => xdr.ScVal.scvSymbol(s),
  vec: (items: xdr.ScVal[]): xdr.ScVal => xdr.ScVal.scvVec(items),
  addresses: (as: string[]): xdr.ScVal => xdr.ScVal.scvVec(as.map((a) => new Address(a).toScVal())),
  /** A Rust enum tuple variant: `Vec[Symbol(tag), …values]`. */
  variant: (tag: string, ...values: xdr.ScVal[]): xdr.ScVal =>
    xdr.ScVal.scvVec([xdr.ScVal.scvSymbol(tag), ...values]),
  /** A struct: ScMap with Symbol keys sorted bytewise (as soroban `#[contracttype]` writes it). */
  struct: (fields: Record<string, xdr.ScVal>): xdr.ScVal =>
    xdr.ScVal.scvMap(
      Object.keys(fields).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)).map((k) =>
        new xdr.ScMapEntry({ key: xdr.ScVal.scvSymbol(k), val: fields[k] })
      ),
    ),
};

/** Decodes any ScVal into plain JS (i128/u64 → bigint, Address → string, map → object). */
export function native<T = unknown>(v: xdr.ScVal): T {
  return scValToNative(v) as T;
}

/** Decodes a base64 ScVal. */
export function nativeB64<T = unknown>(b64: string): T {
  return scValToNative(xdr.ScVal.fromXDR(b64, "base64")) as T;
}

/** Coerces a decoded integer (number or bigint) to bigint. */
export function big(v: unknown): bigint {
  if (typeof v === "bigint") return v;
  if (typeof v === "number") return BigInt(Math.trunc(v));
  if (typeof v === "string" && /^-?\d+$/.test(v)) return BigInt(v);
  throw new TypeError(`not an integer: ${String(v)}`);
}
