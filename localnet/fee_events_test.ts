/**
 * CAP-67 fee events and CAP-63 fee processing over JSON-RPC, as stellar-core emits them and
 * stellar-rpc serves them: every transaction's `fee` charge (stage before-all-txs) and, for a
 * Soroban transaction, its refund as a negative `fee` (stage after-all-txs), on the native SAC;
 * the refund paid in the ledger's `postTxApplyFeeProcessing`, not in `txChangesAfter`; getEvents
 * ids and indexes of stellar-rpc's `db/event.go`, failed transactions included.
 */
import assert from "node:assert/strict";
import {
  Address,
  Asset,
  type contract,
  type Keypair,
  Operation,
  type rpc,
  scValToNative,
  StrKey,
  TransactionBuilder,
  xdr,
} from "@stellar/stellar-sdk";
import { startTestNode, type TestNode } from "@vigil/testing/localnet";

type AnyClient = contract.Client & Record<string, CallFn>;
// deno-lint-ignore no-explicit-any
type CallFn = (args?: any) => Promise<contract.AssembledTransaction<unknown>>;

/** A raw JSON-RPC call (the node's own JSON, not the SDK's parsed view). */
async function call(
  node: TestNode,
  method: string,
  params: unknown,
): Promise<Record<string, unknown>> {
  const res = await fetch(node.rpcUrl, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
  });
  const body = await res.json();
  assert.equal(body.error, undefined, JSON.stringify(body.error));
  return body.result;
}

/** The fields of a `fee` TransactionEvent. */
function feeFields(te: xdr.TransactionEvent) {
  const ev = te.event;
  return {
    stage: te.stage.name,
    type: ev.type.name,
    contract: ev.contractId ? StrKey.encodeContract(ev.contractId.value) : "",
    topics: ev.body.v0.topics.map((t) => scValToNative(t)),
    dataType: ev.body.v0.data.type,
    amount: BigInt(scValToNative(ev.body.v0.data)),
  };
}

const accountBalance = (c: xdr.LedgerEntryChange): bigint | undefined => {
  const e = c.type === "ledgerEntryState"
    ? c.state
    : c.type === "ledgerEntryUpdated"
    ? c.updated
    : undefined;
  return e?.data.type === "account" ? BigInt(e.data.account.balance) : undefined;
};

/** Balance delta of an account-change list (state → updated). */
function delta(changes: xdr.LedgerEntryChange[]): bigint {
  assert.equal(changes.length, 2);
  return accountBalance(changes[1])! - accountBalance(changes[0])!;
}

/** A native-SAC transfer of 1 XLM, simulated and assembled (not sent). */
async function xlmTransfer(node: TestNode, xlm: string, from: Keypair, to: string) {
  const client = await node.clientFor<AnyClient>(xlm, from);
  return await client.transfer({ from: from.publicKey(), to, amount: 1_0000000n });
}

Deno.test("a SAC transfer's getTransaction carries the fee charge and the refund; the refund is post-apply fee processing", async () => {
  await using node = await startTestNode();
  const xlm = await node.deployAsset(Asset.native());
  const alice = await node.newAccount();
  const bob = await node.newAccount();
  const bal0 = (await node.server.getAccountEntry(alice.publicKey())).balance;
  const sent = await (await xlmTransfer(node, xlm, alice, bob.publicKey())).signAndSend();
  const resp = sent.getTransactionResponse as rpc.Api.GetSuccessfulTransactionResponse;
  assert.equal(resp.status, "SUCCESS");
  const feeCharged = BigInt(resp.resultXdr.feeCharged);

  // The raw answer: events.transactionEventsXdr (TransactionEvent) and per-operation
  // events.contractEventsXdr (ContractEvent), as stellar-rpc 23+ serves them.
  const raw = await call(node, "getTransaction", { hash: resp.txHash });
  const events = raw.events as { transactionEventsXdr: string[]; contractEventsXdr: string[][] };
  assert.equal(events.contractEventsXdr.length, 1);
  assert.deepEqual(
    events.contractEventsXdr[0].map((e) =>
      scValToNative(xdr.ContractEvent.fromXdr(e, "base64").body.v0.topics[0])
    ),
    ["transfer"],
  );
  const fees = events.transactionEventsXdr.map((e) =>
    feeFields(xdr.TransactionEvent.fromXdr(e, "base64"))
  );
  assert.equal(fees.length, 2);
  const [charge, refund] = fees;
  for (const f of fees) {
    assert.equal(f.type, "contract");
    assert.equal(f.contract, xlm);
    assert.deepEqual(f.topics, ["fee", alice.publicKey()]);
    assert.equal(f.dataType, "scvI128");
  }
  assert.equal(charge.stage, "transactionEventStageBeforeAllTxs");
  assert.equal(refund.stage, "transactionEventStageAfterAllTxs");
  assert.ok(charge.amount > 0n && refund.amount < 0n, `${charge.amount} ${refund.amount}`);
  // The charge is the whole declared resource fee and the inclusion fee; charge − refund is the result's final fee.
  const env = resp.envelopeXdr;
  assert.ok(env.type === "envelopeTypeTx");
  assert.ok(env.v1.tx.ext.type === "sorobanData");
  // Inclusion at the base fee (no surge) plus the declared resource fee.
  const declared = 100n + BigInt(env.v1.tx.ext.sorobanData.resourceFee);
  assert.equal(charge.amount, declared);
  assert.equal(charge.amount + refund.amount, feeCharged);
  // The SDK's parsed view agrees.
  assert.equal(resp.events.transactionEventsXdr.length, 2);

  // Meta v4: the same events; CAP-63: nothing in txChangesAfter.
  const meta = resp.resultMetaXdr;
  assert.ok(meta.type === "v4");
  assert.equal(meta.v4.txChangesAfter.length, 0);
  assert.equal(meta.v4.events.length, 2);

  // The ledger's meta: the charge in feeProcessing, the refund in postTxApplyFeeProcessing.
  const raw2 = await call(node, "getLedgers", {
    startLedger: resp.ledger,
    pagination: { limit: 1 },
  });
  const lcm = xdr.LedgerCloseMeta.fromXdr(
    (raw2.ledgers as { metadataXdr: string }[])[0].metadataXdr,
    "base64",
  );
  assert.ok(lcm.type === "v2");
  const txp = lcm.v2.txProcessing[resp.applicationOrder - 1];
  assert.equal(txp.result.transactionHash.toXdr("hex"), resp.txHash);
  assert.equal(delta(txp.feeProcessing), -charge.amount);
  assert.equal(delta(txp.postTxApplyFeeProcessing), -refund.amount);
  // Alice paid the final fee and the 1 XLM.
  const bal1 = (await node.server.getAccountEntry(alice.publicKey())).balance;
  assert.equal(bal0 - bal1, feeCharged + 1_0000000n);
});

