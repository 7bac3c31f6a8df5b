// Val encoding (soroban-env-common val.rs): low 8 bits are the tag, the rest a small value or
// (for objects) a host handle in the upper 32 bits.
import * as env from "./env";

export const TAG_FALSE: u64 = 0;
export const TAG_TRUE: u64 = 1;
export const TAG_VOID: u64 = 2;
export const TAG_ERROR: u64 = 3;
export const TAG_U32: u64 = 4;
export const TAG_I32: u64 = 5;
export const TAG_U64_SMALL: u64 = 6;
export const TAG_I64_SMALL: u64 = 7;
export const TAG_U128_SMALL: u64 = 10;
export const TAG_I128_SMALL: u64 = 11;
export const TAG_U256_SMALL: u64 = 12;
export const TAG_I256_SMALL: u64 = 13;
export const TAG_SYMBOL_SMALL: u64 = 14;
export const TAG_U64_OBJ: u64 = 64;
export const TAG_U128_OBJ: u64 = 68;
export const TAG_I128_OBJ: u64 = 69;
export const TAG_U256_OBJ: u64 = 70;
export const TAG_I256_OBJ: u64 = 71;
export const TAG_STRING_OBJ: u64 = 73;
export const TAG_SYMBOL_OBJ: u64 = 74;
export const TAG_VEC_OBJ: u64 = 75;
export const TAG_MAP_OBJ: u64 = 76;
export const TAG_ADDRESS_OBJ: u64 = 77;

export const VOID: u64 = TAG_VOID;
export const TRUE: u64 = TAG_TRUE;
export const FALSE: u64 = TAG_FALSE;

/** The largest value a small (56-bit) U64/U128 body holds. */
const SMALL_MAX: u64 = (1 << 56) - 1;

// @ts-ignore: decorator
@inline export function tagOf(v: u64): u64 {
  return v & 0xff;
}

/** Traps (a host-visible WasmVm error) when `v` does not carry `tag`: a malformed argument. */
export function expectTag(v: u64, tag: u64): u64 {
  if (tagOf(v) != tag) unreachable();
  return v;
}

/** Fails the invocation with `Error(Contract, #code)`; never returns. */
export function fail(code: u32): void {
  env.fail_with_error(((code as u64) << 32) | TAG_ERROR); // ScErrorType::Contract = 0
  unreachable();
}

// --- scalars

export function fromBool(b: bool): u64 {
  return b ? TRUE : FALSE;
}

export function toBool(v: u64): bool {
  if (v == TRUE) return true;
  if (v == FALSE) return false;
  unreachable();
  return false;
}

export function fromU32(x: u32): u64 {
  return ((x as u64) << 32) | TAG_U32;
}

export function toU32(v: u64): u32 {
  expectTag(v, TAG_U32);
  return (v >> 32) as u32;
}

export function fromU64(x: u64): u64 {
  return x <= SMALL_MAX ? (x << 8) | TAG_U64_SMALL : env.obj_from_u64(x);
}

export function toU64(v: u64): u64 {
  const t = tagOf(v);
  if (t == TAG_U64_SMALL) return v >> 8;
  if (t == TAG_U64_OBJ) return env.obj_to_u64(v);
  unreachable();
  return 0;
}

export function isAddress(v: u64): bool {
  return tagOf(v) == TAG_ADDRESS_OBJ;
}

export function expectAddress(v: u64): u64 {
  return expectTag(v, TAG_ADDRESS_OBJ);
}

/**
 * Structural equality of two Vals (objects compared by value, as the host orders them). Two
 * small values are equal exactly when their bits are (the host keeps every value in its canonical
 * form), and the real host refuses `obj_cmp` of two non-objects (`Error(Value, UnexpectedType)`),
 * so it is asked only when one side is an object.
 */
export function valEq(a: u64, b: u64): bool {
  if (a == b) return true;
  if (tagOf(a) < TAG_U64_OBJ && tagOf(b) < TAG_U64_OBJ) return false;
  return env.obj_cmp(a, b) == 0;
}

// --- symbols

function symbolChar(c: i32): u64 {
  if (c == 95) return 1; // _
  if (c >= 48 && c <= 57) return (c - 48 + 2) as u64; // 0-9
  if (c >= 65 && c <= 90) return (c - 65 + 12) as u64; // A-Z
  if (c >= 97 && c <= 122) return (c - 97 + 38) as u64; // a-z
  unreachable();
  return 0;
}

