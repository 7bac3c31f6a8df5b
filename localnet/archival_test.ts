/**
 * Expiry and archival over JSON-RPC, on a node whose network settings make entries expire
 * within a few ledgers: a SAC allowance (temporary) expires and disappears; a persistent entry
 * (and the contract's instance and code) archives; simulation lists it for automatic restore
 * (CAP-66: tx data ext v1, no preamble), a transaction that drops that list fails, the one as
 * simulated restores it inside the call and works on the old value; an explicit RestoreFootprint
 * restores with rent; ExtendFootprintTtl keeps an entry alive and charges rent.
 */
import assert from "node:assert/strict";
import {
  Address,
  Asset,
  type Keypair,
  nativeToScVal,
  Operation,
  rpc,
  SorobanDataBuilder,
  TransactionBuilder,
  xdr,
} from "@stellar/stellar-sdk";
import { startTestNode, type TestNode } from "@vigil/testing/localnet";
import { realLedger, settingsOf } from "./real_host/node_host.ts";
import { rentFeeOf } from "./real_host/mod.ts";
import { deployFixture } from "@vigil/testing/contracts/mod";

const SHORT = { minPersistentTtl: 30, minTemporaryTtl: 10, maxEntryTtl: 10_000 };

async function send(node: TestNode, tx: ReturnType<TransactionBuilder["build"]>, kp: Keypair) {
  tx.sign(kp);
  const sent = await node.server.sendTransaction(tx);
  assert.equal(sent.status, "PENDING", JSON.stringify(sent));
  return await node.confirm(sent.hash);
}

async function invoke(
  node: TestNode,
  kp: Keypair,
  contract: string,
  fn: string,
  args: xdr.ScVal[],
) {
  const acc = await node.server.getAccount(kp.publicKey());
  return new TransactionBuilder(acc, { fee: "100", networkPassphrase: node.networkPassphrase })
    .addOperation(Operation.invokeContractFunction({ contract, function: fn, args }))
    .setTimeout(60)
    .build();
}

function counterKey(id: string, user: string): xdr.LedgerKey {
  return xdr.LedgerKey.contractData(
    new xdr.LedgerKeyContractData({
      contract: Address.fromString(id).toScAddress(),
      key: xdr.ScVal.scvVec([xdr.ScVal.scvSymbol("Count"), new Address(user).toScVal()]),
      durability: xdr.ContractDataDurability.persistent,
    }),
  );
}

Deno.test("an allowance expires and disappears (temporary entry past its TTL)", async () => {
  await using node = await startTestNode({ network: SHORT });
  const sac = await node.deployAsset(Asset.native());
  const owner = await node.newAccount();
  const spender = (await node.newAccount()).publicKey();
  const until = node.latestLedger().sequence + 5;
  const approve = await invoke(node, owner, sac, "approve", [
    new Address(owner.publicKey()).toScVal(),
    new Address(spender).toScVal(),
    nativeToScVal(1_000n, { type: "i128" }),
    nativeToScVal(until, { type: "u32" }),
  ]);
  const sim = await node.server.simulateTransaction(approve);
  assert.ok(!rpc.Api.isSimulationError(sim), JSON.stringify(sim));
  const got = await send(node, rpc.assembleTransaction(approve, sim).build(), owner);
  assert.equal(got.status, "SUCCESS");
  const allowance = () => node.view<bigint>(sac, "allowance", { from: owner.publicKey(), spender });
  assert.equal(await allowance(), 1_000n);
  const key = xdr.LedgerKey.contractData(
    new xdr.LedgerKeyContractData({
      contract: Address.fromString(sac).toScAddress(),
      key: xdr.ScVal.scvVec([
        xdr.ScVal.scvSymbol("Allowance"),
        xdr.ScVal.scvMap([
          new xdr.ScMapEntry({
            key: xdr.ScVal.scvSymbol("from"),
            val: new Address(owner.publicKey()).toScVal(),
          }),
          new xdr.ScMapEntry({
            key: xdr.ScVal.scvSymbol("spender"),
            val: new Address(spender).toScVal(),
          }),
        ]),
      ]),
      durability: xdr.ContractDataDurability.temporary,
    }),
  );
  assert.equal((await node.server.getLedgerEntries(key)).entries.length, 1);
  await node.closeLedgers(20);
  assert.equal(await allowance(), 0n);
  // Gone from the ledger, not merely zero.
  assert.equal((await node.server.getLedgerEntries(key)).entries.length, 0);
});

