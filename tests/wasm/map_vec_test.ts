/**
 * Host modules `m` (map) and `v` (vec) through the forwarder over JSON-RPC, including the
 * linear-memory functions soroban-sdk relies on, and map order = the ScVal order (byte-for-byte
 * ScMap round trips).
 */
import assert from "node:assert/strict";
import { xdr } from "@stellar/stellar-sdk";
import {
  addr,
  forwarder,
  fromLe,
  i32,
  native,
  num,
  str,
  sym,
  u32,
  vec,
  xdrHex,
} from "@vigil/testing/wasm/fwd_fixture";

const u32v = (n: number) => (BigInt(n) << 32n) | 4n;

function valsBytes(vals: bigint[]): Uint8Array {
  const b = new Uint8Array(vals.length * 8);
  const dv = new DataView(b.buffer);
  vals.forEach((v, i) => dv.setBigUint64(i * 8, v, true));
  return b;
}

Deno.test("map: put/get/del/has/len/pos/keys/values keep the host's key order", async () => {
  await using f = await forwarder();
  const empty = await f.hf("m._");
  assert.equal(empty.type, "scvMap");
  // Keys of mixed types inserted out of order; the result is sorted like the SDK's ScMap.
  const keys: xdr.ScVal[] = [
    sym("zeta"),
    u32(7),
    str("b"),
    num(1n << 70n, "u128"),
    xdr.ScVal.scvBool(true),
    sym("alpha"),
    num(-3, "i64"),
    addr("GAAZI4TCR3TY5OJHCTJC2A4QSY6CJWJH5IAJTGKIN2ER7LBNVKOCCWN7"),
  ];
  let m: xdr.ScVal = empty;
  for (const [i, k] of keys.entries()) m = await f.hf("m.0", m, k, u32(i));
  // The ScVal order: by type (Bool < U32 < I64 < U128 < String < Symbol < Address), then value.
  const sorted = [4, 1, 6, 3, 2, 5, 0, 7].map((i) => [keys[i], i] as const);
  const expected = xdr.ScVal.scvMap(
    sorted.map(([k, i]) => new xdr.ScMapEntry({ key: k, val: u32(i) })),
  );
  assert.equal(xdrHex(m), xdrHex(expected));
  assert.equal(native(await f.hf("m.1", m, str("b"))), 2);
  assert.match(await f.hfErr("m.1", m, str("c")), /Error\(Object, MissingValue\)/);
  const without = await f.hf("m.2", m, sym("zeta"));
  assert.equal(native(await f.hf("m.3", without)), keys.length - 1);
  assert.match(await f.hfErr("m.2", without, sym("zeta")), /MissingValue/);
  assert.equal(native(await f.hf("m.4", m, sym("alpha"))), true);
  assert.equal(native(await f.hf("m.4", without, sym("zeta"))), false);
  assert.equal(xdrHex(await f.hf("m.5", m, u32(0))), xdrHex(sorted[0][0]));
  assert.equal(native(await f.hf("m.6", m, u32(1))), sorted[1][1]);
  assert.match(await f.hfErr("m.5", m, u32(99)), /IndexBounds/);
  assert.equal(xdrHex(await f.hf("m.7", m)), xdrHex(vec(...sorted.map((s) => s[0]))));
  assert.equal(xdrHex(await f.hf("m.8", m)), xdrHex(vec(...sorted.map((s) => u32(s[1])))));
  // Overwrite keeps the length.
  const over = await f.hf("m.0", m, u32(7), str("x"));
  assert.equal(native(await f.hf("m.3", over)), keys.length);
  assert.equal(native(await f.hf("m.1", over, u32(7))), "x");
  // Passing a vec where a map is expected is a type error.
  assert.match(await f.hfErr("m.3", vec()), /Error\(Value, InvalidInput\)/);
});

Deno.test("map: new_from / unpack_to linear memory (struct encoding of soroban-sdk)", async () => {
  await using f = await forwarder();
  // Layout: slices at 0 (2 × (ptr,len)), names at 64, vals at 128.
  const data = new Uint8Array(256);
  const dv = new DataView(data.buffer);
  const names = ["amount", "owner"];
  let p = 64;
  names.forEach((n, i) => {
    data.set(new TextEncoder().encode(n), p);
    dv.setUint32(i * 8, p, true);
    dv.setUint32(i * 8 + 4, n.length, true);
    p += 16;
  });
  data.set(valsBytes([u32v(5), 2n]), 128);
  const [m] = await f.hfMem("m.9", data, u32(0), u32(128), u32(2));
  assert.deepEqual(native(m), { amount: 5, owner: null });
  assert.equal(
    xdrHex(m),
    xdrHex(xdr.ScVal.scvMap([
      new xdr.ScMapEntry({ key: sym("amount"), val: u32(5) }),
      new xdr.ScMapEntry({ key: sym("owner"), val: xdr.ScVal.scvVoid() }),
    ])),
  );
  // Unsorted names are refused.
  const bad = data.slice();
  new DataView(bad.buffer).setUint32(0, 80, true);
  new DataView(bad.buffer).setUint32(8, 64, true);
  new DataView(bad.buffer).setUint32(4, 5, true);
  new DataView(bad.buffer).setUint32(12, 6, true);
  await assert.rejects(() => f.hfMem("m.9", bad, u32(0), u32(128), u32(2)), /InvalidInput/);
  // Unpack the map's values to offset 300 for the same names.
  const src = xdr.ScVal.scvMap([
    new xdr.ScMapEntry({ key: sym("amount"), val: u32(9) }),
    new xdr.ScMapEntry({ key: sym("owner"), val: i32(-1) }),
  ]);
  const [, mem] = await f.hfMem("m.a", data, src, u32(0), u32(300), u32(2));
  const out = new DataView(mem.buffer, mem.byteOffset);
  assert.equal(out.getBigUint64(300, true), u32v(9));
  assert.equal(out.getBigUint64(308, true), (0xffffffffn << 32n) | 5n);
  // A map with other keys does not unpack.
  const other = xdr.ScVal.scvMap([
    new xdr.ScMapEntry({ key: sym("amount"), val: u32(9) }),
    new xdr.ScMapEntry({ key: sym("ownerx"), val: u32(1) }),
  ]);
  await assert.rejects(() => f.hfMem("m.a", data, other, u32(0), u32(300), u32(2)), /InvalidInput/);
});

