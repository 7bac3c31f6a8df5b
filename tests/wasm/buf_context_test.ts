/**
 * Host modules `b` (bytes/string/symbol, XDR) and `x` (context) through the forwarder over
 * JSON-RPC, plus Val round trips against the SDK's ScVal encoding and `obj_cmp`.
 */
import assert from "node:assert/strict";
import { hash, nativeToScVal, scValToNative, xdr } from "@stellar/stellar-sdk";
import {
  addr,
  bytes,
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

// deno-lint-ignore no-explicit-any
type Any = any;

const b = (...x: number[]) => bytes(Uint8Array.from(x));
const enc = (s: string) => new TextEncoder().encode(s);

Deno.test("buf: bytes functions", async () => {
  await using f = await forwarder();
  assert.equal(xdrHex(await f.hf("b.4")), xdrHex(b()));
  const x = b(1, 2, 3);
  assert.deepEqual([...native(await f.hf("b.5", x, u32(1), u32(200)))], [1, 200, 3]);
  assert.match(await f.hfErr("b.5", x, u32(3), u32(1)), /Error\(Object, IndexBounds\)/);
  // A byte value ≥ 256: the host's U32Val-to-u8 conversion is an ArithDomain error.
  assert.match(await f.hfErr("b.5", x, u32(0), u32(256)), /Error\(Value, ArithDomain\)/);
  assert.equal(native(await f.hf("b.6", x, u32(2))), 3);
  assert.deepEqual([...native(await f.hf("b.7", x, u32(0)))], [2, 3]);
  assert.equal(native(await f.hf("b.8", x)), 3);
  assert.deepEqual([...native(await f.hf("b.9", x, u32(9)))], [1, 2, 3, 9]);
  assert.deepEqual([...native(await f.hf("b.a", x))], [1, 2]);
  assert.match(await f.hfErr("b.a", b()), /IndexBounds/);
  assert.equal(native(await f.hf("b.b", x)), 1);
  assert.equal(native(await f.hf("b.c", x)), 3);
  assert.match(await f.hfErr("b.b", b()), /IndexBounds/);
  assert.deepEqual([...native(await f.hf("b.d", x, u32(3), u32(4)))], [1, 2, 3, 4]);
  assert.deepEqual([...native(await f.hf("b.e", x, b(7, 8)))], [1, 2, 3, 7, 8]);
  assert.deepEqual([...native(await f.hf("b.f", x, u32(1), u32(3)))], [2, 3]);
  assert.match(await f.hfErr("b.f", x, u32(1), u32(4)), /IndexBounds/);
  // string <-> bytes (protocol 23).
  assert.deepEqual([...native(await f.hf("b.n", str("hé")))], [...enc("hé")]);
  assert.equal(native(await f.hf("b.o", bytes(enc("ok")))), "ok");
});

Deno.test("buf: linear memory transfers, symbols and strings", async () => {
  await using f = await forwarder();
  const data = enc("hello world, soroban");
  const [nb] = await f.hfMem("b.3", data, u32(6), u32(5));
  assert.equal(new TextDecoder().decode(native(nb)), "world");
  const [s] = await f.hfMem("b.i", data, u32(0), u32(5));
  assert.equal(xdrHex(s), xdrHex(str("hello")));
  const [y] = await f.hfMem("b.j", data, u32(13), u32(7));
  assert.equal(xdrHex(y), xdrHex(sym("soroban")));
  await assert.rejects(() => f.hfMem("b.j", data, u32(0), u32(6)), /InvalidInput/); // "hello "
  await assert.rejects(
    () => f.hfMem("b.3", data, u32(60000), u32(6000)),
    /Error\(WasmVm, IndexBounds\)/,
  );
  // copy_to: bytes[1..4] → memory[100..103]
  const [, mem] = await f.hfMem(
    "b.1",
    new Uint8Array(),
    b(9, 8, 7, 6, 5),
    u32(1),
    u32(100),
    u32(3),
  );
  assert.deepEqual([...mem.subarray(100, 103)], [8, 7, 6]);
  await assert.rejects(
    () => f.hfMem("b.1", new Uint8Array(), b(1, 2), u32(1), u32(100), u32(3)),
    /Object, IndexBounds/,
  );
  // copy_from: memory[0..5] ("hello") into bytes at offset 2 (grows).
  const [cf] = await f.hfMem("b.2", data, b(1, 2, 3), u32(2), u32(0), u32(5));
  assert.deepEqual([...native(cf)], [1, 2, ...enc("hello")]);
  // Past the end: the host zero-fills the gap (bytes [1] + memory[0..1] at offset 2).
  const [gap] = await f.hfMem("b.2", data, b(1), u32(2), u32(0), u32(1));
  assert.deepEqual([...native(gap)], [1, 0, ...enc("h")]);
  const [, mem2] = await f.hfMem("b.g", new Uint8Array(), str("abcdef"), u32(2), u32(10), u32(3));
  assert.equal(new TextDecoder().decode(mem2.subarray(10, 13)), "cde");
  const longSym = xdr.ScVal.scvSymbol("a_symbol_longer_than_9");
  const [, mem3] = await f.hfMem("b.h", new Uint8Array(), longSym, u32(2), u32(10), u32(6));
  assert.equal(new TextDecoder().decode(mem3.subarray(10, 16)), "symbol");
  assert.equal(native(await f.hf("b.k", str("héllo"))), 6);
  assert.equal(native(await f.hf("b.l", longSym)), 22);
  assert.match(await f.hfErr("b.l", sym("short")), /Error\(Value, InvalidInput\)/); // small symbol, not object
  // symbol_index_in_linear_memory: slices at 0, names at 64.
  const tbl = new Uint8Array(128);
  const dv = new DataView(tbl.buffer);
  ["Alpha", "Beta", "Gamma"].forEach((n, i) => {
    tbl.set(enc(n), 64 + i * 16);
    dv.setUint32(i * 8, 64 + i * 16, true);
    dv.setUint32(i * 8 + 4, n.length, true);
  });
  const [idx] = await f.hfMem("b.m", tbl, sym("Gamma"), u32(0), u32(3));
  assert.equal(native(idx), 2);
  await assert.rejects(() => f.hfMem("b.m", tbl, sym("Delta"), u32(0), u32(3)), /MissingValue/);
});

Deno.test("Val round trips: every ScVal type through the guest and XDR (de)serialization", async () => {
  await using f = await forwarder();
  const values: xdr.ScVal[] = [
    xdr.ScVal.scvBool(false),
    xdr.ScVal.scvBool(true),
    xdr.ScVal.scvVoid(),
    xdr.ScVal.scvError(xdr.ScError.sceContract(42) as Any),
    xdr.ScVal.fromXdrObject({ type: 2, error: { type: 3, code: 5 } } as Any),
    u32(0xffffffff),
    i32(-123456),
    num(5, "u64"),
    num((1n << 64n) - 1n, "u64"),
    num(-(1n << 55n), "i64"),
    num(-(1n << 55n) - 1n, "i64"),
    num(1n << 56n, "timepoint"),
    num(77, "duration"),
    num((1n << 128n) - 1n, "u128"),
    num(-(1n << 127n), "i128"),
    num(12, "i128"),
    num((1n << 256n) - 1n, "u256"),
    num(-(1n << 255n), "i256"),
    bytes(Uint8Array.from({ length: 40 }, (_, i) => i)),
    str("unicode ✓"),
    sym("abcdefghi"),
    sym("abcdefghij_0123"),
    vec(u32(1), vec(str("nested")), xdr.ScVal.scvMap([])),
    nativeToScVal({ b: 2, a: [1, 2] }),
    addr("GAAZI4TCR3TY5OJHCTJC2A4QSY6CJWJH5IAJTGKIN2ER7LBNVKOCCWN7"),
    addr("CA3D5KRYM6CB7OWQ6TWYRR3Z4T7GNZLKERYNZGGA5SOAOPIFY6YQGAXE"),
  ];
  for (const v of values) {
    // vec_slice([v, 1], 0, 1) = [v]: ScVal → Val → host object → ScVal (an Error returned
    // bare would fail the call, as on the real host).
    assert.equal(xdrHex(await f.hf("v.c", vec(v, u32(1)), u32(0), u32(1))), xdrHex(vec(v)), v.type);
    // serialize_to_bytes is the SDK's XDR; deserialize_from_bytes inverts it.
    assert.deepEqual([...native(await f.hf("b._", v))], [...(v.toXdr() as Uint8Array)], v.type);
    if (v.type !== "scvError") {
      assert.equal(xdrHex(await f.hf("b.0", bytes(v.toXdr()))), xdrHex(v));
    }
  }
  // Three bytes cannot hold an ScVal: the XDR reader runs past the input's length limit.
  assert.match(
    await f.hfErr("b.0", b(1, 2, 3)),
    /Error\(Context, ExceededLimit\)[\s\S]*LengthLimitExceeded/,
  );
  // A contract returning an Error Val fails with it.
  const e42 = xdr.ScVal.scvError(xdr.ScError.sceContract(42) as Any);
  assert.match(await f.hfErr("v.8", vec(e42)), /HostError: Error\(Contract, #42\)/);
  // obj_cmp follows the ScVal order exactly (and compares small with object forms). `values`
  // is listed in that order (type, then value) but for the two i64s: −2⁵⁵ (index 9) is above
  // −2⁵⁵ − 1 (index 10), so their ranks are swapped.
  const rank = values.map((_, i) => i === 9 ? 10 : i === 10 ? 9 : i);
  // The values that fit in a Val without a host object (bools, void, errors, 32-bit ints,
  // 56-bit u64/i64/duration, the i128 12, a ≤ 9-character symbol): obj_cmp refuses two of those
  // with Error(Value, UnexpectedType) — a guest compares small Vals itself.
  const small = new Set([0, 1, 2, 3, 4, 5, 6, 7, 9, 12, 15, 20]);
  for (let i = 0; i < values.length; i++) {
    for (const j of [i, (i + 5) % values.length, (i + 11) % values.length]) {
      if (small.has(i) && small.has(j)) {
        assert.match(await f.hfErr("x.0", values[i], values[j]), /Error\(Value, UnexpectedType\)/);
        continue;
      }
      const got = Number(fromLe(await f.hf("x.0", values[i], values[j]), true));
      assert.equal(got, Math.sign(rank[i] - rank[j]), `${i} vs ${j}`);
    }
  }
  assert.equal(Number(fromLe(await f.hf("x.0", num(5, "u64"), num(1n << 60n, "u64")), true)), -1);
});

Deno.test("context: ledger facts, events, logs and fail_with_error", async () => {
  await using f = await forwarder();
  const latest = await f.node.server.getLatestLedger();
  assert.equal(native(await f.hf("x.2")), 27); // the node's ledger protocol
  const seq = native(await f.hf("x.3"));
  assert.ok(seq >= latest.sequence && seq <= latest.sequence + 1);
  const ts = native(await f.hf("x.4"));
  assert.ok(Math.abs(Number(ts) - Date.now() / 1000) < 120);
  assert.deepEqual(
    [...native(await f.hf("x.6"))],
    [...(hash(new TextEncoder().encode(f.node.networkPassphrase) as Any) as Uint8Array)],
  );
  assert.equal(native(await f.hf("x.7")), f.id);
  assert.equal(native(await f.hf("x.8")), seq + 3_110_400 - 1);
  // contract_event: shows up in the simulation's events with the contract id.
  const r = await f.sim("x_1", [vec(sym("topic"), u32(1)), str("data")]);
  assert.ok(r.ok);
  const evs = (r as Any).sim.events.map((e: Any) => e.event);
  const ce = evs.find((e: Any) => String(e.type?.name ?? e.type) === "contract");
  assert.ok(ce);
  assert.deepEqual(ce.body.v0.topics.map(scValToNative), ["topic", 1]);
  assert.equal(scValToNative(ce.body.v0.data), "data");
  // The host does not judge topics: a Vec topic and five topics are recorded as given (only
  // the events' total size is limited, by the transaction's declared resources).
  for (const topics of [vec(vec()), vec(u32(1), u32(2), u32(3), u32(4), u32(5))]) {
    const t = await f.sim("x_1", [topics, u32(1)]);
    assert.ok(t.ok);
    const got = (t as Any).sim.events.map((e: Any) => e.event).find((e: Any) =>
      String(e.type?.name ?? e.type) === "contract"
    );
    assert.equal(xdrHex(xdr.ScVal.scvVec(got.body.v0.topics)), xdrHex(topics));
  }
  // log_from_linear_memory: a diagnostic "log" event with the message and values.
  const msg = new TextEncoder().encode("value is");
  const data = new Uint8Array(64);
  data.set(msg, 0);
  new DataView(data.buffer).setBigUint64(32, (7n << 32n) | 4n, true);
  const lr = await f.sim("m_x__", [bytes(data), u32(0), u32(msg.length), u32(32), u32(1)]);
  assert.ok(lr.ok);
  const logs = (lr as Any).sim.events.map((e: Any) => e.event).filter((e: Any) =>
    e.body.v0.topics.length === 1 && scValToNative(e.body.v0.topics[0]) === "log"
  );
  assert.deepEqual(scValToNative(logs[0].body.v0.data), ["value is", 7]);
  // fail_with_error: a contract error becomes Error(Contract, #N); others are refused.
  const err = xdr.ScVal.scvError(xdr.ScError.sceContract(7) as Any);
  assert.match(await f.hfErr("x.5", err), /HostError: Error\(Contract, #7\)/);
  const notContract = xdr.ScVal.fromXdrObject({ type: 2, error: { type: 3, code: 5 } } as Any);
  assert.match(await f.hfErr("x.5", notContract), /Error\(Context, UnexpectedType\)/);
  assert.match(await f.hfErr("x.5", u32(7)), /Error\(Value, InvalidInput\)/);
  // t.dummy0 returns void.
  assert.equal((await f.hf("t._")).type, "scvVoid");
});
