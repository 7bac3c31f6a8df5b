import assert from "node:assert/strict";
import { Keypair, nativeToScVal, scValToNative, StrKey, xdr } from "@stellar/stellar-sdk";
import { COUNTER_SPEC } from "../fixtures/contracts/counter/spec.ts";
import { PROBE_SPEC } from "../fixtures/contracts/probe/spec.ts";
import { decodeResult, encodeArgs } from "../../localnet/host/mod.ts";
import { instanceLedgerKey, scAddressFromString } from "../../localnet/host/keys.ts";
import { contractDataKey } from "../../localnet/host/xdr_fast.ts";
import { apply, MemLedger, send, simulate } from "./fixture.ts";

// deno-lint-ignore no-explicit-any
type Any = any;

function setup() {
  const l = new MemLedger();
  const admin = Keypair.random();
  l.account(admin.publicKey(), 1000_0000000n);
  const a = l.deploy("probe", [], admin.publicKey(), 1);
  const b = l.deploy("probe", [], admin.publicKey(), 2);
  return { l, admin: admin.publicKey(), a, b };
}

const args = (fn: string, a: Record<string, unknown> | unknown[]) => encodeArgs(PROBE_SPEC, fn, a);

function dataKey(contract: string, key: string, durability: 0 | 1): string {
  return contractDataKey(scAddressFromString(contract), xdr.ScVal.scvSymbol(key), durability);
}

async function run(
  l: MemLedger,
  source: string,
  c: string,
  fn: string,
  a: Record<string, unknown> | unknown[],
) {
  const res = await send(l, source, c, fn, args(fn, a));
  return res;
}

Deno.test("storage tiers: instance lives in the instance entry, persistent/temporary are own entries", async () => {
  const { l, admin, a } = setup();
  for (const [tier, val] of [[0, 10], [1, 11], [2, 12]]) {
    const res = await run(l, admin, a, "put", { tier, key: "k", val });
    assert.equal(res.ok, true, res.errorString);
  }
  // Instance: one ledger entry, a sorted ScMap inside the instance.
  const inst = l.get(instanceLedgerKey(a))!;
  const storage = (inst.data as Any).contractData.val.instance.storage as xdr.ScMapEntry[];
  assert.deepEqual(storage.map((e) => [scValToNative(e.key), scValToNative(e.val)]), [["k", 10]]);
  const p = l.get(dataKey(a, "k", 1))!;
  assert.equal((p.data as Any).contractData.durability.name, "persistent");
  assert.equal(scValToNative((p.data as Any).contractData.val), 11);
  const t = l.get(dataKey(a, "k", 0))!;
  assert.equal((t.data as Any).contractData.durability.name, "temporary");
  for (const [tier, val] of [[0, 10], [1, 11], [2, 12]]) {
    const sim = simulate(l, admin, a, "read", args("read", { tier, key: "k" }));
    assert.equal(decodeResult(PROBE_SPEC, "read", sim.returnValue!), val);
    // Reads are read-only: nothing in readWrite, no auth.
    assert.deepEqual(sim.readWrite, []);
    assert.deepEqual(sim.auth, []);
  }
  const del = await run(l, admin, a, "del", { tier: 1, key: "k" });
  assert.equal(del.ok, true);
  assert.equal(l.get(dataKey(a, "k", 1)), undefined);
  const missing = simulate(l, admin, a, "read", args("read", { tier: 1, key: "k" }));
  assert.equal(decodeResult(PROBE_SPEC, "read", missing.returnValue!), null);
});

Deno.test("simulation footprint: written keys in readWrite, instance and code read-only", () => {
  const { l, admin, a } = setup();
  const sim = simulate(l, admin, a, "put", args("put", { tier: 1, key: "k", val: 1 }));
  assert.equal(sim.ok, true);
  assert.deepEqual(sim.readWrite, [dataKey(a, "k", 1)]);
  assert.ok(sim.readOnly.includes(instanceLedgerKey(a)));
  assert.equal(sim.readOnly.length, 2); // instance + contract code
  const simInst = simulate(l, admin, a, "put", args("put", { tier: 0, key: "k", val: 1 }));
  assert.deepEqual(simInst.readWrite, [instanceLedgerKey(a)]);
  assert.ok(simInst.resources.writeBytes > 0);
  assert.ok(simInst.resources.diskReadBytes > 0);
  assert.ok(simInst.resources.instructions > 0);
});

