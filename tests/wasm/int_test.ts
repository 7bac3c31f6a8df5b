/**
 * Host module `i` (int) through the forwarder contract over JSON-RPC: every function, with
 * values that would expose a wrong result (high bits, signs, overflow and domain errors).
 */
import assert from "node:assert/strict";
import { bytes, forwarder, fromLe, le, native, num, u32 } from "@vigil/testing/wasm/fwd_fixture";

const U256_MAX = (1n << 256n) - 1n;
const I256_MIN = -(1n << 255n);

function be32(n: bigint): Uint8Array {
  const b = new Uint8Array(32);
  let x = BigInt.asUintN(256, n);
  for (let i = 31; i >= 0; i--) {
    b[i] = Number(x & 0xffn);
    x >>= 8n;
  }
  return b;
}

Deno.test("int: 64-bit, 128-bit, timepoint and duration objects", async () => {
  await using f = await forwarder();
  // obj_from_u64 always makes an object; obj_to_u64 needs one.
  assert.equal(native(await f.hf("i._", le(5n))), 5n);
  assert.equal(native(await f.hf("i._", le((1n << 64n) - 1n))), (1n << 64n) - 1n);
  assert.equal(fromLe(await f.hf("i.0", num(1n << 60n, "u64"))), 1n << 60n);
  assert.match(await f.hfErr("i.0", num(5, "u64")), /Error\(Value, InvalidInput\)/);
  assert.equal(native(await f.hf("i.1", le(-7n))), -7n);
  assert.equal(fromLe(await f.hf("i.2", num(-(1n << 62n), "i64")), true), -(1n << 62n));
  // u128 / i128 pieces.
  const u = (0x0123456789abcdefn << 64n) | 0xfedcba9876543210n;
  assert.equal(native(await f.hf("i.3", le(u >> 64n), le(u & ((1n << 64n) - 1n)))), u);
  assert.equal(fromLe(await f.hf("i.4", num(u, "u128"))), 0xfedcba9876543210n);
  assert.equal(fromLe(await f.hf("i.5", num(u, "u128"))), 0x0123456789abcdefn);
  const i = -(1n << 100n) + 12345n;
  assert.equal(native(await f.hf("i.6", le(i >> 64n), le(i & ((1n << 64n) - 1n)))), i);
  assert.equal(fromLe(await f.hf("i.7", num(i, "i128"))), BigInt.asUintN(64, i));
  assert.equal(fromLe(await f.hf("i.8", num(i, "i128")), true), i >> 64n);
  // Timepoint / duration.
  assert.equal(native(await f.hf("i.D", le(1n << 63n))), 1n << 63n);
  assert.equal(fromLe(await f.hf("i.E", num(1n << 62n, "timepoint"))), 1n << 62n);
  assert.equal(native(await f.hf("i.F", le(99n))), 99n);
  assert.equal(fromLe(await f.hf("i.G", num(1n << 61n, "duration"))), 1n << 61n);
});

Deno.test("int: 256-bit pieces, big-endian bytes and checked arithmetic", async () => {
  await using f = await forwarder();
  const w = [0x1111n, 0x2222n, 0x3333n, 0x4444n];
  const u = (w[0] << 192n) | (w[1] << 128n) | (w[2] << 64n) | w[3];
  assert.equal(native(await f.hf("i.9", le(w[0]), le(w[1]), le(w[2]), le(w[3]))), u);
  assert.equal(native(await f.hf("i.a", bytes(be32(u)))), u);
  assert.deepEqual(native(await f.hf("i.b", num(u, "u256"))), be32(u));
  assert.match(await f.hfErr("i.a", bytes(new Uint8Array(31))), /UnexpectedSize/);
  for (const [k, idx] of [["i.c", 0], ["i.d", 1], ["i.e", 2], ["i.f", 3]] as const) {
    assert.equal(fromLe(await f.hf(k, num(u, "u256"))), w[idx]);
  }
  const s = -u;
  assert.equal(
    native(await f.hf("i.g", le(s >> 192n), le(s >> 128n), le(s >> 64n), le(s))),
    s,
  );
  assert.equal(native(await f.hf("i.h", bytes(be32(s)))), s);
  assert.deepEqual(native(await f.hf("i.i", num(s, "i256"))), be32(s));
  assert.equal(fromLe(await f.hf("i.j", num(s, "i256")), true), s >> 192n);
  assert.equal(fromLe(await f.hf("i.k", num(s, "i256"))), BigInt.asUintN(64, s >> 128n));
  assert.equal(fromLe(await f.hf("i.l", num(s, "i256"))), BigInt.asUintN(64, s >> 64n));
  assert.equal(fromLe(await f.hf("i.m", num(s, "i256"))), BigInt.asUintN(64, s));

  const U = (n: bigint) => num(n, "u256");
  const I = (n: bigint) => num(n, "i256");
  assert.equal(native(await f.hf("i.n", U(u), U(5n))), u + 5n);
  assert.match(await f.hfErr("i.n", U(U256_MAX), U(1n)), /Error\(Object, ArithDomain\)/);
  assert.equal(native(await f.hf("i.o", U(u), U(5n))), u - 5n);
  assert.match(await f.hfErr("i.o", U(1n), U(2n)), /ArithDomain/);
  assert.equal(native(await f.hf("i.p", U(1n << 100n), U(3n))), 3n << 100n);
  assert.equal(native(await f.hf("i.q", U(u), U(7n))), u / 7n);
  assert.match(await f.hfErr("i.q", U(1n), U(0n)), /ArithDomain/);
  assert.equal(native(await f.hf("i.r", U(u), U(1000n))), u % 1000n);
  assert.equal(native(await f.hf("i.s", U(3n), u32(100))), 3n ** 100n);
  assert.match(await f.hfErr("i.s", U(2n), u32(256)), /ArithDomain/);
  assert.equal(native(await f.hf("i.t", U(1n), u32(255))), 1n << 255n);
  assert.equal(native(await f.hf("i.t", U(3n), u32(255))), 1n << 255n); // bits shifted out
  assert.match(await f.hfErr("i.t", U(1n), u32(256)), /ArithDomain/);
  assert.equal(native(await f.hf("i.u", U(u), u32(64))), u >> 64n);
  assert.equal(native(await f.hf("i.v", I(-5n), I(3n))), -2n);
  assert.match(await f.hfErr("i.v", I((1n << 255n) - 1n), I(1n)), /ArithDomain/);
  assert.equal(native(await f.hf("i.w", I(-5n), I(3n))), -8n);
  assert.match(await f.hfErr("i.w", I(I256_MIN), I(1n)), /ArithDomain/);
  assert.equal(native(await f.hf("i.x", I(-(1n << 120n)), I(-(1n << 120n)))), 1n << 240n);
  assert.equal(native(await f.hf("i.y", I(-7n), I(2n))), -3n); // truncates toward zero
  assert.match(await f.hfErr("i.y", I(I256_MIN), I(-1n)), /ArithDomain/);
  assert.equal(native(await f.hf("i.z", I(-7n), I(2n))), 1n); // Euclidean: non-negative
  assert.equal(native(await f.hf("i.A", I(-2n), u32(3))), -8n);
  assert.equal(native(await f.hf("i.B", I(-1n), u32(255))), I256_MIN);
  assert.equal(native(await f.hf("i.C", I(-16n), u32(2))), -4n); // arithmetic shift
});