/** Writes the ASCII bytes of `s` to fresh linear memory. */
export function asciiBytes(s: string): usize {
  const n = s.length;
  const p = heap.alloc(n > 0 ? n : 1);
  for (let i = 0; i < n; i++) store<u8>(p + i, s.charCodeAt(i) as u8);
  return p;
}

/** The Symbol Val of `s` ([a-zA-Z0-9_]): small when ≤ 9 characters, else a host object. */
export function symbol(s: string): u64 {
  const n = s.length;
  if (n <= 9) {
    let body: u64 = 0;
    for (let i = 0; i < n; i++) body = (body << 6) | symbolChar(s.charCodeAt(i));
    return (body << 8) | TAG_SYMBOL_SMALL;
  }
  return env.symbol_new_from_linear_memory(fromU32(asciiBytes(s) as u32), fromU32(n as u32));
}

// --- vectors

/** A host Vec of the given Vals. */
export function vecOf(items: StaticArray<u64>): u64 {
  return env.vec_new_from_linear_memory(
    fromU32(changetype<usize>(items) as u32),
    fromU32(items.length as u32),
  );
}

export function vec0(): u64 {
  return env.vec_new();
}

export function vec1(a: u64): u64 {
  return env.vec_push_back(env.vec_new(), a);
}

export function vec2(a: u64, b: u64): u64 {
  const v: StaticArray<u64> = [a, b];
  return vecOf(v);
}

export function vecLen(v: u64): u32 {
  return toU32(env.vec_len(expectTag(v, TAG_VEC_OBJ)));
}

export function vecGet(v: u64, i: u32): u64 {
  return env.vec_get(v, fromU32(i));
}

/** Whether Vec `v` holds a Val equal to `x`. */
export function vecContains(v: u64, x: u64): bool {
  return env.vec_first_index_of(expectTag(v, TAG_VEC_OBJ), x) != TAG_VOID;
}

/** A Rust `#[contracttype]` enum variant: `Vec[Symbol(name), payload...]`. */
export function variant0(name: string): u64 {
  return vec1(symbol(name));
}

export function variant1(name: string, payload: u64): u64 {
  return vec2(symbol(name), payload);
}

/** The value of key `k` in map `m` (traps when absent). */
export function mapGet(m: u64, k: u64): u64 {
  return env.map_get(expectTag(m, TAG_MAP_OBJ), k);
}

// --- structs (Rust #[contracttype] structs are ScMaps keyed by field-name Symbols, sorted)

/**
 * The field layout of a struct: field names in sorted (byte) order, given comma-separated.
 * Encodes and decodes with `map_new_from_linear_memory` / `map_unpack_to_linear_memory`,
 * as the Rust SDK does.
 */
export class Schema {
  readonly n: i32;
  readonly slices: usize; // n × (u32 pos, u32 len) of the UTF-8 field names

  constructor(fields: string) {
    let n = 1;
    for (let i = 0; i < fields.length; i++) if (fields.charCodeAt(i) == 44) n++;
    this.n = n;
    this.slices = heap.alloc(n * 8);
    const bytes = asciiBytes(fields);
    let start = 0;
    let k = 0;
    for (let i = 0; i <= fields.length; i++) {
      if (i == fields.length || fields.charCodeAt(i) == 44) {
        store<u32>(this.slices + k * 8, (bytes + start) as u32);
        store<u32>(this.slices + k * 8 + 4, (i - start) as u32);
        k++;
        start = i + 1;
      }
    }
  }

  /** A fresh value array for this struct. */
  values(): StaticArray<u64> {
    return new StaticArray<u64>(this.n);
  }

  encode(vals: StaticArray<u64>): u64 {
    if (vals.length != this.n) unreachable();
    return env.map_new_from_linear_memory(
      fromU32(this.slices as u32),
      fromU32(changetype<usize>(vals) as u32),
      fromU32(this.n as u32),
    );
  }

  /** Field values of a struct map in schema order; traps on a map of another shape. */
  decode(map: u64): StaticArray<u64> {
    expectTag(map, TAG_MAP_OBJ);
    if (toU32(env.map_len(map)) != (this.n as u32)) unreachable();
    const vals = this.values();
    env.map_unpack_to_linear_memory(
      map,
      fromU32(this.slices as u32),
      fromU32(changetype<usize>(vals) as u32),
      fromU32(this.n as u32),
    );
    return vals;
  }
}