Deno.test("vec: every function, immutability and linear memory", async () => {
  await using f = await forwarder();
  const v0 = await f.hf("v._");
  assert.equal(xdrHex(v0), xdrHex(vec()));
  let v: xdr.ScVal = v0;
  for (const n of [3, 1, 2]) v = await f.hf("v.6", v, u32(n)); // push_back
  assert.deepEqual(native(v), [3, 1, 2]);
  assert.deepEqual(native(await f.hf("v.0", v, u32(1), u32(9))), [3, 9, 2]);
  assert.match(await f.hfErr("v.0", v, u32(3), u32(9)), /Error\(Object, IndexBounds\)/);
  assert.equal(native(await f.hf("v.1", v, u32(2))), 2);
  assert.deepEqual(native(await f.hf("v.2", v, u32(0))), [1, 2]);
  assert.equal(native(await f.hf("v.3", v)), 3);
  assert.deepEqual(native(await f.hf("v.4", v, u32(0))), [0, 3, 1, 2]);
  assert.deepEqual(native(await f.hf("v.5", v)), [1, 2]);
  assert.match(await f.hfErr("v.5", v0), /IndexBounds/);
  assert.deepEqual(native(await f.hf("v.7", v)), [3, 1]);
  assert.equal(native(await f.hf("v.8", v)), 3);
  assert.equal(native(await f.hf("v.9", v)), 2);
  assert.match(await f.hfErr("v.9", v0), /IndexBounds/);
  assert.deepEqual(native(await f.hf("v.a", v, u32(3), u32(7))), [3, 1, 2, 7]);
  assert.match(await f.hfErr("v.a", v, u32(4), u32(7)), /IndexBounds/);
  assert.deepEqual(native(await f.hf("v.b", v, vec(u32(8)))), [3, 1, 2, 8]);
  assert.deepEqual(native(await f.hf("v.c", v, u32(1), u32(3))), [1, 2]);
  // start > end is an invalid range, not an out-of-bounds index.
  assert.match(await f.hfErr("v.c", v, u32(2), u32(1)), /Error\(Object, InvalidInput\)/);
  const dup = vec(u32(5), str("a"), u32(5));
  assert.equal(native(await f.hf("v.d", dup, u32(5))), 0);
  assert.equal(native(await f.hf("v.e", dup, u32(5))), 2);
  assert.equal((await f.hf("v.d", dup, u32(6))).type, "scvVoid");
  const sortedV = vec(u32(1), u32(3), u32(5));
  assert.equal(fromLe(await f.hf("v.f", sortedV, u32(3))), (1n << 32n) | 1n);
  assert.equal(fromLe(await f.hf("v.f", sortedV, u32(4))), 2n);
  // Immutability: the original is unchanged after put.
  assert.deepEqual(native(v), [3, 1, 2]);
  // Linear memory.
  const [nv] = await f.hfMem("v.g", valsBytes([u32v(4), 1n, 2n]), u32(0), u32(3));
  assert.deepEqual(native(nv), [4, true, null]);
  const [, mem] = await f.hfMem("v.h", new Uint8Array(), vec(u32(6), i32(-2)), u32(16), u32(2));
  const dv = new DataView(mem.buffer, mem.byteOffset);
  assert.equal(dv.getBigUint64(16, true), u32v(6));
  assert.equal(dv.getBigUint64(24, true), (0xfffffffen << 32n) | 5n);
  await assert.rejects(
    () => f.hfMem("v.h", new Uint8Array(), vec(u32(6)), u32(16), u32(2)),
    /UnexpectedSize/,
  );
  // A Val with an unknown object handle in memory is refused.
  await assert.rejects(
    () => f.hfMem("v.g", valsBytes([(77n << 32n) | 75n]), u32(0), u32(1)),
    /Error\(Value, InvalidInput\)/,
  );
});
