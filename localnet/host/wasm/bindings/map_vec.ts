/**
 * Modules `m` (map) and `v` (vec). Host objects are immutable: every "mutation" returns a new
 * object. Maps stay sorted by the host's Val order.
 *
 * @module
 */
import { hf, type HostFn, type VmCtx } from "../ctx.ts";
import { valErr } from "../objects.ts";
import { Tag, VOID } from "../val.ts";

function mapOf(c: VmCtx, m: bigint): { k: bigint[]; v: bigint[] } {
  return c.store.map(c.obj(m, Tag.MapObject));
}

function newMapSorted(c: VmCtx, k: bigint[], v: bigint[]): bigint {
  return c.rel(c.store.add({ t: 76, k, v }));
}

function newVec(c: VmCtx, v: bigint[]): bigint {
  return c.rel(c.store.newVec(v));
}

function checkVal(c: VmCtx, v: bigint): bigint {
  const a = c.abs(v);
  c.store.check(a);
  return a;
}

const oob = () => valErr("Object", "IndexBounds", "index out of bounds");

/** Reads `len` (ptr, len) slices at `pos` as byte strings. */
export function readSlices(c: VmCtx, pos: number, len: number): Uint8Array[] {
  const dv = c.memView();
  c.memSlice(pos, len * 8);
  const out: Uint8Array[] = [];
  for (let i = 0; i < len; i++) {
    const p = dv.getUint32(pos + i * 8, true);
    const l = dv.getUint32(pos + i * 8 + 4, true);
    out.push(c.memSlice(p, l));
  }
  return out;
}

function readVals(c: VmCtx, pos: number, len: number): bigint[] {
  c.memSlice(pos, len * 8);
  const dv = c.memView();
  const out: bigint[] = [];
  for (let i = 0; i < len; i++) out.push(checkVal(c, dv.getBigUint64(pos + i * 8, true)));
  return out;
}

function writeVals(c: VmCtx, pos: number, vals: bigint[]): void {
  c.memSlice(pos, vals.length * 8);
  const dv = c.memView();
  vals.forEach((v, i) => dv.setBigUint64(pos + i * 8, c.rel(v), true));
}