Deno.test("resources are deterministic: simulation and apply agree", async () => {
  const { l, admin, a } = setup();
  const sim = simulate(l, admin, a, "put", args("put", { tier: 1, key: "k", val: 5 }));
  const res = apply(l, admin, a, "put", args("put", { tier: 1, key: "k", val: 5 }), sim.auth, sim);
  assert.equal(res.ok, true);
  assert.deepEqual(res.resources, sim.resources);
  void (await Promise.resolve());
});

Deno.test("footprint enforcement: reads outside the footprint and writes outside readWrite fail", () => {
  const { l, admin, a } = setup();
  const putArgs = args("put", { tier: 1, key: "k", val: 1 });
  const sim = simulate(l, admin, a, "put", putArgs);
  // The data key only in readOnly: the write fails.
  const ro = apply(l, admin, a, "put", putArgs, [], {
    readOnly: [...sim.readOnly, ...sim.readWrite],
    readWrite: [],
  });
  assert.equal(ro.ok, false);
  assert.deepEqual([ro.error!.type, ro.error!.code], ["Storage", "ExceededLimit"]);
  assert.match(
    ro.errorString!,
    /^HostError: Error\(Storage, ExceededLimit\)\n\nEvent log \(newest first\):\n/,
  );
  assert.match(ro.errorString!, /trying to access contract storage key outside of the footprint/);
  assert.equal(ro.changes.size, 0);
  // The instance key missing: even the call cannot start.
  const noInst = apply(l, admin, a, "put", putArgs, [], {
    readOnly: sim.readOnly.filter((k) => k !== instanceLedgerKey(a)),
    readWrite: sim.readWrite,
  });
  assert.deepEqual([noInst.error!.type, noInst.error!.code], ["Storage", "ExceededLimit"]);
  assert.match(noInst.errorString!, /contract instance key outside of the footprint/);
  // A read of a key outside the footprint.
  const readArgs = args("read", { tier: 1, key: "k" });
  const rd = apply(l, admin, a, "read", readArgs, [], { readOnly: sim.readOnly, readWrite: [] });
  assert.deepEqual([rd.error!.type, rd.error!.code], ["Storage", "ExceededLimit"]);
  // Even an absent key must be declared: simulation records it as read-only.
  const simRead = simulate(l, admin, a, "read", readArgs);
  assert.ok(simRead.readOnly.includes(dataKey(a, "k", 1)));
  const declared = apply(l, admin, a, "read", readArgs, [], simRead);
  assert.equal(declared.ok, true);
  const exact = apply(l, admin, a, "put", putArgs, [], sim);
  assert.equal(exact.ok, true);
});

Deno.test("a failed tryCall callee rolls back its writes and events; the caller continues", () => {
  const { l, admin, a, b } = setup();
  const sim = simulate(l, admin, a, "try_other", args("try_other", { other: b, key: "theirs" }));
  assert.equal(sim.ok, true, sim.errorString);
  assert.equal(decodeResult(PROBE_SPEC, "try_other", sim.returnValue!), false);
  const written = [...sim.changes.keys()];
  assert.ok(written.includes(dataKey(a, "mine", 1)));
  assert.ok(written.includes(dataKey(a, "err", 1)));
  assert.ok(!written.includes(dataKey(b, "theirs", 1)), "callee write rolled back");
  // So is its TTL extension (it extended its instance before failing): no rent for it.
  assert.equal(sim.liveUntil!.has(instanceLedgerKey(b)), false, "callee TTL extension rolled back");
  const errVal = sim.changes.get(dataKey(a, "err", 1))!;
  assert.equal(scValToNative((errVal.data as Any).contractData.val), 7);
  // The callee's event is not emitted; the diagnostic log keeps it as failed.
  assert.equal(sim.events.length, 0);
  const doomed = sim.diagnosticEvents.filter((d) => {
    const t = (d.event.body as Any).v0.topics;
    return t.length === 1 && scValToNative(t[0]) === "doomed";
  });
  assert.equal(doomed.length, 1);
  assert.equal(doomed[0].inSuccessfulContractCall, false);
  // The callee's key is still in the footprint (recorded at access time, like the real host).
  assert.ok(sim.readWrite.includes(dataKey(b, "theirs", 1)));
});

