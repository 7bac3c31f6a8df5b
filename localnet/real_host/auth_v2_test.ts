/**
 * Address credentials v2 (CAP-71) in simulation on the real host, as stellar-rpc does it: the
 * `simulateTransaction` request field `useUpgradedAuth` (omitted or false → recorded address
 * auth is `SOROBAN_CREDENTIALS_ADDRESS`, true → `SOROBAN_CREDENTIALS_ADDRESS_V2`, not a boolean →
 * invalid params), and stellar-sdk 17's default (it asks for v2 and signs v2 entries with
 * `authorizeEntry`) simulated, signed, sent and applied.
 */
import assert from "node:assert/strict";
import {
  Address,
  Asset,
  authorizeEntry,
  type Keypair,
  nativeToScVal,
  Operation,
  rpc,
  scValToNative,
  TransactionBuilder,
  xdr,
} from "@stellar/stellar-sdk";
import { startTestNode, type TestNode } from "@vigil/testing/localnet";
import { deployFixture } from "@vigil/testing/contracts/mod";

async function build(node: TestNode, source: Keypair, op: xdr.Operation) {
  const acc = await node.server.getAccount(source.publicKey());
  return new TransactionBuilder(acc, { fee: "100", networkPassphrase: node.networkPassphrase })
    .addOperation(op)
    .setTimeout(60)
    .build();
}

/** A raw `simulateTransaction` call with `extra` request fields. */
async function rawSimulate(node: TestNode, txB64: string, extra: Record<string, unknown>) {
  const res = await fetch(node.rpcUrl, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "simulateTransaction",
      params: { transaction: txB64, ...extra },
    }),
  });
  return await res.json();
}

const credentialsOf = (b64: string) =>
  xdr.SorobanAuthorizationEntry.fromXDR(b64, "base64").credentials.type;

const increment = (id: string, user: string, by: number) =>
  Operation.invokeContractFunction({
    contract: id,
    function: "increment",
    args: [new Address(user).toScVal(), nativeToScVal(by, { type: "u32" })],
  });

/**
 * Simulates `op` with stellar-sdk's defaults (v2 recorded auth), signs every address entry with
 * `authorizeEntry` as `signer`, sends it from `source` and returns the confirmed result.
 */
async function sendSignedBy(node: TestNode, source: Keypair, signer: Keypair, op: xdr.Operation) {
  const tx = await build(node, source, op);
  const sim = await node.server.simulateTransaction(tx);
  assert.ok(!rpc.Api.isSimulationError(sim), JSON.stringify(sim));
  const recorded = sim.result!.auth;
  assert.ok(recorded.length > 0, "address auth recorded");
  for (const e of recorded) {
    assert.equal(e.credentials.type, "sorobanCredentialsAddressV2", "SDK default: v2");
  }
  const until = (await node.server.getLatestLedger()).sequence + 100;
  const signed = await Promise.all(
    recorded.map((e) => authorizeEntry(e, signer, until, node.networkPassphrase)),
  );
  const func = (op.body as xdr.OperationBody & { type: "invokeHostFunction" })
    .invokeHostFunctionOp.hostFunction;
  const withAuth = await build(node, source, Operation.invokeHostFunction({ func, auth: signed }));
  const ready = rpc.assembleTransaction(withAuth, sim).build();
  ready.sign(source);
  const sent = await node.server.sendTransaction(ready);
  assert.equal(sent.status, "PENDING", JSON.stringify(sent));
  const got = await node.confirm(sent.hash);
  assert.equal(got.status, "SUCCESS", JSON.stringify(got));
  return got as rpc.Api.GetSuccessfulTransactionResponse;
}

Deno.test("real host simulateTransaction: useUpgradedAuth omitted/false → v1, true → v2, else invalid params", async () => {
  await using node = await startTestNode();
  const admin = await node.newAccount();
  const user = await node.newAccount();
  const id = await deployFixture(node, "counter", [new Address(admin.publicKey()).toScVal()]);
  // `user` is not the source: its authorization is an address-credentials entry.
  const txB64 = (await build(node, admin, increment(id, user.publicKey(), 1))).toXDR();
  const kind = async (extra: Record<string, unknown>) => {
    const r = await rawSimulate(node, txB64, extra);
    assert.equal(r.error, undefined, JSON.stringify(r));
    assert.equal(r.result.error, undefined, JSON.stringify(r.result));
    return (r.result.results[0].auth as string[]).map(credentialsOf);
  };
  assert.deepEqual(await kind({}), ["sorobanCredentialsAddress"]);
  assert.deepEqual(await kind({ useUpgradedAuth: false }), ["sorobanCredentialsAddress"]);
  assert.deepEqual(await kind({ useUpgradedAuth: null }), ["sorobanCredentialsAddress"]);
  assert.deepEqual(await kind({ useUpgradedAuth: true }), ["sorobanCredentialsAddressV2"]);
  // Go's JSON decoding of the request refuses a non-boolean: the whole call is invalid params.
  for (const bad of ["true", 1, {}]) {
    const r = await rawSimulate(node, txB64, { useUpgradedAuth: bad });
    assert.equal(r.error?.code, -32602, JSON.stringify(r));
    assert.match(r.error.message, /useUpgradedAuth/);
  }
});

Deno.test("real host: SDK-default v2 address auth (counter.increment for another account) applies", async () => {
  await using node = await startTestNode();
  const admin = await node.newAccount();
  const user = await node.newAccount();
  const id = await deployFixture(node, "counter", [new Address(admin.publicKey()).toScVal()]);
  const got = await sendSignedBy(node, admin, user, increment(id, user.publicKey(), 4));
  assert.equal(scValToNative(got.returnValue!), 4);
  assert.equal(await node.view(id, "get", { user: user.publicKey() }), 4);
  // The v1 path still works too (the SDK's flag turned off).
  const tx = await build(node, admin, increment(id, user.publicKey(), 1));
  const sim = await node.server.simulateTransaction(tx, undefined, undefined, false);
  assert.ok(!rpc.Api.isSimulationError(sim), JSON.stringify(sim));
  assert.equal(sim.result!.auth[0].credentials.type, "sorobanCredentialsAddress");
});

Deno.test("real host: SDK-default v2 auth of a SAC transfer `from` another account applies", async () => {
  await using node = await startTestNode();
  const sac = await node.deployAsset(Asset.native());
  const alice = await node.newAccount();
  const bob = await node.newAccount();
  const balance = async (who: string) =>
    BigInt(await node.view(sac, "balance", { id: who }) as bigint);
  const before = await balance(alice.publicKey());
  // Bob sends the transaction; the transfer's `from` is Alice, who signs her v2 entry.
  await sendSignedBy(
    node,
    bob,
    alice,
    Operation.invokeContractFunction({
      contract: sac,
      function: "transfer",
      args: [
        new Address(alice.publicKey()).toScVal(),
        new Address(bob.publicKey()).toScVal(),
        nativeToScVal(25_000_000n, { type: "i128" }),
      ],
    }),
  );
  assert.equal(before - (await balance(alice.publicKey())), 25_000_000n, "Alice paid no fee");
});
