/**
 * Module `b` (buf): bytes, strings and symbols, their linear-memory transfers, and XDR
 * (de)serialization of Vals.
 *
 * @module
 */
import { xdr } from "@stellar/stellar-sdk";
import { hf, type HostFn, type VmCtx } from "../ctx.ts";
import { valErr } from "../objects.ts";
import { Tag, validSymbol, VOID } from "../val.ts";
import { readSlices } from "./map_vec.ts";

const oob = () => valErr("Object", "IndexBounds", "index out of bounds");

function byteArg(c: VmCtx, u: bigint): number {
  const n = c.u32(u);
  if (n > 255) throw valErr("Value", "InvalidInput", "byte value out of range");
  return n;
}

function cat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}

function copyOut(c: VmCtx, src: Uint8Array, sPos: bigint, lmPos: bigint, len: bigint): bigint {
  const s = c.u32(sPos);
  const n = c.u32(len);
  if (s + n > src.length) throw oob();
  c.memSlice(c.u32(lmPos), n).set(src.subarray(s, s + n));
  c.charge(n);
  return VOID;
}

function eq(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

export const BUF: [string, HostFn][] = [
  [
    "_",
    hf("serialize_to_bytes", 1, (c, v) => {
      const b = c.scval(v).toXdr() as Uint8Array;
      c.charge(b.length * 4);
      return c.newBytes(Uint8Array.from(b));
    }),
  ],
  [
    "0",
    hf("deserialize_from_bytes", 1, (c, b) => {
      const bytes = c.bytes(b);
      c.charge(bytes.length * 4);
      let s: xdr.ScVal;
      try {
        s = xdr.ScVal.fromXdr(bytes as never);
      } catch {
        throw valErr("Value", "InvalidInput", "invalid ScVal XDR");
      }
      return c.fromScVal(s);
    }),
  ],
  [
    "1",
    hf("bytes_copy_to_linear_memory", 4, (c, b, bp, lp, l) => copyOut(c, c.bytes(b), bp, lp, l)),
  ],
  [
    "2",
    hf("bytes_copy_from_linear_memory", 4, (c, b, bp, lp, l) => {
      const src = c.bytes(b);
      const pos = c.u32(bp);
      const n = c.u32(l);
      if (pos > src.length) throw oob();
      const out = new Uint8Array(Math.max(src.length, pos + n));
      out.set(src);
      out.set(c.memSlice(c.u32(lp), n), pos);
      c.charge(out.length);
      return c.newBytes(out);
    }),
  ],
  [
    "3",
    hf("bytes_new_from_linear_memory", 2, (c, p, l) => {
      const n = c.u32(l);
      c.charge(n);
      return c.newBytes(Uint8Array.from(c.memSlice(c.u32(p), n)));
    }),
  ],
  ["4", hf("bytes_new", 0, (c) => c.newBytes(new Uint8Array()))],
  [
    "5",
    hf("bytes_put", 3, (c, b, i, u) => {
      const out = Uint8Array.from(c.bytes(b));
      const n = c.u32(i);
      if (n >= out.length) throw oob();
      out[n] = byteArg(c, u);
      return c.newBytes(out);
    }),
  ],
  [
    "6",
    hf("bytes_get", 2, (c, b, i) => {
      const bytes = c.bytes(b);
      const n = c.u32(i);
      if (n >= bytes.length) throw oob();
      return c.u32Val(bytes[n]);
    }),
  ],
  [
    "7",
    hf("bytes_del", 2, (c, b, i) => {
      const bytes = c.bytes(b);
      const n = c.u32(i);
      if (n >= bytes.length) throw oob();
      return c.newBytes(cat(bytes.subarray(0, n), bytes.subarray(n + 1)));
    }),
  ],
  ["8", hf("bytes_len", 1, (c, b) => c.u32Val(c.bytes(b).length))],
  [
    "9",
    hf("bytes_push", 2, (c, b, u) => c.newBytes(cat(c.bytes(b), Uint8Array.of(byteArg(c, u))))),
  ],
  [
    "a",
    hf("bytes_pop", 1, (c, b) => {
      const bytes = c.bytes(b);
      if (bytes.length === 0) throw oob();
      return c.newBytes(bytes.slice(0, -1));
    }),
  ],
  [
    "b",
    hf("bytes_front", 1, (c, b) => {
      const bytes = c.bytes(b);
      if (bytes.length === 0) throw oob();
      return c.u32Val(bytes[0]);
    }),
  ],
  [
    "c",
    hf("bytes_back", 1, (c, b) => {
      const bytes = c.bytes(b);
      if (bytes.length === 0) throw oob();
      return c.u32Val(bytes[bytes.length - 1]);
    }),
  ],
  [
    "d",
    hf("bytes_insert", 3, (c, b, i, u) => {
      const bytes = c.bytes(b);
      const n = c.u32(i);
      if (n > bytes.length) throw oob();
      return c.newBytes(
        cat(cat(bytes.subarray(0, n), Uint8Array.of(byteArg(c, u))), bytes.subarray(n)),
      );
    }),
  ],
  ["e", hf("bytes_append", 2, (c, a, b) => c.newBytes(cat(c.bytes(a), c.bytes(b))))],
  [
    "f",
    hf("bytes_slice", 3, (c, b, s, e) => {
      const bytes = c.bytes(b);
      const start = c.u32(s);
      const end = c.u32(e);
      if (start > end || end > bytes.length) throw oob();
      return c.newBytes(bytes.slice(start, end));
    }),
  ],
  [
    "g",
    hf(
      "string_copy_to_linear_memory",
      4,
      (c, s, sp, lp, l) =>
        copyOut(c, c.store.bytes(c.obj(s, Tag.StringObject), Tag.StringObject), sp, lp, l),
    ),
  ],
  [
    "h",
    hf(
      "symbol_copy_to_linear_memory",
      4,
      (c, s, sp, lp, l) =>
        copyOut(c, c.store.bytes(c.obj(s, Tag.SymbolObject), Tag.SymbolObject), sp, lp, l),
    ),
  ],
  [
    "i",
    hf("string_new_from_linear_memory", 2, (c, p, l) => {
      const n = c.u32(l);
      c.charge(n);
      return c.newBytes(Uint8Array.from(c.memSlice(c.u32(p), n)), 73);
    }),
  ],
  [
    "j",
    hf("symbol_new_from_linear_memory", 2, (c, p, l) => {
      const b = Uint8Array.from(c.memSlice(c.u32(p), c.u32(l)));
      if (!validSymbol(b)) throw valErr("Value", "InvalidInput", "invalid symbol characters");
      return c.newBytes(b, 74);
    }),
  ],
  [
    "k",
    hf(
      "string_len",
      1,
      (c, s) => c.u32Val(c.store.bytes(c.obj(s, Tag.StringObject), Tag.StringObject).length),
    ),
  ],
  [
    "l",
    hf(
      "symbol_len",
      1,
      (c, s) => c.u32Val(c.store.bytes(c.obj(s, Tag.SymbolObject), Tag.SymbolObject).length),
    ),
  ],
  [
    "m",
    hf("symbol_index_in_linear_memory", 3, (c, s, p, l) => {
      const t = Number(s & 0xffn);
      if (t !== Tag.SymbolSmall && t !== Tag.SymbolObject) {
        throw valErr("Value", "InvalidInput", "expected a Symbol");
      }
      const name = c.store.symbolBytes(c.abs(s));
      const slices = readSlices(c, c.u32(p), c.u32(l));
      for (let i = 0; i < slices.length; i++) if (eq(slices[i], name)) return c.u32Val(i);
      throw valErr("Value", "MissingValue", "symbol not found in linear memory slices");
    }),
  ],
  [
    "n",
    hf(
      "string_to_bytes",
      1,
      (c, s) =>
        c.newBytes(Uint8Array.from(c.store.bytes(c.obj(s, Tag.StringObject), Tag.StringObject))),
      23,
    ),
  ],
  ["o", hf("bytes_to_string", 1, (c, b) => c.newBytes(Uint8Array.from(c.bytes(b)), 73), 23)],
];
