/**
 * Automatic restore (CAP-66) on the real host: an archived persistent entry is found by the
 * simulation, listed in the transaction data's v1 extension, and restored by the invocation; and
 * the preflight of the explicit TTL operations.
 */
import assert from "node:assert/strict";
import { Address, Keypair, nativeToScVal, scValToNative } from "@stellar/stellar-sdk";
import { fixtureWasmSync } from "@vigil/testing/contracts/mod";
import { closeRealHost, invokeHostFunction, simulateExtendTtl, simulateRestore } from "./mod.ts";
import { call, entryOf, RealLedger } from "@vigil/testing/real_host/ledger";

Deno.test("real host: an archived entry is restored inside the invocation", () => {
  try {
    const l = new RealLedger();
    const user = Keypair.random().publicKey();
    l.account(user, 1_000_0000000n);
    const counter = l.deploy(user, fixtureWasmSync("counter"), [new Address(user).toScVal()]);
    const inc = call(counter, "increment", [
      new Address(user).toScVal(),
      nativeToScVal(2, { type: "u32" }),
    ]);
    assert.ok(l.run(user, inc).out.ok);
    // Archive the user's count entry: its TTL ran out (the snapshot still serves it with the
    // old live-until, as the hot archive does).
    const countId = [...l.entries.entries()].find(([, v]) => {
      const j = JSON.stringify(entryOf(v).toJson());
      return j.includes('"Count"') && j.includes(user);
    })![0];
    l.entries.get(countId)!.liveUntil = l.sequence - 1;

    const sim = l.simulate(user, inc);
    assert.ok(sim.ok, sim.error?.debug);
    const data = sim.transactionData!;
    const ext = data.ext.toJson() as { v1?: { archived_soroban_entries: number[] } };
    assert.ok(ext.v1, "the v1 extension lists the archived entries");
    const [index] = ext.v1.archived_soroban_entries;
    assert.equal(data.resources.footprint.readWrite[index].toXdr("base64"), countId);

    // Without the restore indices the host refuses the archived entry.
    const fp = data.resources.footprint;
    const keys = [...fp.readOnly, ...fp.readWrite];
    const base = {
      hostFunction: inc,
      resources: data.resources,
      sourceAccount: Keypair.fromPublicKey(user).xdrAccountId(),
      auth: sim.auth,
      ledger: l.info(),
      entries: keys.map((k) => l.get(k)),
      prngSeed: new Uint8Array(32),
    };
    assert.equal(invokeHostFunction(base).ok, false);
    const out = invokeHostFunction({ ...base, restoredRwEntryIndices: [index] });
    assert.ok(out.ok, out.error?.debug);
    assert.equal(scValToNative(out.result!), 4);
    const change = out.changes.find((c) => c.key.toXdr("base64") === countId)!;
    assert.ok(change.ttl!.newLiveUntil >= l.sequence + l.info().minPersistentEntryTtl - 1);
    assert.ok(out.rentFee > 0n, "the restore pays rent");
  } finally {
    closeRealHost();
  }
});

Deno.test("real host: preflight of ExtendFootprintTtl and RestoreFootprint", () => {
  try {
    const l = new RealLedger();
    const user = Keypair.random().publicKey();
    l.account(user, 1_000_0000000n);
    const counter = l.deploy(user, fixtureWasmSync("counter"), [new Address(user).toScVal()]);
    const inc = call(counter, "increment", [
      new Address(user).toScVal(),
      nativeToScVal(1, { type: "u32" }),
    ]);
    const { sim } = l.run(user, inc);
    const fp = sim.transactionData!.resources.footprint;
    const keys = [...fp.readOnly, ...fp.readWrite].filter((k) =>
      !("account" in (k.toJson() as object))
    );

    // Extend every contract entry of the call to the maximum TTL.
    const extend = simulateExtendTtl({
      ledger: l.info(),
      snapshot: (k) => l.entries.get(k),
      keys,
      extendTo: l.info().maxEntryTtl - 1,
    });
    assert.equal(extend.resources.footprint.readOnly.length, keys.length);
    assert.ok(extend.resourceFee > 0n);
    // Entries already past the target are skipped: extending to 10 ledgers is a no-op.
    const none = simulateExtendTtl({
      ledger: l.info(),
      snapshot: (k) => l.entries.get(k),
      keys,
      extendTo: 10,
    });
    assert.equal(none.resources.footprint.readOnly.length, 0);

    // Archive the instance and restore it.
    const instance = keys.find((k) => JSON.stringify(k.toJson()).includes("contract_instance"))!;
    l.entries.get(instance.toXdr("base64"))!.liveUntil = l.sequence - 1;
    const restore = simulateRestore({
      ledger: l.info(),
      snapshot: (k) => l.entries.get(k),
      keys: [instance],
    });
    assert.deepEqual(
      restore.resources.footprint.readWrite.map((k) => k.toXdr("base64")),
      [instance.toXdr("base64")],
    );
    assert.ok(restore.resourceFee > 0n);
  } finally {
    closeRealHost();
  }
});