function bytesEq(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

export const MAP: [string, HostFn][] = [
  ["_", hf("map_new", 0, (c) => newMapSorted(c, [], []))],
  [
    "0",
    hf("map_put", 3, (c, m, k, v) => {
      const map = mapOf(c, m);
      const key = checkVal(c, k);
      const val = checkVal(c, v);
      const i = c.store.search(map.k, key);
      const keys = map.k.slice();
      const vals = map.v.slice();
      if (i >= 0) vals[i] = val;
      else {
        keys.splice(-i - 1, 0, key);
        vals.splice(-i - 1, 0, val);
      }
      return newMapSorted(c, keys, vals);
    }),
  ],
  [
    "1",
    hf("map_get", 2, (c, m, k) => {
      const map = mapOf(c, m);
      const i = c.store.search(map.k, checkVal(c, k));
      if (i < 0) throw valErr("Object", "MissingValue", "map key not found");
      return c.rel(map.v[i]);
    }),
  ],
  [
    "2",
    hf("map_del", 2, (c, m, k) => {
      const map = mapOf(c, m);
      const i = c.store.search(map.k, checkVal(c, k));
      if (i < 0) throw valErr("Object", "MissingValue", "map key not found");
      const keys = map.k.slice();
      const vals = map.v.slice();
      keys.splice(i, 1);
      vals.splice(i, 1);
      return newMapSorted(c, keys, vals);
    }),
  ],
  ["3", hf("map_len", 1, (c, m) => c.u32Val(mapOf(c, m).k.length))],
  [
    "4",
    hf("map_has", 2, (c, m, k) => c.store.search(mapOf(c, m).k, checkVal(c, k)) >= 0 ? 1n : 0n),
  ],
  [
    "5",
    hf("map_key_by_pos", 2, (c, m, i) => {
      const map = mapOf(c, m);
      const n = c.u32(i);
      if (n >= map.k.length) throw oob();
      return c.rel(map.k[n]);
    }),
  ],
  [
    "6",
    hf("map_val_by_pos", 2, (c, m, i) => {
      const map = mapOf(c, m);
      const n = c.u32(i);
      if (n >= map.v.length) throw oob();
      return c.rel(map.v[n]);
    }),
  ],
  ["7", hf("map_keys", 1, (c, m) => newVec(c, mapOf(c, m).k.slice()))],
  ["8", hf("map_values", 1, (c, m) => newVec(c, mapOf(c, m).v.slice()))],
  [
    "9",
    hf("map_new_from_linear_memory", 3, (c, kp, vp, l) => {
      const len = c.u32(l);
      const keys = readSlices(c, c.u32(kp), len).map((b) => c.store.symbol(Uint8Array.from(b)));
      const vals = readVals(c, c.u32(vp), len);
      for (let i = 1; i < keys.length; i++) {
        if (c.store.compare(keys[i - 1], keys[i]) >= 0) {
          throw valErr("Object", "InvalidInput", "map keys are not in strictly increasing order");
        }
      }
      return newMapSorted(c, keys, vals);
    }),
  ],
  [
    "a",
    hf("map_unpack_to_linear_memory", 4, (c, m, kp, vp, l) => {
      const map = mapOf(c, m);
      const len = c.u32(l);
      if (map.k.length !== len) {
        throw valErr("Object", "UnexpectedSize", "differing map and slice lengths");
      }
      const names = readSlices(c, c.u32(kp), len);
      names.forEach((name, i) => {
        const t = map.k[i] & 0xffn;
        if (t !== 14n && t !== 74n) {
          throw valErr("Value", "UnexpectedType", "map key is not a symbol");
        }
        if (!bytesEq(c.store.symbolBytes(map.k[i]), name)) {
          // check_symbol_matches in the real host: a Value error.
          throw valErr("Value", "InvalidInput", "symbol mismatch");
        }
      });
      writeVals(c, c.u32(vp), map.v);
      return VOID;
    }),
  ],
];

function vecOf(c: VmCtx, v: bigint): bigint[] {
  return c.vec(v);
}

export const VEC: [string, HostFn][] = [
  ["_", hf("vec_new", 0, (c) => newVec(c, []))],
  [
    "0",
    hf("vec_put", 3, (c, v, i, x) => {
      const vec = vecOf(c, v).slice();
      const n = c.u32(i);
      if (n >= vec.length) throw oob();
      vec[n] = checkVal(c, x);
      return newVec(c, vec);
    }),
  ],
  [
    "1",
    hf("vec_get", 2, (c, v, i) => {
      const vec = vecOf(c, v);
      const n = c.u32(i);
      if (n >= vec.length) throw oob();
      return c.rel(vec[n]);
    }),
  ],
  [
    "2",
    hf("vec_del", 2, (c, v, i) => {
      const vec = vecOf(c, v).slice();
      const n = c.u32(i);
      if (n >= vec.length) throw oob();
      vec.splice(n, 1);
      return newVec(c, vec);
    }),
  ],
  ["3", hf("vec_len", 1, (c, v) => c.u32Val(vecOf(c, v).length))],
  ["4", hf("vec_push_front", 2, (c, v, x) => newVec(c, [checkVal(c, x), ...vecOf(c, v)]))],
  [
    "5",
    hf("vec_pop_front", 1, (c, v) => {
      const vec = vecOf(c, v);
      if (vec.length === 0) throw oob();
      return newVec(c, vec.slice(1));
    }),
  ],
  ["6", hf("vec_push_back", 2, (c, v, x) => newVec(c, [...vecOf(c, v), checkVal(c, x)]))],
  [
    "7",
    hf("vec_pop_back", 1, (c, v) => {
      const vec = vecOf(c, v);
      if (vec.length === 0) throw oob();
      return newVec(c, vec.slice(0, -1));
    }),
  ],
  [
    "8",
    hf("vec_front", 1, (c, v) => {
      const vec = vecOf(c, v);
      if (vec.length === 0) throw oob();
      return c.rel(vec[0]);
    }),
  ],
  [
    "9",
    hf("vec_back", 1, (c, v) => {
      const vec = vecOf(c, v);
      if (vec.length === 0) throw oob();
      return c.rel(vec[vec.length - 1]);
    }),
  ],
  [
    "a",
    hf("vec_insert", 3, (c, v, i, x) => {
      const vec = vecOf(c, v).slice();
      const n = c.u32(i);
      if (n > vec.length) throw oob();
      vec.splice(n, 0, checkVal(c, x));
      return newVec(c, vec);
    }),
  ],
  ["b", hf("vec_append", 2, (c, a, b) => newVec(c, [...vecOf(c, a), ...vecOf(c, b)]))],
  [
    "c",
    hf("vec_slice", 3, (c, v, s, e) => {
      const vec = vecOf(c, v);
      const start = c.u32(s);
      const end = c.u32(e);
      if (start > end || end > vec.length) throw oob();
      return newVec(c, vec.slice(start, end));
    }),
  ],
  [
    "d",
    hf("vec_first_index_of", 2, (c, v, x) => {
      const vec = vecOf(c, v);
      const a = checkVal(c, x);
      for (let i = 0; i < vec.length; i++) if (c.store.compare(vec[i], a) === 0) return c.u32Val(i);
      return VOID;
    }),
  ],
  [
    "e",
    hf("vec_last_index_of", 2, (c, v, x) => {
      const vec = vecOf(c, v);
      const a = checkVal(c, x);
      for (let i = vec.length - 1; i >= 0; i--) {
        if (c.store.compare(vec[i], a) === 0) return c.u32Val(i);
      }
      return VOID;
    }),
  ],
  [
    "f",
    hf("vec_binary_search", 2, (c, v, x) => {
      const i = c.store.search(vecOf(c, v), checkVal(c, x));
      return i >= 0 ? (1n << 32n) | BigInt(i) : BigInt(-i - 1);
    }),
  ],
  [
    "g",
    hf("vec_new_from_linear_memory", 2, (c, p, l) => newVec(c, readVals(c, c.u32(p), c.u32(l)))),
  ],
  [
    "h",
    hf("vec_unpack_to_linear_memory", 3, (c, v, p, l) => {
      const vec = vecOf(c, v);
      if (vec.length !== c.u32(l)) {
        throw valErr("Object", "UnexpectedSize", "differing vec and slice lengths");
      }
      writeVals(c, c.u32(p), vec);
      return VOID;
    }),
  ],
];
