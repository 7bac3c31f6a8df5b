/**
 * The Stellar Asset Contract built into the real Soroban host, through FFI: deploy the native
 * asset's SAC from the asset, transfer between classic accounts, read balances.
 */
import assert from "node:assert/strict";
import { Address, Asset, Keypair, nativeToScVal, scValToNative } from "@stellar/stellar-sdk";
import { closeRealHost } from "./mod.ts";
import { call, RealLedger } from "@vigil/testing/real_host/ledger";

Deno.test("real host: native SAC create from asset + transfer", () => {
  try {
    const l = new RealLedger();
    const alice = Keypair.random().publicKey();
    const bob = Keypair.random().publicKey();
    l.account(alice, 1_000_0000000n);
    l.account(bob, 10_0000000n);
    const xlm = l.deploySac(alice, Asset.native());
    assert.equal(xlm, Asset.native().contractId(l.passphrase));

    const transfer = l.run(
      alice,
      call(xlm, "transfer", [
        new Address(alice).toScVal(),
        new Address(bob).toScVal(),
        nativeToScVal(25_0000000n, { type: "i128" }),
      ]),
    );
    assert.ok(transfer.out.ok, transfer.out.error?.debug);
    assert.equal(l.nativeBalance(alice), 975_0000000n);
    assert.equal(l.nativeBalance(bob), 35_0000000n);
    // One `transfer` event: topics [transfer, from, to, "native"], amount as data.
    assert.equal(transfer.out.events.length, 1);
    const ev = transfer.out.events[0].toJson() as {
      body: { v0: { topics: Record<string, string>[]; data: unknown } };
    };
    assert.deepEqual(ev.body.v0.topics[0], { symbol: "transfer" });
    assert.deepEqual(ev.body.v0.topics[3], { string: "native" });

    const bal = l.run(bob, call(xlm, "balance", [new Address(bob).toScVal()]));
    assert.equal(scValToNative(bal.out.result!), 35_0000000n);
    // Overdraft: the SAC's own error (BalanceError = 10) comes back structured.
    const tooMuch = l.simulate(
      bob,
      call(xlm, "transfer", [
        new Address(bob).toScVal(),
        new Address(alice).toScVal(),
        nativeToScVal(1_000_0000000n, { type: "i128" }),
      ]),
    );
    assert.equal(tooMuch.ok, false);
    assert.deepEqual(tooMuch.error!.scError!.toJson(), { contract: 10 });
  } finally {
    closeRealHost();
  }
});
