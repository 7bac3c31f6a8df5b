/**
 * A Wasm contract uploaded and created with the SDK's standard operations over JSON-RPC, then
 * used through `contract.Client.from(...)` unchanged: constructor, storage, auth and events.
 */
import assert from "node:assert/strict";
import {
  Address,
  hash,
  nativeToScVal,
  Operation,
  rpc,
  scValToNative,
  TransactionBuilder,
  xdr,
} from "@stellar/stellar-sdk";
import { startTestNode } from "@vigil/testing/localnet";
import { counterWasm } from "@vigil/testing/wasm/contracts";
import {
  codeKey,
  contractIdFor,
  create,
  instanceKey,
  upload,
} from "@vigil/testing/wasm/deploy_helpers";

// deno-lint-ignore no-explicit-any
type Any = any;

Deno.test("simulation of upload and create: footprints and fees", async () => {
  await using node = await startTestNode();
  const alice = await node.newAccount();
  const wasm = await counterWasm();
  const account = await node.server.getAccount(alice.publicKey());
  const simOf = async (op: xdr.Operation) => {
    const tx = new TransactionBuilder(account, {
      fee: "100",
      networkPassphrase: node.networkPassphrase,
    }).addOperation(op).setTimeout(60).build();
    const s = await node.server.simulateTransaction(tx);
    assert.ok(rpc.Api.isSimulationSuccess(s), (s as Any).error);
    return s as rpc.Api.SimulateTransactionSuccessResponse;
  };
  const code = codeKey(hash(wasm as Any) as Uint8Array);
  const up = await simOf(Operation.uploadContractWasm({ wasm }));
  const upData = up.transactionData.build() as Any;
  const rw = upData.resources.footprint.readWrite.map((k: Any) => k.toXDR("base64"));
  assert.deepEqual(rw, [code]);
  assert.ok(Number(upData.resources.writeBytes) > wasm.length);
  assert.ok(Number(up.minResourceFee) > 0);
  await upload(node, alice, wasm);
  const salt = new Uint8Array(32).fill(1);
  const cr = await simOf(
    Operation.createCustomContract({
      address: new Address(alice.publicKey()),
      wasmHash: hash(wasm as Any) as Any,
      salt: salt as Any,
      constructorArgs: [nativeToScVal(Address.fromString(alice.publicKey()))],
    }),
  );
  const crData = cr.transactionData.build() as Any;
  const ro = crData.resources.footprint.readOnly.map((k: Any) => k.toXDR("base64"));
  const rw2 = crData.resources.footprint.readWrite.map((k: Any) => k.toXDR("base64"));
  const id = contractIdFor(node.networkPassphrase, alice.publicKey(), salt);
  assert.ok(ro.includes(code), "code is read");
  assert.ok(rw2.includes(instanceKey(id)), "instance is written");
  // Fees follow the declared resources: the constructor's work shows in the instructions.
  assert.ok(Number(crData.resources.instructions) > 0);
  assert.equal(String(crData.resourceFee), cr.minResourceFee);
});

Deno.test("Wasm counter: upload + createCustomContract(constructor) + contract.Client calls", async () => {
  await using node = await startTestNode();
  const alice = await node.newAccount();
  const wasm = await counterWasm();
  const wasmHash = await upload(node, alice, wasm);
  assert.deepEqual(wasmHash, hash(wasm as Any));
  const salt = new Uint8Array(32).fill(7);
  const id = await create(node, alice, wasmHash, [
    nativeToScVal(Address.fromString(alice.publicKey())),
  ], salt);
  // Contract id derived as the real network does.
  assert.equal(id, contractIdFor(node.networkPassphrase, alice.publicKey(), salt));

  const client = await node.clientFor<Any>(id, alice);
  assert.equal((await client.admin()).result, alice.publicKey());
  assert.equal((await client.get()).result, 0);
  const tx = await client.increment({ by: 5 });
  assert.equal(tx.result, 5);
  // Simulation recorded alice's auth (the admin) as the source account.
  const sent = await tx.signAndSend();
  assert.equal(sent.result, 5);
  const tx2 = await client.increment({ by: 3 });
  assert.equal((await tx2.signAndSend()).result, 8);
  assert.equal((await client.get()).result, 8);

  // The event: topics ["incr"], data u32 8.
  const events = await node.server.getEvents({ startLedger: 1, filters: [{ contractIds: [id] }] });
  const last = events.events[events.events.length - 1];
  assert.deepEqual(last.topic.map((t: xdr.ScVal) => scValToNative(t)), ["incr"]);
  assert.equal(scValToNative(last.value), 8);

  // Someone else cannot increment: the admin's auth is required.
  const bob = await node.newAccount();
  const bobClient = await node.clientFor<Any>(id, bob);
  const bad = await bobClient.increment({ by: 1 });
  await assert.rejects(() => bad.signAndSend(), /auth|Auth|signature/i);
});

Deno.test("in-process deployWasm (native constructor args via the Wasm's spec) and invoke/view", async () => {
  await using node = await startTestNode();
  const admin = await node.newAccount();
  const id = await node.deployWasm(await counterWasm(), [admin.publicKey()]);
  assert.equal(await node.view(id, "admin"), admin.publicKey());
  assert.equal(await node.invoke(id, "increment", { by: 7 }), 7);
  assert.equal(await node.view(id, "get"), 7);
  // Over RPC too, after the direct effects' ledger closes.
  const client = await node.clientFor<Any>(id, admin);
  assert.equal((await client.get()).result, 7);
  // ScVal constructor arguments are passed through.
  const id2 = await node.deployWasm(await counterWasm(), [
    nativeToScVal(Address.fromString(admin.publicKey())),
  ]);
  assert.equal(await node.view(id2, "admin"), admin.publicKey());
  await assert.rejects(
    () => node.deployWasm(Uint8Array.of(0, 0x61, 0x73, 0x6d, 1, 0, 0, 0)),
    /Error\(WasmVm, InvalidInput\)/,
  );
});