Deno.test("an archived persistent entry needs a restore; the restore works and keeps the value", async () => {
  await using node = await startTestNode({ network: SHORT });
  const admin = await node.newAccount();
  const id = await deployFixture(node, "counter", { admin: admin.publicKey() });
  const alice = await node.newAccount();
  const inc = (by: number) =>
    invoke(node, alice, id, "increment", [
      new Address(alice.publicKey()).toScVal(),
      nativeToScVal(by, { type: "u32" }),
    ]);
  const first = await inc(5);
  const sim1 = await node.server.simulateTransaction(first);
  assert.ok(rpc.Api.isSimulationSuccess(sim1) && !rpc.Api.isSimulationRestore(sim1));
  assert.equal(
    (await send(node, rpc.assembleTransaction(first, sim1).build(), alice)).status,
    "SUCCESS",
  );

  // Past its TTL (30 ledgers here) the counter entry is archived: still served, with the
  // placeholder live-until ledger 0 that stellar-core's query server gives archived entries and
  // stellar-rpc passes on; and, as stellar-rpc 23+, its LedgerEntry extension.
  await node.closeLedgers(40);
  const le = await node.server.getLedgerEntries(counterKey(id, alice.publicKey()));
  assert.equal(le.entries.length, 1);
  assert.equal(le.entries[0].liveUntilLedgerSeq, 0);
  const raw = await (await fetch(node.rpcUrl, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "getLedgerEntries",
      params: { keys: [counterKey(id, alice.publicKey()).toXdr("base64")] },
    }),
  })).json();
  assert.equal(raw.result.entries[0].liveUntilLedgerSeq, 0);
  assert.equal(raw.result.entries[0].extXdr, xdr.LedgerEntryExt.v0().toXdr("base64"));

  // Protocol 23+ (CAP-66): simulation gives no restore preamble; the transaction data's v1
  // extension lists the archived read-write entry, which the invocation itself restores.
  const second = await inc(2);
  const sim2 = await node.server.simulateTransaction(second);
  assert.ok(rpc.Api.isSimulationSuccess(sim2), JSON.stringify(sim2));
  assert.ok(!rpc.Api.isSimulationRestore(sim2), "no restorePreamble at protocol 27");
  const data2 = sim2.transactionData.build();
  const rwKeys = data2.resources.footprint.readWrite.map((k) => k.toXdr("base64"));
  const archivedIndex = rwKeys.indexOf(counterKey(id, alice.publicKey()).toXdr("base64"));
  assert.ok(archivedIndex >= 0, "the counter entry is in the read-write footprint");
  // The contract's instance and code archived with it (same TTL settings): all three are
  // restored, each listed by its read-write index.
  const listed = (data2.ext.toJson() as { v1: { archived_soroban_entries: number[] } }).v1
    .archived_soroban_entries;
  assert.ok(listed.includes(archivedIndex), JSON.stringify(listed));
  assert.equal(listed.length, 3, JSON.stringify(listed));
  // Sent without the extension (a client that drops it): included, and fails on the archived
  // entry, as stellar-core refuses an archived entry the transaction does not restore.
  const stripped = new xdr.SorobanTransactionData({
    ext: xdr.SorobanTransactionDataExt.v0(),
    resources: data2.resources,
    resourceFee: data2.resourceFee,
  });
  const blind = await send(
    node,
    rpc.assembleTransaction(second, sim2).setSorobanData(stripped).build(),
    alice,
  );
  assert.equal(blind.status, "FAILED");
  if (blind.status === "FAILED") {
    assert.deepEqual(blind.resultXdr.result.toJson(), {
      tx_failed: [{ op_inner: { invoke_host_function: "entry_archived" } }],
    });
  }
  // Sent as simulated: restored inside the invocation, on the value kept in the archive.
  // (The failed one consumed its sequence number: the same call, built and simulated again.)
  const again = await inc(2);
  const simA = await node.server.simulateTransaction(again);
  assert.ok(rpc.Api.isSimulationSuccess(simA), JSON.stringify(simA));
  const auto = await send(node, rpc.assembleTransaction(again, simA).build(), alice);
  assert.equal(auto.status, "SUCCESS");
  assert.deepEqual(auto.status === "SUCCESS" && auto.returnValue?.toJson(), { u32: 7 });
  const live = await node.server.getLedgerEntries(counterKey(id, alice.publicKey()));
  assert.ok(live.entries[0].liveUntilLedgerSeq! > live.latestLedger);

  // The explicit RestoreFootprint operation still works (what a restorePreamble describes),
  // simulated as stellar-rpc does it.
  await node.closeLedgers(40);
  // The keys to restore: what a simulation lists (counter entry, instance, code again).
  const probe = await node.server.simulateTransaction(await inc(2));
  assert.ok(rpc.Api.isSimulationSuccess(probe), JSON.stringify(probe));
  const probeData = probe.transactionData.build();
  const toRestore = (probeData.ext.toJson() as { v1: { archived_soroban_entries: number[] } }).v1
    .archived_soroban_entries.map((i) => probeData.resources.footprint.readWrite[i]);
  assert.equal(toRestore.length, 3);
  const acc = await node.server.getAccount(alice.publicKey());
  const restoreDraft = new TransactionBuilder(acc, {
    fee: "100",
    networkPassphrase: node.networkPassphrase,
  })
    .setSorobanData(
      new SorobanDataBuilder().setReadWrite(toRestore).build(),
    )
    .addOperation(Operation.restoreFootprint({}))
    .setTimeout(60)
    .build();
  const simR = await node.server.simulateTransaction(restoreDraft);
  assert.ok(rpc.Api.isSimulationSuccess(simR), JSON.stringify(simR));
  assert.ok(BigInt(simR.minResourceFee) > 0n);
  const restored = await send(node, rpc.assembleTransaction(restoreDraft, simR).build(), alice);
  assert.equal(restored.status, "SUCCESS");
  // The rent is the host's (`entry_size_for_rent` + `compute_rent_fee`, as core asks for its
  // RestoreFootprint): the contract code counts its parsed module's memory, so the rent is well
  // above what the three entries' XDR sizes alone would cost.
  const meta = JSON.stringify(
    restored.status === "SUCCESS" ? restored.resultMetaXdr.toJson() : {},
  );
  const rentCharged = BigInt(/"rent_fee_charged":"?(\d+)/.exec(meta)?.[1] ?? "0");
  const ledger = node.chain.hostLedger();
  const xdrOnly = rentFeeOf(
    toRestore.map((k) => {
      const e = node.chain.store.get(k.toXdr("base64"))!;
      return {
        persistent: true,
        code: e.data.type === "contractCode",
        oldSize: 0,
        newSize: e.toXdr().length,
        oldLiveUntil: 0,
        newLiveUntil: ledger.sequence + SHORT.minPersistentTtl - 1,
      };
    }),
    realLedger(ledger),
    settingsOf(),
  );
  assert.ok(rentCharged > xdrOnly, `rent ${rentCharged} vs XDR-size rent ${xdrOnly}`);
  const after = await node.server.getLedgerEntries(counterKey(id, alice.publicKey()));
  assert.ok(after.entries[0].liveUntilLedgerSeq! > after.latestLedger);
  // Now the call needs no restore.
  const third = await inc(2);
  const sim3 = await node.server.simulateTransaction(third);
  assert.ok(rpc.Api.isSimulationSuccess(sim3) && !rpc.Api.isSimulationRestore(sim3));
  assert.deepEqual(sim3.transactionData.build().ext.toJson(), "v0");
  const ok = await send(node, rpc.assembleTransaction(third, sim3).build(), alice);
  assert.equal(ok.status, "SUCCESS");
  assert.deepEqual(ok.status === "SUCCESS" && ok.returnValue?.toJson(), { u32: 9 });
});

