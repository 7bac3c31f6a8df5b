/**
 * The node on the real Soroban host, over JSON-RPC with stellar-sdk: protocol 27
 * reported everywhere, the counter uploaded, created and incremented by transactions, a SAC
 * transfer with its CAP-67 fee charge and refund, an archived entry restored automatically
 * (CAP-66: no restorePreamble, the tx data's v1 extension), a memo refused, the in-process API.
 */
import assert from "node:assert/strict";
import {
  Address,
  Asset,
  hash,
  type Keypair,
  Memo,
  nativeToScVal,
  Operation,
  rpc,
  scValToNative,
  TransactionBuilder,
  xdr,
} from "@stellar/stellar-sdk";
import { startTestNode, type TestNode } from "@vigil/testing/localnet";
import { fixtureWasmSync } from "@vigil/testing/contracts/mod";

const SHORT = { minPersistentTtl: 30, minTemporaryTtl: 10, maxEntryTtl: 10_000 };

async function build(node: TestNode, kp: Keypair, op: xdr.Operation, memo?: Memo) {
  const acc = await node.server.getAccount(kp.publicKey());
  const b = new TransactionBuilder(acc, { fee: "100", networkPassphrase: node.networkPassphrase })
    .addOperation(op)
    .setTimeout(60);
  if (memo) b.addMemo(memo);
  return b.build();
}

/** Simulates, assembles, signs, sends and confirms one operation; the getTransaction answer. */
async function run(node: TestNode, kp: Keypair, op: xdr.Operation) {
  const tx = await build(node, kp, op);
  const sim = await node.server.simulateTransaction(tx);
  assert.ok(!rpc.Api.isSimulationError(sim), JSON.stringify(sim));
  const ready = rpc.assembleTransaction(tx, sim).build();
  ready.sign(kp);
  const sent = await node.server.sendTransaction(ready);
  assert.equal(sent.status, "PENDING", JSON.stringify(sent));
  const got = await node.confirm(sent.hash);
  assert.equal(got.status, "SUCCESS", JSON.stringify(got));
  return { sim, got: got as rpc.Api.GetSuccessfulTransactionResponse };
}

async function deployCounter(node: TestNode, admin: Keypair): Promise<string> {
  const wasm = fixtureWasmSync("counter");
  await run(node, admin, Operation.uploadContractWasm({ wasm }));
  const { got } = await run(
    node,
    admin,
    Operation.createCustomContract({
      address: new Address(admin.publicKey()),
      wasmHash: hash(wasm as never),
      salt: new Uint8Array(32).fill(7) as never,
      constructorArgs: [new Address(admin.publicKey()).toScVal()],
    }),
  );
  return Address.fromScVal(got.returnValue!).toString();
}

const increment = (id: string, user: string, by: number) =>
  Operation.invokeContractFunction({
    contract: id,
    function: "increment",
    args: [new Address(user).toScVal(), nativeToScVal(by, { type: "u32" })],
  });

Deno.test("real host node: protocol 27 in getVersionInfo, getNetwork, getLatestLedger, headers", async () => {
  await using node = await startTestNode();
  const version = await node.server.getVersionInfo();
  assert.equal(version.protocolVersion, 27);
  assert.equal((await node.server.getNetwork()).protocolVersion, 27);
  const latest = await node.server.getLatestLedger();
  assert.equal(latest.protocolVersion, 27);
  const raw = await fetch(node.rpcUrl, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "getLatestLedger" }),
  }).then((r) => r.json());
  const header = xdr.LedgerHeader.fromXdr(raw.result.headerXdr, "base64");
  assert.equal(header.ledgerVersion, 27);
});

