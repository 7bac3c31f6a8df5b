/**
 * Soroban over real HTTP with the unmodified SDK: contract.Client against a deployed test
 * contract (read, write, contract errors), non-invoker auth (signed, unsigned, expired,
 * replayed), footprint enforcement, resource-fee validation, in-process invoke/view.
 */
import assert from "node:assert/strict";
import {
  Account,
  Address,
  authorizeEntry,
  contract,
  Keypair,
  nativeToScVal,
  Operation,
  rpc,
  scValToNative,
  TransactionBuilder,
  xdr,
} from "@stellar/stellar-sdk";
import { startTestNode, type TestNode } from "@vigil/testing/localnet";
import { deployFixture } from "@vigil/testing/contracts/mod";

/** A contract.Client of the counter, methods by name. */
type Counter = contract.Client & Record<string, CounterMethod>;
// deno-lint-ignore no-explicit-any
type CounterMethod = (args?: any) => Promise<contract.AssembledTransaction<unknown>>;

/** The Ok value of a contract.Client result (every counter function returns Result<_, Error>). */
function ok<T>(r: unknown): T {
  return (r as contract.Result<T>).unwrap();
}

/** The `Error(type, code)` topics of a failed transaction's diagnostic events, as JSON text. */
function hostErrors(got: rpc.Api.GetTransactionResponse | undefined): string {
  assert.ok(got && got.status === "FAILED", `expected FAILED, got ${got?.status}`);
  const diag = (got as rpc.Api.GetFailedTransactionResponse).diagnosticEventsXdr ?? [];
  return diag
    .map((d) => d.event.body.v0.topics)
    .filter((t) => t[0]?.type === "scvSymbol" && String(t[0].sym) === "error")
    .map((t) => JSON.stringify(t[1].toJson()))
    .join(" ");
}

async function setup() {
  const node = await startTestNode();
  const admin = await node.newAccount();
  const id = await deployFixture(node, "counter", { admin: admin.publicKey() });
  return { node, admin, id };
}

/** Builds, simulates and signs an `increment(user, by)` call from `source` (no assembly magic). */
async function incrementTx(node: TestNode, id: string, source: Keypair, user: string, by: number) {
  const acc = await node.server.getAccount(source.publicKey());
  const op = Operation.invokeContractFunction({
    contract: id,
    function: "increment",
    args: [new Address(user).toScVal(), nativeToScVal(by, { type: "u32" })],
  });
  const raw = new TransactionBuilder(acc, { fee: "100", networkPassphrase: node.networkPassphrase })
    .addOperation(op)
    .setTimeout(60)
    .build();
  const sim = await node.server.simulateTransaction(raw);
  assert.ok(rpc.Api.isSimulationSuccess(sim), JSON.stringify(sim));
  return { acc, raw, sim: sim as rpc.Api.SimulateTransactionSuccessResponse };
}

/** Assembles `raw` with `sim` but with the given auth entries, signs it and sends it. */
async function sendWithAuth(
  node: TestNode,
  source: Keypair,
  raw: ReturnType<TransactionBuilder["build"]>,
  sim: rpc.Api.SimulateTransactionSuccessResponse,
  auth: xdr.SorobanAuthorizationEntry[],
) {
  const op = raw.operations[0] as Operation.InvokeHostFunction;
  const acc = await node.server.getAccount(source.publicKey());
  const tx = new TransactionBuilder(acc, {
    fee: "100",
    networkPassphrase: node.networkPassphrase,
  })
    .addOperation(Operation.invokeHostFunction({ func: op.func, auth }))
    .setSorobanData(sim.transactionData.build())
    .setTimeout(60)
    .build();
  tx.sign(source);
  const sent = await node.server.sendTransaction(tx);
  return {
    sent,
    got: sent.status === "PENDING" ? await node.confirm(sent.hash) : undefined,
  };
}