Deno.test("ExtendFootprintTtl keeps an entry alive and charges rent for the extension", async () => {
  await using node = await startTestNode({ network: SHORT });
  const admin = await node.newAccount();
  const id = await deployFixture(node, "counter", { admin: admin.publicKey() });
  const alice = await node.newAccount();
  const first = await invoke(node, alice, id, "increment", [
    new Address(alice.publicKey()).toScVal(),
    nativeToScVal(1, { type: "u32" }),
  ]);
  const sim1 = await node.server.simulateTransaction(first);
  assert.ok(rpc.Api.isSimulationSuccess(sim1));
  assert.equal(
    (await send(node, rpc.assembleTransaction(first, sim1).build(), alice)).status,
    "SUCCESS",
  );
  const key = counterKey(id, alice.publicKey());
  const before = (await node.server.getLedgerEntries(key)).entries[0].liveUntilLedgerSeq!;
  const acc = await node.server.getAccount(alice.publicKey());
  const extend = new TransactionBuilder(acc, {
    fee: "100",
    networkPassphrase: node.networkPassphrase,
  })
    .setSorobanData(
      new xdr.SorobanTransactionData({
        ext: xdr.SorobanTransactionDataExt.v0(),
        resources: new xdr.SorobanResources({
          footprint: new xdr.LedgerFootprint({ readOnly: [key], readWrite: [] }),
          instructions: 0,
          diskReadBytes: 0,
          writeBytes: 0,
        }),
        resourceFee: 0n,
      }),
    )
    .addOperation(Operation.extendFootprintTtl({ extendTo: 1_000 }))
    .setTimeout(60)
    .build();
  const sim = await node.server.simulateTransaction(extend);
  assert.ok(rpc.Api.isSimulationSuccess(sim), JSON.stringify(sim));
  const minFee = BigInt(sim.minResourceFee);
  // Rent for ~1,000 more ledgers of a small entry, plus the TTL write: more than a bare tx.
  assert.ok(minFee > 10_000n, `${minFee}`);
  const got = await send(node, rpc.assembleTransaction(extend, sim).build(), alice);
  assert.equal(got.status, "SUCCESS");
  const now = (await node.server.getLedgerEntries(key)).entries[0].liveUntilLedgerSeq!;
  assert.ok(now > before + 900, `${before} → ${now}`);
  await node.closeLedgers(40); // past the old TTL, not the new one
  const sim2 = await node.server.simulateTransaction(
    await invoke(node, alice, id, "get", [new Address(alice.publicKey()).toScVal()]),
  );
  // The counter entry is alive; only the contract's own instance/code (30 ledgers) archived.
  assert.ok(rpc.Api.isSimulationSuccess(sim2));
  if (rpc.Api.isSimulationRestore(sim2)) {
    const rw = sim2.restorePreamble.transactionData.build().resources.footprint.readWrite;
    assert.ok(!rw.some((k) => k.toXdr("base64") === key.toXdr("base64")));
  }
});

Deno.test("rent rates are a per-node setting: doubling rentPer1kb raises the fee of a new entry", async () => {
  const feeOfFirstIncrement = async (rentPer1kb?: bigint) => {
    await using node = await startTestNode(rentPer1kb ? { fees: { rentPer1kb } } : {});
    const admin = await node.newAccount();
    const id = await deployFixture(node, "counter", { admin: admin.publicKey() });
    const alice = await node.newAccount();
    const tx = await invoke(node, alice, id, "increment", [
      new Address(alice.publicKey()).toScVal(),
      nativeToScVal(1, { type: "u32" }),
    ]);
    const sim = await node.server.simulateTransaction(tx);
    assert.ok(rpc.Api.isSimulationSuccess(sim));
    return BigInt(sim.minResourceFee);
  };
  const normal = await feeOfFirstIncrement();
  const doubled = await feeOfFirstIncrement(2n * 11_539n);
  // The new counter entry's rent for 2,073,600 ledgers is over a million stroops at the
  // default rate; doubling the rate adds about as much again (plus the 20 % margin).
  assert.ok(doubled - normal > 1_000_000n, `${normal} → ${doubled}`);
});
