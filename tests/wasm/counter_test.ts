/**
 * A Wasm contract uploaded and created with the SDK's standard operations over JSON-RPC, then
 * used through `contract.Client.from(...)` unchanged: constructor, storage, auth and events.
 */
import assert from "node:assert/strict";
import { Address, hash, nativeToScVal, scValToNative, xdr } from "@stellar/stellar-sdk";
import { startTestNode } from "../helpers/localnet.ts";
import { counterWasm } from "./contracts.ts";
import { create, upload } from "./deploy_helpers.ts";
import { contractIdFromAddress } from "../../localnet/host/keys.ts";

// deno-lint-ignore no-explicit-any
type Any = any;

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
  const networkId = hash(new TextEncoder().encode(node.networkPassphrase) as Any) as Uint8Array;
  assert.equal(id, contractIdFromAddress(networkId, alice.publicKey(), salt));

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