Deno.test("getEvents serves fee events with stellar-rpc's ids, failed transactions included; classic first", async () => {
  // No auto-close: the three transactions land in one ledger, closed on demand.
  await using node = await startTestNode({ autoCloseMs: 0 });
  const xlm = await node.deployAsset(Asset.native());
  const [alice, carol, dave, bob] = [
    await node.newAccount(),
    await node.newAccount(),
    await node.newAccount(),
    await node.newAccount(),
  ];
  await node.closeLedgers(1);

  // 1. alice: a SAC transfer that succeeds.
  const ok = await xlmTransfer(node, xlm, alice, bob.publicKey());
  await ok.sign();
  const okSent = await node.server.sendTransaction(ok.signed!);
  assert.equal(okSent.status, "PENDING");
  // 2. dave: the same call with its write footprint trimmed: included and FAILED at apply.
  const bad = await xlmTransfer(node, xlm, dave, bob.publicKey());
  const data = bad.simulationData.transactionData;
  const trimmed = new xdr.SorobanTransactionData({
    ext: data.ext,
    resourceFee: data.resourceFee,
    resources: new xdr.SorobanResources({
      footprint: new xdr.LedgerFootprint({
        readOnly: data.resources.footprint.readOnly,
        readWrite: data.resources.footprint.readWrite.slice(0, -1),
      }),
      instructions: data.resources.instructions,
      diskReadBytes: data.resources.diskReadBytes,
      writeBytes: data.resources.writeBytes,
    }),
  });
  const op = bad.built!.operations[0] as Operation.InvokeHostFunction;
  const badTx = new TransactionBuilder(await node.server.getAccount(dave.publicKey()), {
    fee: "100",
    networkPassphrase: node.networkPassphrase,
  })
    .addOperation(Operation.invokeHostFunction({ func: op.func, auth: op.auth ?? [] }))
    .setSorobanData(trimmed)
    .setTimeout(60)
    .build();
  badTx.sign(dave);
  const badSent = await node.server.sendTransaction(badTx);
  assert.equal(badSent.status, "PENDING");
  // 3. carol: a classic payment, sent last but applied first (the classic phase).
  const pay = new TransactionBuilder(await node.server.getAccount(carol.publicKey()), {
    fee: "100",
    networkPassphrase: node.networkPassphrase,
  })
    .addOperation(
      Operation.payment({ destination: bob.publicKey(), asset: Asset.native(), amount: "1" }),
    )
    .setTimeout(60)
    .build();
  pay.sign(carol);
  const paySent = await node.server.sendTransaction(pay);
  assert.equal(paySent.status, "PENDING");
  await node.closeLedgers(1);
  const ledger = node.latestLedger().sequence;

  const okGot = await node.server.getTransaction(okSent.hash);
  const badGot = await node.server.getTransaction(badSent.hash);
  const payGot = await node.server.getTransaction(paySent.hash);
  assert.equal(okGot.status, "SUCCESS");
  assert.equal(badGot.status, "FAILED");
  assert.equal(payGot.status, "SUCCESS");
  assert.ok(okGot.ledger === ledger && badGot.ledger === ledger && payGot.ledger === ledger);
  const orderOf = (g: unknown) => (g as rpc.Api.GetSuccessfulTransactionResponse).applicationOrder;
  // The classic phase first; the two Soroban transactions in stellar-core's order (full hash
  // XOR the tx set hash), either way round: the expectations below follow it.
  assert.equal(orderOf(payGot), 1);
  assert.deepEqual([orderOf(okGot), orderOf(badGot)].sort(), [2, 3]);
  const soroban = [
    { hash: okSent.hash, account: alice.publicKey(), ok: true, order: orderOf(okGot) },
    { hash: badSent.hash, account: dave.publicKey(), ok: false, order: orderOf(badGot) },
  ].sort((a, b) => a.order - b.order);
  // A classic transaction has the charge only; the failed one its charge and a full refund of
  // the refundable part.
  assert.equal(
    (payGot as rpc.Api.GetSuccessfulTransactionResponse).events.transactionEventsXdr.length,
    1,
  );
  const badFees = (badGot as rpc.Api.GetFailedTransactionResponse).events.transactionEventsXdr.map(
    feeFields,
  );
  assert.deepEqual(badFees.map((f) => f.stage), [
    "transactionEventStageBeforeAllTxs",
    "transactionEventStageAfterAllTxs",
  ]);
  assert.equal(
    badFees[0].amount + badFees[1].amount,
    BigInt((badGot as rpc.Api.GetFailedTransactionResponse).resultXdr.feeCharged),
  );

  const res = await call(node, "getEvents", { startLedger: ledger, endLedger: ledger + 1 });
  type Ev = {
    id: string;
    type: string;
    contractId: string;
    txHash: string;
    transactionIndex: number;
    operationIndex: number;
    inSuccessfulContractCall: boolean;
    topic: string[];
    value: string;
  };
  const evs = res.events as Ev[];
  const toid = (tx: number, op: number) =>
    ((BigInt(ledger) << 32n) | (BigInt(tx) << 12n) | BigInt(op)).toString().padStart(19, "0");
  const id = (tx: number, op: number, i: number) =>
    `${toid(tx, op)}-${String(i).padStart(10, "0")}`;
  const name = (e: Ev) => scValToNative(xdr.ScVal.fromXdr(e.topic[0], "base64"));
  // Before-all-txs charges (TOID tx 0, one index across the ledger, in application order), the
  // transfer (tx = its application order, op 0), then the refunds (TOID tx 0xFFFFF).
  const okOrder = orderOf(okGot);
  assert.deepEqual(evs.map((e) => [e.id, name(e), e.txHash]), [
    [id(0, 0, 0), "fee", paySent.hash],
    [id(0, 0, 1), "fee", soroban[0].hash],
    [id(0, 0, 2), "fee", soroban[1].hash],
    [id(okOrder, 0, 0), "transfer", okSent.hash],
    [id(0xfffff, 0, 0), "fee", soroban[0].hash],
    [id(0xfffff, 0, 1), "fee", soroban[1].hash],
  ]);
  assert.deepEqual(evs.map((e) => e.transactionIndex), [0, 0, 0, okOrder, 0xfffff, 0xfffff]);
  assert.ok(
    evs.every((e) => e.operationIndex === 0 && e.type === "contract" && e.contractId === xlm),
  );
  assert.deepEqual(evs.map((e) => e.inSuccessfulContractCall), [
    true,
    soroban[0].ok,
    soroban[1].ok,
    true,
    soroban[0].ok,
    soroban[1].ok,
  ]);
  assert.deepEqual(
    evs.filter((e) => name(e) === "fee").map((e) =>
      scValToNative(xdr.ScVal.fromXdr(e.topic[1], "base64"))
    ),
    [carol.publicKey(), ...soroban.map((x) => x.account), ...soroban.map((x) => x.account)],
  );
  assert.equal(BigInt(scValToNative(xdr.ScVal.fromXdr(evs[0].value, "base64"))), 100n);

  // Paging across the stages: strictly after the cursor, in id order.
  const p1 = await call(node, "getEvents", { startLedger: ledger, pagination: { limit: 4 } });
  assert.equal(p1.cursor, id(okOrder, 0, 0));
  const p2 = await call(node, "getEvents", { pagination: { cursor: p1.cursor, limit: 4 } });
  assert.deepEqual((p2.events as Ev[]).map((e) => e.id), [id(0xfffff, 0, 0), id(0xfffff, 0, 1)]);
  // A topic filter on the fee events, as a wallet would follow its fees.
  const fee = xdr.ScVal.scvSymbol("fee").toXdr("base64");
  const daves = await node.server.getEvents({
    startLedger: ledger,
    filters: [{
      type: "contract",
      contractIds: [xlm],
      topics: [[fee, new Address(dave.publicKey()).toScVal().toXdr("base64")]],
    }],
  });
  assert.deepEqual(daves.events.map((e) => e.txHash), [badSent.hash, badSent.hash]);
  assert.deepEqual(daves.events.map((e) => e.inSuccessfulContractCall), [false, false]);
});
