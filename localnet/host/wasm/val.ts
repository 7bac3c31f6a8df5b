/**
 * The 64-bit `Val` of the Soroban host interface (rs-soroban-env `val.rs`): the low 8 bits
 * are a tag, the rest a small value (body) or, for objects, a handle in the upper 32 bits.
 * Vals cross the Wasm boundary as i64 (JS `bigint`); here they are handled as unsigned.
 *
 * @module
 */

/** Tags of small values and objects. */
export const Tag = {
  False: 0,
  True: 1,
  Void: 2,
  Error: 3,
  U32: 4,
  I32: 5,
  U64Small: 6,
  I64Small: 7,
  TimepointSmall: 8,
  DurationSmall: 9,
  U128Small: 10,
  I128Small: 11,
  U256Small: 12,
  I256Small: 13,
  SymbolSmall: 14,
  U64Object: 64,
  I64Object: 65,
  TimepointObject: 66,
  DurationObject: 67,
  U128Object: 68,
  I128Object: 69,
  U256Object: 70,
  I256Object: 71,
  BytesObject: 72,
  StringObject: 73,
  SymbolObject: 74,
  VecObject: 75,
  MapObject: 76,
  AddressObject: 77,
  MuxedAddressObject: 78,
} as const;

/** ScErrorType numbers (XDR `SCErrorType`). */
export const ErrType: Record<string, number> = {
  Contract: 0,
  WasmVm: 1,
  Context: 2,
  Storage: 3,
  Object: 4,
  Crypto: 5,
  Events: 6,
  Budget: 7,
  Value: 8,
  Auth: 9,
};
/** ScErrorCode numbers (XDR `SCErrorCode`). */
export const ErrCode: Record<string, number> = {
  ArithDomain: 0,
  IndexBounds: 1,
  InvalidInput: 2,
  MissingValue: 3,
  ExistingValue: 4,
  ExceededLimit: 5,
  InvalidAction: 6,
  InternalError: 7,
  UnexpectedType: 8,
  UnexpectedSize: 9,
};
export const ERR_TYPE_NAME: string[] = Object.keys(ErrType);
export const ERR_CODE_NAME: string[] = Object.keys(ErrCode);

const M64 = (1n << 64n) - 1n;
const M56 = (1n << 56n) - 1n;

/** Unsigned view of an i64 coming from Wasm. */
export function u64(v: bigint): bigint {
  return v & M64;
}

/** Signed i64 for returning to Wasm. */
export function i64(v: bigint): bigint {
  return BigInt.asIntN(64, v);
}

/** The tag of a Val. */
export function tagOf(v: bigint): number {
  return Number(v & 0xffn);
}

/** True when the tag is an object tag. */
export function isObjectTag(t: number): boolean {
  return t >= 64 && t <= 78;
}

/** A small value with `tag` and `body` (56 bits). */
export function small(tag: number, body: bigint): bigint {
  return ((body & M56) << 8n) | BigInt(tag);
}

/** Major (upper 32 bits) / minor (bits 8..31) form. */
export function majorMinor(tag: number, major: number, minor: number): bigint {
  return (BigInt(major >>> 0) << 32n) | (BigInt(minor & 0xffffff) << 8n) | BigInt(tag);
}

export function major(v: bigint): number {
  return Number((v >> 32n) & 0xffffffffn);
}

export function minor(v: bigint): number {
  return Number((v >> 8n) & 0xffffffn);
}

/** Unsigned 56-bit body. */
export function body(v: bigint): bigint {
  return (v >> 8n) & M56;
}

/** Signed 56-bit body. */
export function sbody(v: bigint): bigint {
  return BigInt.asIntN(56, (v >> 8n) & M56);
}

export const FALSE = 0n;
export const TRUE = 1n;
export const VOID = 2n;

export function boolVal(b: boolean): bigint {
  return b ? TRUE : FALSE;
}

export function u32Val(n: number): bigint {
  return majorMinor(Tag.U32, n, 0);
}

export function i32Val(n: number): bigint {
  return majorMinor(Tag.I32, n | 0, 0);
}

/** An Error Val. */
export function errorVal(type: number, code: number): bigint {
  return majorMinor(Tag.Error, code, type);
}

/** Whether an unsigned value fits a small (56-bit) unsigned body. */
export function fitsU56(v: bigint): boolean {
  return v >= 0n && v <= M56;
}

/** Whether a signed value fits a small (56-bit) signed body. */
export function fitsI56(v: bigint): boolean {
  return v >= -(1n << 55n) && v < (1n << 55n);
}

// --- Small symbols ---------------------------------------------------------------------------

function charCode(c: number): number {
  if (c === 95) return 1; // _
  if (c >= 48 && c <= 57) return c - 48 + 2;
  if (c >= 65 && c <= 90) return c - 65 + 12;
  if (c >= 97 && c <= 122) return c - 97 + 38;
  return -1;
}

function codeChar(n: number): number {
  if (n === 1) return 95;
  if (n >= 2 && n <= 11) return n - 2 + 48;
  if (n >= 12 && n <= 37) return n - 12 + 65;
  return n - 38 + 97;
}

/** Whether a byte string is a valid symbol (`[a-zA-Z0-9_]`, ≤ 32 bytes). */
export function validSymbol(b: Uint8Array): boolean {
  if (b.length > 32) return false;
  for (const c of b) if (charCode(c) < 0) return false;
  return true;
}

/** A small symbol Val for up to 9 valid characters, else null. */
export function smallSymbol(b: Uint8Array): bigint | null {
  if (b.length > 9) return null;
  let acc = 0n;
  for (const c of b) {
    const code = charCode(c);
    if (code < 0) return null;
    acc = (acc << 6n) | BigInt(code);
  }
  return small(Tag.SymbolSmall, acc);
}

/** Bytes of a small symbol Val. */
export function smallSymbolBytes(v: bigint): Uint8Array {
  let b = body(v);
  const out: number[] = [];
  while (b !== 0n) {
    out.push(codeChar(Number(b & 63n)));
    b >>= 6n;
  }
  return Uint8Array.from(out.reverse());
}