Deno.test("real host node: counter uploaded, created and incremented by transactions; memo refused", async () => {
  await using node = await startTestNode();
  const admin = await node.newAccount();
  const id = await deployCounter(node, admin);
  assert.match(id, /^C[A-Z2-7]{55}$/);
  const first = await run(node, admin, increment(id, admin.publicKey(), 5));
  assert.equal(scValToNative(first.got.returnValue!), 5);
  const second = await run(node, admin, increment(id, admin.publicKey(), 7));
  assert.equal(scValToNative(second.got.returnValue!), 12);
  // The in-process API runs on the same host.
  assert.equal(await node.view(id, "get", { user: admin.publicKey() }), 12);
  // contract.Client over JSON-RPC (spec fetched from the node).
  const client = await node.clientFor<
    { get(a: { user: string }): Promise<{ result: unknown }> }
  >(id, admin);
  const got = (await client.get({ user: admin.publicKey() })).result as { unwrap?: () => unknown };
  assert.equal(typeof got?.unwrap === "function" ? got.unwrap() : got, 12);
  // stellar-rpc refuses a Soroban transaction with a memo at simulation.
  const memoTx = await build(
    node,
    admin,
    increment(id, admin.publicKey(), 1),
    Memo.text("hi"),
  );
  const sim = await node.server.simulateTransaction(memoTx);
  assert.ok(rpc.Api.isSimulationError(sim));
  assert.match(sim.error, /memo/i);
});

Deno.test("real host node: a SAC transfer carries the fee charge and refund events", async () => {
  await using node = await startTestNode();
  const sac = await node.deployAsset(Asset.native());
  const alice = await node.newAccount();
  const bob = await node.newAccount();
  const { got } = await run(
    node,
    alice,
    Operation.invokeContractFunction({
      contract: sac,
      function: "transfer",
      args: [
        new Address(alice.publicKey()).toScVal(),
        new Address(bob.publicKey()).toScVal(),
        nativeToScVal(10_000_000n, { type: "i128" }),
      ],
    }),
  );
  const fees = (got.events?.transactionEventsXdr ?? []).map((e) =>
    scValToNative(e.event.body.v0.topics[0])
  );
  assert.deepEqual(fees, ["fee", "fee"], "the charge and the refund");
  const contractEvents = (got.events?.contractEventsXdr ?? []).flat().map((e) =>
    scValToNative(e.body.v0.topics[0])
  );
  assert.deepEqual(contractEvents, ["transfer"]);
});

Deno.test("real host node: an archived entry simulates without restorePreamble and is restored when sent", async () => {
  await using node = await startTestNode({ network: SHORT });
  const admin = await node.newAccount();
  const id = await deployCounter(node, admin);
  await run(node, admin, increment(id, admin.publicKey(), 5));
  // Past the 30-ledger minimum TTL: the count entry, the instance and the code archive.
  await node.closeLedgers(40);
  const key = xdr.LedgerKey.contractData(
    new xdr.LedgerKeyContractData({
      contract: Address.fromString(id).toScAddress(),
      key: xdr.ScVal.scvVec([
        xdr.ScVal.scvSymbol("Count"),
        new Address(admin.publicKey()).toScVal(),
      ]),
      durability: xdr.ContractDataDurability.persistent,
    }),
  );
  assert.ok(node.chain.store.archived(key.toXdr("base64")), "the count entry is archived");
  const tx = await build(node, admin, increment(id, admin.publicKey(), 2));
  const sim = await node.server.simulateTransaction(tx);
  assert.ok(!rpc.Api.isSimulationError(sim), JSON.stringify(sim));
  assert.ok(!rpc.Api.isSimulationRestore(sim), "no restorePreamble: automatic restore");
  const ext = sim.transactionData.build().ext.toJson() as {
    v1?: { archived_soroban_entries: number[] };
  };
  // The count entry, the instance and the code all archived: all three restored by the call.
  assert.deepEqual(ext.v1?.archived_soroban_entries, [0, 1, 2], "listed in the v1 extension");
  const ready = rpc.assembleTransaction(tx, sim).build();
  ready.sign(admin);
  const sent = await node.server.sendTransaction(ready);
  const got = await node.confirm(sent.hash);
  assert.equal(got.status, "SUCCESS", JSON.stringify(got));
  assert.equal(scValToNative((got as rpc.Api.GetSuccessfulTransactionResponse).returnValue!), 7);
  assert.ok(!node.chain.store.archived(key.toXdr("base64")), "restored");
});