Deno.test("a failed call fails the caller: Error(Contract, #N), everything rolled back", () => {
  const { l, admin, a, b } = setup();
  const sim = simulate(l, admin, a, "call_other", args("call_other", { other: b, key: "theirs" }));
  assert.equal(sim.ok, false);
  assert.deepEqual(sim.error, {
    type: "Contract",
    code: 8,
    message: "failing with contract error",
  });
  assert.equal(sim.changes.size, 0);
  assert.equal(sim.events.length, 0);
  assert.ok(sim.diagnosticEvents.every((d) => !d.inSuccessfulContractCall));
  const lines = sim.errorString!.split("\n");
  assert.equal(lines[0], "HostError: Error(Contract, #8)");
  assert.equal(lines[1], "");
  assert.equal(lines[2], "Event log (newest first):");
  assert.match(
    lines[3],
    new RegExp(
      `^   0: \\[Diagnostic Event\\] contract:${a}, topics:\\[error, Error\\(Contract, #8\\)\\]`,
    ),
  );
  assert.match(
    sim.errorString!,
    /\[Failed Diagnostic Event \(not emitted\)\] contract:C[A-Z0-9]+, topics:\[error, Error\(Contract, #8\)\], data:"failing with contract error"/,
  );
  // The Wasm caller sees the failed call and the host escalates it to a trap of the caller.
  assert.match(
    sim.errorString!,
    /topics:\[error, Error\(Contract, #8\)\], data:\["contract call failed", put_then_fail, \[theirs, 8\]\]/,
  );
  assert.match(
    sim.errorString!,
    /data:"escalating error to VM trap from failed host function call: call"/,
  );
  assert.match(
    sim.errorString!,
    /\[Failed Contract Event \(not emitted\)\] contract:C[A-Z0-9]+, topics:\[doomed\], data:8/,
  );
  // The root fn_call has no contract (called by the transaction), rendered with the C address.
  assert.match(
    sim.errorString!,
    new RegExp(
      `\\[Diagnostic Event\\] topics:\\[fn_call, ${a}, call_other\\], data:\\[${b}, theirs\\]`,
    ),
  );
});

Deno.test("errors: contract error, trap, missing function, bad args, missing contract", () => {
  const l = new MemLedger();
  const admin = Keypair.random().publicKey();
  const user = Keypair.random().publicKey();
  l.account(admin, 10_0000000n);
  const c = l.deploy("counter", { admin }, admin);
  const tooBig = simulate(
    l,
    user,
    c,
    "increment",
    encodeArgs(COUNTER_SPEC, "increment", { user, by: 101 }),
  );
  assert.deepEqual(tooBig.error, {
    type: "Contract",
    code: 1,
    message: "failing with contract error",
  });
  assert.match(tooBig.errorString!, /^HostError: Error\(Contract, #1\)\n/);

  const boom = simulate(l, admin, c, "boom", []);
  assert.deepEqual([boom.error!.type, boom.error!.code], ["WasmVm", "InvalidAction"]);
  assert.equal(boom.error!.message, "VM call trapped: unreachable");

  const nope = simulate(l, admin, c, "nope", []);
  assert.deepEqual([nope.error!.type, nope.error!.code], ["WasmVm", "MissingValue"]);
  assert.match(
    nope.errorString!,
    /data:\["trying to invoke non-existent contract function", nope\]/,
  );

  // The contract traps on an argument of the wrong type; a wrong count fails the call too.
  const badType = simulate(l, admin, c, "get", [xdr.ScVal.scvU32(1)]);
  assert.deepEqual([badType.error!.type, badType.error!.code], ["WasmVm", "InvalidAction"]);
  assert.equal(badType.error!.message, "VM call trapped: unreachable");
  const arity = simulate(l, admin, c, "get", []);
  assert.deepEqual([arity.error!.type, arity.error!.code], ["WasmVm", "InvalidAction"]);

  const ctor = simulate(
    l,
    admin,
    c,
    "__constructor",
    encodeArgs(COUNTER_SPEC, "__constructor", [admin]),
  );
  assert.deepEqual([ctor.error!.type, ctor.error!.code], ["Context", "InvalidAction"]);

  const ghost = StrKey.encodeContract(new Uint8Array(32).fill(1) as Any);
  const gone = simulate(l, admin, ghost, "get", encodeArgs(COUNTER_SPEC, "get", [user]));
  assert.deepEqual([gone.error!.type, gone.error!.code], ["Storage", "MissingValue"]);
});

Deno.test("events: contract event and fn_call/fn_return diagnostics in order", async () => {
  const l = new MemLedger();
  const admin = Keypair.random();
  const user = Keypair.random();
  l.account(admin.publicKey(), 10_0000000n);
  l.account(user.publicKey(), 10_0000000n);
  const c = l.deploy("counter", { admin: admin.publicKey() }, admin.publicKey());
  const a = encodeArgs(COUNTER_SPEC, "increment", { user: user.publicKey(), by: 3 });
  const res = await send(l, user.publicKey(), c, "increment", a);
  assert.equal(res.ok, true, res.errorString);
  assert.equal(res.events.length, 1);
  const ev = res.events[0];
  assert.equal(ev.type.name, "contract");
  assert.equal(StrKey.encodeContract(ev.contractId!.value as Any), c);
  const body = (ev.body as Any).v0;
  assert.deepEqual(body.topics.map(scValToNative), ["incr", user.publicKey()]);
  assert.equal(scValToNative(body.data), 3);
  const kinds = res.diagnosticEvents.map((d) => {
    const t = (d.event.body as Any).v0.topics;
    return `${d.event.type.name}:${scValToNative(t[0])}:${d.event.contractId ? "C" : "-"}`;
  });
  assert.deepEqual(kinds, ["diagnostic:fn_call:-", "contract:incr:C", "diagnostic:fn_return:C"]);
  const fnCall = (res.diagnosticEvents[0].event.body as Any).v0;
  assert.equal(fnCall.topics[1].type, "scvBytes");
  assert.equal(scValToNative(fnCall.topics[2]), "increment");
  assert.equal(fnCall.data.type, "scvVec"); // 2 args → Vec
  assert.equal(decodeResult(COUNTER_SPEC, "increment", res.returnValue!), 3);
  // Everything serializes (the ledger layer stores base64 XDR).
  for (const d of res.diagnosticEvents) {
    assert.equal(
      xdr.DiagnosticEvent.fromXdr(d.toXdr("base64"), "base64").toXdr("base64"),
      d.toXdr("base64"),
    );
  }
  assert.equal(
    res.events[0].toXdr("base64"),
    xdr.ContractEvent.fromXdr(res.events[0].toXdr("base64"), "base64").toXdr("base64"),
  );
});

Deno.test("context: current contract and ledger in a call and a nested call; structs round-trip", () => {
  const { l, admin, a, b } = setup();
  const who = simulate(l, admin, a, "whoami", []);
  assert.deepEqual(decodeResult(PROBE_SPEC, "whoami", who.returnValue!), [a, l.sequence]);
  const nested = simulate(l, admin, a, "ask_other", args("ask_other", { other: b }));
  assert.deepEqual(decodeResult(PROBE_SPEC, "ask_other", nested.returnValue!), [b, l.sequence]);
  const rec = { n: -5n, tag: "x", who: admin };
  const echo = simulate(l, admin, a, "echo", args("echo", { r: rec }));
  assert.deepEqual(decodeResult(PROBE_SPEC, "echo", echo.returnValue!), rec);
});

Deno.test("re-entry is rejected with Error(Context, InvalidAction)", () => {
  const { l, admin, a, b } = setup();
  const sim = simulate(l, admin, a, "reenter", args("reenter", { other: b }));
  assert.deepEqual([sim.error!.type, sim.error!.code], ["Context", "InvalidAction"]);
  assert.match(sim.errorString!, /Contract re-entry is not allowed/);
});

Deno.test("extendTtl requests a live-until ledger; extending a missing entry fails", async () => {
  const { l, admin, a } = setup();
  const missing = simulate(l, admin, a, "bump", args("bump", { tier: 1, key: "k" }));
  assert.deepEqual([missing.error!.type, missing.error!.code], ["Storage", "MissingValue"]);
  await run(l, admin, a, "put", { tier: 1, key: "k", val: 1 });
  const sim = simulate(l, admin, a, "bump", args("bump", { tier: 1, key: "k" }));
  assert.equal(sim.ok, true);
  assert.deepEqual(sim.readWrite, []);
  assert.equal(sim.liveUntil!.get(dataKey(a, "k", 1)), l.sequence + 1000);
  void nativeToScVal;
});

Deno.test("extendTtl follows the host's threshold: extends only at or below it, never shortens", async () => {
  const { l, admin, a } = setup();
  await run(l, admin, a, "put", { tier: 1, key: "k", val: 1 });
  await run(l, admin, a, "put", { tier: 2, key: "t", val: 1 });
  const k = dataKey(a, "k", 1);
  l.ttls.set(k, l.sequence + 50); // 50 ledgers of TTL left
  const bump = (tier: number, key: string, threshold: number, extend_to: number) =>
    simulate(l, admin, a, "bump_to", args("bump_to", { tier, key, threshold, extend_to }));
  // TTL 50 > threshold 49: nothing to extend, so no live-until request (and no rent).
  const above = bump(1, "k", 49, 1000);
  assert.equal(above.ok, true);
  assert.equal(above.liveUntil!.has(k), false);
  // TTL 50 ≤ threshold 50: extended to sequence + extend_to.
  const at = bump(1, "k", 50, 1000);
  assert.equal(at.ok, true);
  assert.equal(at.liveUntil!.get(k), l.sequence + 1000);
  // Below the threshold but extend_to would not lengthen the TTL: no request.
  assert.equal(bump(1, "k", 50, 50).liveUntil!.has(k), false);
  // threshold > extend_to is the host's Error(Storage, InvalidInput), even with nothing to do.
  const bad = bump(1, "k", 1001, 1000);
  assert.deepEqual([bad.error!.type, bad.error!.code], ["Storage", "InvalidInput"]);
  assert.match(bad.errorString!, /threshold must be <= extend_to/);
  // Past the network's max TTL: a persistent entry is clamped to the max live-until ledger…
  const max = l.sequence + 3_110_400 - 1;
  const clamped = bump(1, "k", 4_000_000, 4_000_000);
  assert.equal(clamped.ok, true);
  assert.equal(clamped.liveUntil!.get(k), max);
  // …a temporary one is an Error(Storage, InvalidAction).
  const temp = bump(2, "t", 0, 3_110_400);
  assert.deepEqual([temp.error!.type, temp.error!.code], ["Storage", "InvalidAction"]);
  assert.equal(bump(2, "t", 3_110_399, 3_110_399).liveUntil!.get(dataKey(a, "t", 0)), max);
});

Deno.test("instance extendTtl judges the instance and code entries against the threshold each", () => {
  const { l, admin, a } = setup();
  const inst = instanceLedgerKey(a);
  const bump = (threshold: number, extend_to: number) =>
    simulate(l, admin, a, "bump_to", args("bump_to", { tier: 0, key: "x", threshold, extend_to }));
  l.ttls.set(inst, l.sequence + 500);
  const res = bump(100, 1000);
  assert.equal(res.ok, true);
  // The instance (TTL 500 > 100) stays; the code entry (no TTL known: expiring) is extended.
  assert.equal(res.liveUntil!.has(inst), false);
  const others = [...res.liveUntil!.entries()].filter(([key]) => key !== inst);
  assert.deepEqual(others.map(([, v]) => v), [l.sequence + 1000]);
  assert.equal(bump(500, 1000).liveUntil!.get(inst), l.sequence + 1000);
  const bad = bump(1001, 1000);
  assert.deepEqual([bad.error!.type, bad.error!.code], ["Storage", "InvalidInput"]);
});
