/**
 * The PRNG seed of each Soroban transaction, as stellar-core derives it: the ledger's base seed
 * is its transaction set's hash, and the transaction at application index i (0-based, across
 * the ledger, classic transactions included) runs on SHA-256(base ‖ i as XDR uint64). Checked end
 * to end: two transactions in one ledger (after a classic payment) call a contract returning
 * `prng_bytes_new(32)`; their outputs differ, and each is
 * reproduced by running the same call on the real host with the seed computed here from the
 * ledger's published tx set (getLedgers) and the transaction's applicationOrder.
 */
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { Asset, Keypair, Operation, rpc, TransactionBuilder, xdr } from "@stellar/stellar-sdk";
import { startTestNode, type TestNode } from "@vigil/testing/localnet";
import { wat } from "@vigil/testing/wat";
import { REAL_HOST_PROTOCOL, simulateInvoke } from "./real_host/mod.ts";
import { realLedger, settingsOf } from "./real_host/node_host.ts";
import { sorobanTxPrngSeed, subSha256 } from "./prng.ts";

// `prng_bytes_new` is export "0" of module "p" (soroban-env-common 27.0.1 env.json).
const SRC = `(module
  (import "p" "0" (func $prng_bytes_new (param i64) (result i64)))
  (func (export "rand") (result i64) (call $prng_bytes_new (u32 32)))
)`;

/** The formula, written out independently of `localnet/prng.ts`. */
function expectedSeed(txSetHash: Uint8Array, index: number): Uint8Array {
  const counter = Buffer.alloc(8);
  counter.writeBigUInt64BE(BigInt(index));
  return new Uint8Array(createHash("sha256").update(txSetHash).update(counter).digest());
}

const hex = (b: Uint8Array) => Buffer.from(b).toString("hex");

Deno.test("prng: subSha256 is SHA-256(seed ‖ uint64 BE counter), as stellar-core's", () => {
  const seed = new Uint8Array(32).map((_, i) => i);
  for (const i of [0, 1, 255, 256, 70_000]) {
    assert.equal(hex(sorobanTxPrngSeed(seed, i)), hex(expectedSeed(seed, i)));
    assert.equal(hex(subSha256(seed, BigInt(i))), hex(expectedSeed(seed, i)));
  }
});

async function sendRand(node: TestNode, kp: Keypair, contract: string) {
  const acc = await node.server.getAccount(kp.publicKey());
  const tx = new TransactionBuilder(acc, { fee: "100", networkPassphrase: node.networkPassphrase })
    .addOperation(Operation.invokeContractFunction({ contract, function: "rand", args: [] }))
    .setTimeout(60)
    .build();
  const sim = await node.server.simulateTransaction(tx);
  assert.ok(!rpc.Api.isSimulationError(sim), JSON.stringify(sim));
  const ready = rpc.assembleTransaction(tx, sim).build();
  ready.sign(kp);
  const sent = await node.server.sendTransaction(ready);
  assert.equal(sent.status, "PENDING", JSON.stringify(sent));
  return sent.hash;
}

Deno.test("real host node: each Soroban transaction of a ledger gets stellar-core's PRNG sub-seed", async () => {
  await using node = await startTestNode();
  const contract = await node.deployWasm(await wat(SRC, { protocol: REAL_HOST_PROTOCOL }));
  const [alice, bob] = [await node.newAccount(), await node.newAccount()];
  const carol = await node.newAccount();
  await node.closeLedgers(1);
  // A classic payment in the same ledger: applied first (classic phase), it takes index 0, so
  // the Soroban transactions sit at indices 1 and 2 (the index runs across the whole ledger).
  const payAcc = await node.server.getAccount(carol.publicKey());
  const pay = new TransactionBuilder(payAcc, {
    fee: "100",
    networkPassphrase: node.networkPassphrase,
  }).addOperation(
    Operation.payment({ destination: alice.publicKey(), asset: Asset.native(), amount: "1" }),
  ).setTimeout(60).build();
  pay.sign(carol);
  const hashes = [await sendRand(node, alice, contract), await sendRand(node, bob, contract)];
  assert.equal((await node.server.sendTransaction(pay)).status, "PENDING");
  await node.closeLedgers(1);
  const got = await Promise.all(hashes.map((h) => node.confirm(h)));
  for (const g of got) assert.equal(g.status, "SUCCESS", JSON.stringify(g));
  const done = got as rpc.Api.GetSuccessfulTransactionResponse[];
  assert.equal(done[0].ledger, done[1].ledger, "one ledger");
  assert.deepEqual(done.map((g) => g.applicationOrder).sort(), [2, 3], "after the payment");
  const outputs = done.map((g) => g.returnValue!.toXdr("base64"));
  assert.notEqual(outputs[0], outputs[1], "two transactions, two seeds");

  // The ledger's tx set as published, hashed here: the base seed.
  const raw = await fetch(node.rpcUrl, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "getLedgers",
      params: { startLedger: done[0].ledger, pagination: { limit: 1 } },
    }),
  }).then((r) => r.json());
  const meta = xdr.LedgerCloseMeta.fromXDR(raw.result.ledgers[0].metadataXdr, "base64");
  assert.equal(meta.type, "v2");
  const v2 = (meta as xdr.LedgerCloseMeta & { type: "v2" }).v2;
  const txSetHash = new Uint8Array(createHash("sha256").update(v2.txSet.toXdr()).digest());
  assert.equal(
    hex(txSetHash),
    hex(v2.ledgerHeader.header.scpValue.txSetHash.toXdr()),
    "header agrees",
  );

  // Replaying each call on the real host with the seed computed from the formula gives
  // exactly what the ledger applied: the node used that seed.
  const snapshot = (k: string) => {
    const entry = node.chain.store.get(k);
    return entry ? { entry, liveUntil: node.chain.store.liveUntil(k) } : undefined;
  };
  const body = Operation.invokeContractFunction({ contract, function: "rand", args: [] }).body;
  const { hostFunction } = (body as xdr.OperationBody & { type: "invokeHostFunction" })
    .invokeHostFunctionOp;
  const replay = (seed: Uint8Array) => {
    const out = simulateInvoke({
      hostFunction,
      sourceAccount: Keypair.random().xdrAccountId(),
      ledger: realLedger(node.chain.hostLedger()),
      settings: settingsOf(),
      snapshot,
      prngSeed: seed,
    });
    assert.ok(out.ok, out.error?.debug);
    return out.result!.toXdr("base64");
  };
  for (const g of done) {
    const index = g.applicationOrder - 1;
    assert.equal(
      replay(expectedSeed(txSetHash, index)),
      g.returnValue!.toXdr("base64"),
      `tx at index ${index}`,
    );
  }
});