Deno.test("contract.Client: read without signature, write with signAndSend, Err with message", async () => {
  const { node, id } = await setup();
  await using _ = node;
  const alice = await node.newAccount();
  const client = await node.clientFor<Counter>(id, alice);
  // Read call: simulated only, no signature needed.
  const read = await client.get({ user: alice.publicKey() });
  assert.equal(ok(read.result), 0);
  assert.equal(read.isReadCall, true);
  // Write: alice is the invoker (source-account auth), signAndSend → SUCCESS with return value.
  const tx = await client.increment({ user: alice.publicKey(), by: 5 });
  assert.equal(tx.isReadCall, false);
  const sent = await tx.signAndSend();
  assert.equal(sent.getTransactionResponse?.status, "SUCCESS");
  assert.equal(ok(sent.result), 5);
  assert.equal(ok((await client.get({ user: alice.publicKey() })).result), 5);
  // Contract error: decoded to Err with the spec's message.
  const err = await client.increment({ user: alice.publicKey(), by: 101 });
  const r = err.result as contract.Result<number>;
  assert.equal(r.isErr(), true);
  assert.equal(r.unwrapErr().message, "Too big");
  assert.match(
    err.simulation && "error" in err.simulation ? err.simulation.error : "",
    /Error\(Contract, #1\)/,
  );
  // A panic surfaces as Error(WasmVm, InvalidAction) in the simulation error.
  const boom = await client.boom();
  assert.ok(boom.simulation && rpc.Api.isSimulationError(boom.simulation));
  assert.match(
    (boom.simulation as rpc.Api.SimulateTransactionErrorResponse).error,
    /Error\(WasmVm, InvalidAction\)/,
  );
});

Deno.test("non-invoker auth: signAuthEntries succeeds; unsigned, expired and replayed fail", async () => {
  const { node, id } = await setup();
  await using _ = node;
  const alice = await node.newAccount();
  const bob = await node.newAccount();
  const client = await node.clientFor<Counter>(id, alice);
  const tx = await client.increment({ user: bob.publicKey(), by: 7 });
  assert.deepEqual(tx.needsNonInvokerSigningBy(), [bob.publicKey()]);
  await tx.signAuthEntries({
    address: bob.publicKey(),
    signAuthEntry: contract.basicNodeSigner(bob, node.networkPassphrase).signAuthEntry,
  });
  const sent = await tx.signAndSend();
  assert.equal(sent.getTransactionResponse?.status, "SUCCESS");
  assert.equal(ok((await client.get({ user: bob.publicKey() })).result), 7);

  // Unsigned: submit the simulated (scvVoid-signature) entry as is → FAILED, seq consumed.
  const u = await incrementTx(node, id, alice, bob.publicKey(), 1);
  const seqBefore = BigInt((await node.server.getAccount(alice.publicKey())).sequenceNumber());
  const unsigned = await sendWithAuth(node, alice, u.raw, u.sim, u.sim.result!.auth);
  assert.equal(unsigned.sent.status, "PENDING");
  // Real host: Error(Auth, InvalidAction) wrapping the signature decode error; accept either.
  assert.match(hostErrors(unsigned.got), /auth|unexpected_type/);
  assert.equal(
    BigInt((await node.server.getAccount(alice.publicKey())).sequenceNumber()),
    seqBefore + 1n,
  );

  // Expired: signed to expire at the next ledger, submitted after more ledgers closed.
  const e = await incrementTx(node, id, alice, bob.publicKey(), 1);
  const latest = (await node.server.getLatestLedger()).sequence;
  const shortLived = await authorizeEntry(
    e.sim.result!.auth[0],
    bob,
    latest + 1,
    node.networkPassphrase,
  );
  await node.closeLedgers(3);
  const expired = await sendWithAuth(node, alice, e.raw, e.sim, [shortLived]);
  assert.match(hostErrors(expired.got), /auth.*invalid_input/);

  // Replayed: a signed entry works once; the same entry (same nonce) in a new tx fails.
  const p = await incrementTx(node, id, alice, bob.publicKey(), 2);
  const signed = await authorizeEntry(
    p.sim.result!.auth[0],
    bob,
    latest + 1000,
    node.networkPassphrase,
  );
  const first = await sendWithAuth(node, alice, p.raw, p.sim, [signed]);
  assert.equal(first.got?.status, "SUCCESS");
  const replay = await sendWithAuth(node, alice, p.raw, p.sim, [signed]);
  assert.equal(replay.sent.status, "PENDING");
  assert.match(hostErrors(replay.got), /auth.*existing_value/);
  assert.equal(ok((await client.get({ user: bob.publicKey() })).result), 9);
});

Deno.test("trimmed footprint fails as FAILED with seq consumed; low resource fee is ERROR", async () => {
  const { node, id } = await setup();
  await using _ = node;
  const alice = await node.newAccount();
  const s = await incrementTx(node, id, alice, alice.publicKey(), 3);
  const data = s.sim.transactionData.build();
  const rw = data.resources.footprint.readWrite;
  assert.ok(rw.length >= 1);
  // Drop the counter's storage key from readWrite (the counter entry the call writes).
  const trimmed = new xdr.SorobanTransactionData({
    ext: data.ext,
    resourceFee: data.resourceFee,
    resources: new xdr.SorobanResources({
      footprint: new xdr.LedgerFootprint({
        readOnly: data.resources.footprint.readOnly,
        readWrite: rw.slice(1),
      }),
      instructions: data.resources.instructions,
      diskReadBytes: data.resources.diskReadBytes,
      writeBytes: data.resources.writeBytes,
    }),
  });
  const seq0 = BigInt((await node.server.getAccount(alice.publicKey())).sequenceNumber());
  const bal0 = (await node.server.getAccountEntry(alice.publicKey())).balance;
  const acc = await node.server.getAccount(alice.publicKey());
  const op = s.raw.operations[0] as Operation.InvokeHostFunction;
  const tx = new TransactionBuilder(acc, {
    fee: "100",
    networkPassphrase: node.networkPassphrase,
  })
    .addOperation(Operation.invokeHostFunction({ func: op.func, auth: s.sim.result!.auth }))
    .setSorobanData(trimmed)
    .setTimeout(60)
    .build();
  tx.sign(alice);
  const sent = await node.server.sendTransaction(tx);
  assert.equal(sent.status, "PENDING");
  const got = await node.confirm(sent.hash);
  assert.match(hostErrors(got), /storage.*exceeded_limit/);
  if (got.status === "FAILED") {
    assert.deepEqual(got.resultXdr.result.toJson(), {
      tx_failed: [{ op_inner: { invoke_host_function: "trapped" } }],
    });
    const meta = got.resultMetaXdr;
    assert.equal(meta.type, "v4");
    if (meta.type === "v4") assert.equal(meta.v4.sorobanMeta, null);
    // The fee (inclusion 100 + the resource fee of the declared resources, see the README's fee
    // model) is charged from the native balance even though the call failed.
    const charged = BigInt(got.resultXdr.feeCharged);
    assert.ok(charged > 100n && charged <= 100n + BigInt(data.resourceFee), `${charged}`);
    assert.equal((await node.server.getAccountEntry(alice.publicKey())).balance, bal0 - charged);
  }
  assert.equal(
    BigInt((await node.server.getAccount(alice.publicKey())).sequenceNumber()),
    seq0 + 1n,
  );
  assert.equal(await node.view(id, "get", { user: alice.publicKey() }), 0);

  // A resource fee below the non-refundable fee of the declared resources and the envelope's
  // size → ERROR txSorobanInvalid.
  const acc2 = await node.server.getAccount(alice.publicKey());
  const cheap = new xdr.SorobanTransactionData({
    ext: data.ext,
    resourceFee: 1000n,
    resources: data.resources,
  });
  const tx2 = new TransactionBuilder(acc2, {
    fee: "100",
    networkPassphrase: node.networkPassphrase,
  })
    .addOperation(Operation.invokeHostFunction({ func: op.func, auth: s.sim.result!.auth }))
    .setSorobanData(cheap)
    .setTimeout(60)
    .build();
  tx2.sign(alice);
  const sent2 = await node.server.sendTransaction(tx2);
  assert.equal(sent2.status, "ERROR");
  assert.equal(sent2.errorResult?.result.type, "txSorobanInvalid");
  assert.ok((sent2.diagnosticEvents ?? []).length > 0);
  const acc3 = await node.server.getAccount(alice.publicKey());
  // Inclusion fee below 100 with an exact resource fee → txInsufficientFee.
  const tx3 = new TransactionBuilder(acc3, {
    fee: "99", // the builder adds the resource fee on top
    networkPassphrase: node.networkPassphrase,
  })
    .addOperation(Operation.invokeHostFunction({ func: op.func, auth: s.sim.result!.auth }))
    .setSorobanData(data)
    .setTimeout(60)
    .build();
  tx3.sign(alice);
  const sent3 = await node.server.sendTransaction(tx3);
  assert.equal(sent3.errorResult?.result.type, "txInsufficientFee");

  // Enough for the non-refundable part but not for the rent of the counter's new persistent
  // entry: accepted, then FAILED with INSUFFICIENT_REFUNDABLE_FEE; the refundable part is
  // refunded, so less than the declared fee is charged.
  const acc4 = await node.server.getAccount(alice.publicKey());
  const short = new xdr.SorobanTransactionData({
    ext: data.ext,
    // Half the simulated fee: well above the non-refundable part (~15k stroops at protocol 27's
    // schedule), well below it plus the new entry's rent (~170k at 1,000 stroops/KB).
    resourceFee: data.resourceFee / 2n,
    resources: data.resources,
  });
  const tx4 = new TransactionBuilder(acc4, {
    fee: "100",
    networkPassphrase: node.networkPassphrase,
  })
    .addOperation(Operation.invokeHostFunction({ func: op.func, auth: s.sim.result!.auth }))
    .setSorobanData(short)
    .setTimeout(60)
    .build();
  tx4.sign(alice);
  const bal4 = (await node.server.getAccountEntry(alice.publicKey())).balance;
  const sent4 = await node.server.sendTransaction(tx4);
  assert.equal(sent4.status, "PENDING");
  const got4 = await node.confirm(sent4.hash);
  assert.equal(got4.status, "FAILED");
  if (got4.status === "FAILED") {
    assert.deepEqual(got4.resultXdr.result.toJson(), {
      tx_failed: [{ op_inner: { invoke_host_function: "insufficient_refundable_fee" } }],
    });
    const charged4 = BigInt(got4.resultXdr.feeCharged);
    assert.ok(charged4 < 100n + BigInt(short.resourceFee), `${charged4}`);
    assert.equal((await node.server.getAccountEntry(alice.publicKey())).balance, bal4 - charged4);
  }
});

Deno.test("minResourceFee grows with new persistent entries, not with the envelope's signatures", async () => {
  const { node, id } = await setup();
  await using _ = node;
  const alice = await node.newAccount();
  // First call creates the counter's persistent entry (rent for its minimum TTL); the second
  // only updates it.
  const first = await incrementTx(node, id, alice, alice.publicKey(), 1);
  const client = await node.clientFor<{
    increment(a: { user: string; by: number }): Promise<{ signAndSend(): Promise<unknown> }>;
  }>(id, alice);
  await (await client.increment({ user: alice.publicKey(), by: 1 })).signAndSend();
  const second = await incrementTx(node, id, alice, alice.publicKey(), 1);
  const fee1 = BigInt(first.sim.minResourceFee);
  const fee2 = BigInt(second.sim.minResourceFee);
  // The new entry's rent for its minimum TTL (2,073,600 ledgers at protocol 27's 1,000 stroops
  // per KB and 1,215-ledger rent period: ~1,700 stroops per byte) dominates.
  assert.ok(fee1 > fee2 + 100_000n, `new entry ${fee1} vs update ${fee2}`);
  // stellar-rpc's preflight sizes the transaction from the operation (host function, footprint,
  // auth) with its own margin (×1.1 + 500 bytes), not from the envelope it was given: the same
  // call simulated from an envelope carrying 20 signatures costs the same. (The home-made host
  // measured the envelope and charged ~25,100 stroops more; the real preflight does not.)
  const acc = await node.server.getAccount(alice.publicKey());
  const call = () =>
    new TransactionBuilder(acc, { fee: "100", networkPassphrase: node.networkPassphrase })
      .addOperation(
        Operation.invokeContractFunction({
          contract: id,
          function: "get",
          args: [new Address(alice.publicKey()).toScVal()],
        }),
      )
      .setTimeout(0)
      .build();
  const bare = call();
  const heavy = call();
  for (let i = 0; i < 20; i++) heavy.sign(Keypair.random());
  const small = await node.server.simulateTransaction(bare);
  const big = await node.server.simulateTransaction(heavy);
  assert.ok(!rpc.Api.isSimulationError(small) && !rpc.Api.isSimulationError(big));
  if (!rpc.Api.isSimulationError(small) && !rpc.Api.isSimulationError(big)) {
    const d = BigInt(big.minResourceFee) - BigInt(small.minResourceFee);
    assert.equal(d, 0n);
  }
});

Deno.test("simulation: minResourceFee equals transactionData.resourceFee; stellar-rpc pre-checks", async () => {
  const { node, id } = await setup();
  await using _ = node;
  const alice = await node.newAccount();
  const s = await incrementTx(node, id, alice, alice.publicKey(), 1);
  assert.equal(BigInt(s.sim.minResourceFee), s.sim.transactionData.build().resourceFee);
  // The nonce-free source-account auth for the invoker; the counter key in readWrite.
  assert.equal(s.sim.result!.auth[0].credentials.type, "sorobanCredentialsSourceAccount");
  // A source account that does not exist is fine for simulation.
  const ghost = Keypair.random();
  const ghostTx = new TransactionBuilder(new Account(ghost.publicKey(), "0"), {
    fee: "100",
    networkPassphrase: node.networkPassphrase,
  }).addOperation(Operation.invokeContractFunction({
    contract: id,
    function: "get",
    args: [new Address(alice.publicKey()).toScVal()],
  })).setTimeout(0).build();
  const gs = await node.server.simulateTransaction(ghostTx);
  assert.ok(rpc.Api.isSimulationSuccess(gs));
  assert.equal(scValToNative((gs as rpc.Api.SimulateTransactionSuccessResponse).result!.retval), 0);
  // Two ops → the exact stellar-rpc message.
  const acc = await node.server.getAccount(alice.publicKey());
  const two = new TransactionBuilder(acc, { fee: "100", networkPassphrase: node.networkPassphrase })
    .addOperation(Operation.bumpSequence({ bumpTo: "0" }))
    .addOperation(Operation.bumpSequence({ bumpTo: "0" }))
    .setTimeout(0).build();
  const twoSim = await node.server.simulateTransaction(two);
  assert.equal(
    (twoSim as rpc.Api.SimulateTransactionErrorResponse).error,
    "Transaction contains more than one operation",
  );
  const one = new TransactionBuilder(acc, { fee: "100", networkPassphrase: node.networkPassphrase })
    .addOperation(Operation.bumpSequence({ bumpTo: "0" }))
    .setTimeout(0).build();
  const oneSim = await node.server.simulateTransaction(one);
  assert.equal(
    (oneSim as rpc.Api.SimulateTransactionErrorResponse).error,
    "transaction contains unsupported operation type: OperationTypeBumpSequence",
  );
});

Deno.test("in-process invoke/view: mocked auth, errors carry Error(Contract, #N)", async () => {
  const { node, id } = await setup();
  await using _ = node;
  const user = (await node.newAccount()).publicKey();
  assert.equal(await node.invoke(id, "increment", { user, by: 4 }), 4);
  assert.equal(await node.invoke(id, "increment", [user, 6]), 10);
  assert.equal(await node.view(id, "get", { user }), 10);
  await assert.rejects(node.invoke(id, "increment", { user, by: 500 }), /Error\(Contract, #1\)/);
  // The direct effects are closed into a ledger before the next RPC read.
  const client = await node.clientFor<Counter>(id);
  assert.equal(ok((await client.get({ user })).result), 10);
});

Deno.test("simulation auth modes, success without an error key; duplicate keys and fee > bid", async () => {
  const { node, id } = await setup();
  await using _ = node;
  const alice = await node.newAccount();
  const bob = await node.newAccount();
  const s = await incrementTx(node, id, alice, bob.publicKey(), 1);
  const raw = async (params: unknown) =>
    (await fetch(node.rpcUrl, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "simulateTransaction", params }),
    })).json();
  const ok = await raw({ transaction: s.raw.toEnvelope().toXdr("base64") });
  assert.equal("error" in ok.result, false);
  assert.equal(ok.result.results.length, 1);
  assert.equal(ok.result.minResourceFee, String(s.sim.transactionData.build().resourceFee));
  // With auth entries present: enforce by default; asking for record is an error.
  const op = s.raw.operations[0] as Operation.InvokeHostFunction;
  const withAuth = new TransactionBuilder(await node.server.getAccount(alice.publicKey()), {
    fee: "100",
    networkPassphrase: node.networkPassphrase,
  }).addOperation(Operation.invokeHostFunction({ func: op.func, auth: s.sim.result!.auth }))
    .setTimeout(60).build().toEnvelope().toXdr("base64");
  const rec = await raw({ transaction: withAuth, authMode: "record" });
  assert.equal(rec.result.error, "cannot set authMode to 'record' with an auth footprint");
  const enf = await raw({ transaction: withAuth });
  assert.match(enf.result.error, /Error\(/); // bob's entry is unsigned: enforcement fails
  const bad = await raw({ transaction: withAuth, authMode: "nope" });
  assert.equal(
    bad.result.error,
    "optional 'authMode' must be one of enforce,record,record_allow_nonroot when included",
  );

  // Duplicate footprint key → txSorobanInvalid; resourceFee above the fee bid → txSorobanInvalid.
  const self = await incrementTx(node, id, alice, alice.publicKey(), 1);
  const data = self.sim.transactionData.build();
  const fp = data.resources.footprint;
  const send = async (d: xdr.SorobanTransactionData, fee: string) => {
    const tx = new TransactionBuilder(await node.server.getAccount(alice.publicKey()), {
      fee,
      networkPassphrase: node.networkPassphrase,
    }).addOperation(Operation.invokeHostFunction({ func: op.func, auth: self.sim.result!.auth }))
      .setSorobanData(d).setTimeout(60).build();
    tx.sign(alice);
    return await node.server.sendTransaction(tx);
  };
  const dup = new xdr.SorobanTransactionData({
    ext: data.ext,
    resourceFee: data.resourceFee * 2n,
    resources: new xdr.SorobanResources({
      footprint: new xdr.LedgerFootprint({
        readOnly: [...fp.readOnly, fp.readWrite[0]],
        readWrite: fp.readWrite,
      }),
      instructions: data.resources.instructions,
      diskReadBytes: data.resources.diskReadBytes,
      writeBytes: data.resources.writeBytes,
    }),
  });
  const d1 = await send(dup, "100");
  assert.equal(d1.errorResult?.result.type, "txSorobanInvalid");
  // The builder adds resourceFee to the fee; a raw envelope is needed to bid less than it.
  const tx = new TransactionBuilder(await node.server.getAccount(alice.publicKey()), {
    fee: "100",
    networkPassphrase: node.networkPassphrase,
  }).addOperation(Operation.invokeHostFunction({ func: op.func, auth: self.sim.result!.auth }))
    .setSorobanData(data).setTimeout(60).build();
  const env = tx.toEnvelope();
  if (env.type !== "envelopeTypeTx") throw new Error("unexpected envelope");
  const t = env.v1.tx;
  const lowBid = new xdr.Transaction({
    sourceAccount: t.sourceAccount,
    fee: Number(data.resourceFee) - 1,
    seqNum: t.seqNum,
    cond: t.cond,
    memo: t.memo,
    operations: t.operations,
    ext: t.ext,
  });
  const lowTx = TransactionBuilder.fromXDR(
    xdr.TransactionEnvelope.envelopeTypeTx(
      new xdr.TransactionV1Envelope({ tx: lowBid, signatures: [] }),
    ).toXdr("base64"),
    node.networkPassphrase,
  );
  lowTx.sign(alice);
  const low = await node.server.sendTransaction(lowTx);
  assert.equal(low.errorResult?.result.type, "txSorobanInvalid");
});

Deno.test("ExtendFootprintTtl and RestoreFootprint succeed; TTL is extended", async () => {
  const { node, id } = await setup();
  await using _ = node;
  const alice = await node.newAccount();
  const instanceKey = xdr.LedgerKey.contractData(
    new xdr.LedgerKeyContractData({
      contract: Address.fromString(id).toScAddress(),
      key: xdr.ScVal.scvLedgerKeyContractInstance(),
      durability: xdr.ContractDataDurability.persistent,
    }),
  );
  const before = (await node.server.getLedgerEntries(instanceKey)).entries[0].liveUntilLedgerSeq!;
  const latest = node.latestLedger().sequence;
  const data = new xdr.SorobanTransactionData({
    ext: xdr.SorobanTransactionDataExt.v0(),
    resources: new xdr.SorobanResources({
      footprint: new xdr.LedgerFootprint({ readOnly: [instanceKey], readWrite: [] }),
      instructions: 0,
      diskReadBytes: 0,
      writeBytes: 0,
    }),
    resourceFee: 0n,
  });
  const build = async (op: xdr.Operation, d: xdr.SorobanTransactionData) =>
    new TransactionBuilder(await node.server.getAccount(alice.publicKey()), {
      fee: "100",
      networkPassphrase: node.networkPassphrase,
    }).addOperation(op).setSorobanData(d).setTimeout(60).build();
  const extendTo = 3_000_000;
  const draft = await build(Operation.extendFootprintTtl({ extendTo }), data);
  const sim = await node.server.simulateTransaction(draft);
  assert.ok(rpc.Api.isSimulationSuccess(sim), JSON.stringify(sim));
  const tx = await build(
    Operation.extendFootprintTtl({ extendTo }),
    (sim as rpc.Api.SimulateTransactionSuccessResponse).transactionData.build(),
  );
  tx.sign(alice);
  const sent = await node.server.sendTransaction(tx);
  assert.equal((await node.confirm(sent.hash)).status, "SUCCESS");
  const after = (await node.server.getLedgerEntries(instanceKey)).entries[0].liveUntilLedgerSeq!;
  assert.ok(after >= latest + extendTo && after > before, `${before} → ${after}`);
  const restore = await build(
    Operation.restoreFootprint({}),
    new xdr.SorobanTransactionData({
      ext: xdr.SorobanTransactionDataExt.v0(),
      resources: new xdr.SorobanResources({
        footprint: new xdr.LedgerFootprint({ readOnly: [], readWrite: [instanceKey] }),
        instructions: 0,
        diskReadBytes: 0,
        writeBytes: 0,
      }),
      resourceFee: 100_000n,
    }),
  );
  restore.sign(alice);
  const r = await node.server.sendTransaction(restore);
  assert.equal((await node.confirm(r.hash)).status, "SUCCESS");
});
