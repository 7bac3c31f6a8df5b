/**
 * The Stellar Asset Contract through the node (trustlines, mint, G↔C transfers, SEP-11 event
 * topics) and getEvents semantics (filters, wildcards, exact length, paging, ranges).
 */
import assert from "node:assert/strict";
import {
  Address,
  Asset,
  type contract,
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

type AnyClient = contract.Client & Record<string, CallFn>;
// deno-lint-ignore no-explicit-any
type CallFn = (args?: any) => Promise<contract.AssembledTransaction<unknown>>;

const sym = (s: string) => xdr.ScVal.scvSymbol(s).toXdr("base64");
const addrB64 = (a: string) => new Address(a).toScVal().toXdr("base64");

async function changeTrust(node: TestNode, kp: Keypair, asset: Asset) {
  const acc = await node.server.getAccount(kp.publicKey());
  const tx = new TransactionBuilder(acc, { fee: "100", networkPassphrase: node.networkPassphrase })
    .addOperation(Operation.changeTrust({ asset }))
    .setTimeout(30)
    .build();
  tx.sign(kp);
  const sent = await node.server.sendTransaction(tx);
  assert.equal((await node.confirm(sent.hash)).status, "SUCCESS");
}

Deno.test("SAC: ChangeTrust, mint by the issuer, G→C and C-held balances, SEP-11 events", async () => {
  await using node = await startTestNode();
  const issuer = await node.newAccount();
  const alice = await node.newAccount();
  const usdc = new Asset("USDC", issuer.publicKey());
  const sacId = await node.deployAsset(usdc);
  assert.equal(sacId, usdc.contractId(node.networkPassphrase));
  const counterId = await deployFixture(node, "counter", { admin: issuer.publicKey() });
  await changeTrust(node, alice, usdc);

  // mint by the admin (the issuer) through contract.Client on the SAC (stellarAsset executable).
  const asIssuer = await node.clientFor<AnyClient>(sacId, issuer);
  const mint = await asIssuer.mint({ to: alice.publicKey(), amount: 500_0000000n });
  const minted = await mint.signAndSend();
  assert.equal(minted.getTransactionResponse?.status, "SUCCESS");
  // The G holder's balance is its classic trustline.
  assert.equal((await node.server.getTrustline(alice.publicKey(), usdc)).balance, 500_0000000n);

  // alice → counter contract (a C address): a Balance entry for C.
  const asAlice = await node.clientFor<AnyClient>(sacId, alice);
  const t = await asAlice.transfer({
    from: alice.publicKey(),
    to: counterId,
    amount: 120_0000000n,
  });
  const sent = await t.signAndSend();
  const resp = sent.getTransactionResponse as rpc.Api.GetSuccessfulTransactionResponse;
  assert.equal(resp.status, "SUCCESS");
  const bal = await asAlice.balance({ id: counterId });
  assert.equal(bal.result, 120_0000000n);
  const sacBal = await node.server.getSACBalance(counterId, usdc, node.networkPassphrase);
  assert.equal(sacBal.balanceEntry?.amount, "1200000000");
  assert.equal((await node.server.getTrustline(alice.publicKey(), usdc)).balance, 380_0000000n);

  // Events: transfer [transfer, from, to, "USDC:G…"] with i128 data, in getTransaction and getEvents.
  const name = `USDC:${issuer.publicKey()}`;
  const opEvents = resp.events.contractEventsXdr[0];
  assert.equal(opEvents.length, 1);
  const ev = opEvents[0];
  const topics = ev.body.v0.topics.map((x) => scValToNative(x));
  assert.deepEqual(topics, ["transfer", alice.publicKey(), counterId, name]);
  assert.equal(scValToNative(ev.body.v0.data), 120_0000000n);
  const evs = await node.server.getEvents({
    startLedger: minted.getTransactionResponse!.ledger,
    filters: [{ type: "contract", contractIds: [sacId] }],
  });
  assert.deepEqual(
    evs.events.map((e) => scValToNative(e.topic[0])),
    ["mint", "transfer"],
  );
  assert.deepEqual(evs.events[0].topic.map((x) => scValToNative(x)), [
    "mint",
    alice.publicKey(),
    name,
  ]);
  assert.equal(evs.events[1].txHash, resp.txHash);
  assert.equal(evs.events[1].contractId?.contractId(), sacId);

  // Through a contract: transfer_via requires alice's auth and calls the SAC (a sub-invocation
  // covered by the same source-account authorization).
  const counter = await node.clientFor<AnyClient>(counterId, alice);
  const via = await counter.transfer_via({
    token: sacId,
    from: alice.publicKey(),
    to: counterId,
    amount: 20_0000000n,
  });
  const viaSent = await via.signAndSend();
  assert.equal(viaSent.getTransactionResponse?.status, "SUCCESS");
  assert.equal((await asAlice.balance({ id: counterId })).result, 140_0000000n);
  // C → G: a contract paying out of its own balance (invoker rule), then C → issuer (burn).
  const payerId = await deployFixture(node, "payer");
  await (await asAlice.transfer({ from: alice.publicKey(), to: payerId, amount: 50_0000000n }))
    .signAndSend();
  const bob = await node.newAccount();
  await changeTrust(node, bob, usdc);
  const payer = await node.clientFor<AnyClient>(payerId, bob);
  const paid = await (await payer.pay({ token: sacId, to: bob.publicKey(), amount: 30_0000000n }))
    .signAndSend();
  const paidResp = paid.getTransactionResponse as rpc.Api.GetSuccessfulTransactionResponse;
  assert.equal(paidResp.status, "SUCCESS");
  assert.deepEqual(
    paidResp.events.contractEventsXdr[0][0].body.v0.topics.map((x) => scValToNative(x)),
    ["transfer", payerId, bob.publicKey(), name],
  );
  assert.equal((await node.server.getTrustline(bob.publicKey(), usdc)).balance, 30_0000000n);
  const burned =
    await (await payer.pay({ token: sacId, to: issuer.publicKey(), amount: 5_0000000n }))
      .signAndSend();
  const burnResp = burned.getTransactionResponse as rpc.Api.GetSuccessfulTransactionResponse;
  assert.deepEqual(
    burnResp.events.contractEventsXdr[0][0].body.v0.topics.map((x) => scValToNative(x)),
    ["burn", payerId, name],
  );
  assert.equal((await asAlice.balance({ id: payerId })).result, 15_0000000n);

  // More than held → Error(Contract, #10) in simulation.
  const over = await asAlice.transfer({
    from: alice.publicKey(),
    to: counterId,
    amount: 10_000_0000000n,
  });
  assert.ok(over.simulation && rpc.Api.isSimulationError(over.simulation));
  assert.match(
    (over.simulation as rpc.Api.SimulateTransactionErrorResponse).error,
    /Error\(Contract, #10\)/,
  );
});

Deno.test("getEvents: type/contract/topic filters, * and **, exact length, paging, cursors", async () => {
  await using node = await startTestNode();
  const admin = await node.newAccount();
  const c1 = await deployFixture(node, "counter", { admin: admin.publicKey() });
  const c2 = await deployFixture(node, "counter", { admin: admin.publicKey() });
  const users = [await node.newAccount(), await node.newAccount()];
  const start = node.latestLedger().sequence + 1;
  // Six events across two contracts and two users, each in its own ledger (sends close one).
  for (let i = 0; i < 3; i++) {
    for (const [c, u] of [[c1, users[0]], [c2, users[1]]] as const) {
      const client = await node.clientFor<AnyClient>(c, u);
      const tx = await client.increment({ user: u.publicKey(), by: i + 1 });
      await tx.signAndSend();
    }
  }
  // The counters' events; every transaction also has its CAP-67 fee events on the native SAC
  // (charge and refund: 12 here), which an unfiltered query serves too.
  const mine = [{ contractIds: [c1, c2] }];
  const all = await node.server.getEvents({ startLedger: start, filters: mine });
  assert.equal(all.events.length, 6);
  const everything = await node.server.getEvents({ startLedger: start, filters: [] });
  assert.equal(everything.events.length, 18);
  const xlmSac = Asset.native().contractId(node.networkPassphrase);
  assert.equal(everything.events.filter((e) => e.contractId?.contractId() === xlmSac).length, 12);
  // Ids increase and have the %019d-%010d shape.
  for (const e of all.events) assert.match(e.id, /^\d{19}-\d{10}$/);
  assert.deepEqual([...all.events.map((e) => e.id)].sort(), all.events.map((e) => e.id));
  const byContract = await node.server.getEvents({
    startLedger: start,
    filters: [{ contractIds: [c2] }],
  });
  assert.equal(byContract.events.length, 3);
  // Several contract ids in one filter match any of them (stellar-rpc allows up to 5).
  const byBoth = await node.server.getEvents({
    startLedger: start,
    filters: [{ contractIds: [c1, c2] }],
  });
  assert.equal(byBoth.events.length, 6);
  // Exact value + "*" (two topics) matches; a single-segment filter does not (exact length).
  const star = await node.server.getEvents({
    startLedger: start,
    filters: [{ topics: [[sym("incr"), "*"]] }],
  });
  assert.equal(star.events.length, 6);
  const short = await node.server.getEvents({
    startLedger: start,
    filters: [{ topics: [[sym("incr")]] }],
  });
  assert.equal(short.events.length, 0);
  const rest = await node.server.getEvents({
    startLedger: start,
    filters: [{ topics: [[sym("incr"), "**"]] }],
  });
  assert.equal(rest.events.length, 6);
  const onlyZero = await node.server.getEvents({
    startLedger: start,
    filters: [{ topics: [["**"]] }],
  });
  assert.equal(onlyZero.events.length, 18);
  // users[1]'s counter events and the fee events it paid (topics [fee, users[1]]).
  const user1 = await node.server.getEvents({
    startLedger: start,
    filters: [{ topics: [["*", addrB64(users[1].publicKey())]] }],
  });
  assert.equal(user1.events.length, 9);
  assert.equal(user1.events.filter((e) => e.contractId?.contractId() === c2).length, 3);
  assert.equal(user1.events.filter((e) => e.contractId?.contractId() === xlmSac).length, 6);
  // OR across filters, AND inside one.
  const orAnd = await node.server.getEvents({
    startLedger: start,
    filters: [
      { contractIds: [c1], topics: [["*", addrB64(users[1].publicKey())]] }, // matches nothing
      { type: "contract", contractIds: [c2], topics: [[sym("incr"), "**"]] },
    ],
  });
  assert.equal(orAnd.events.length, 3);
  const system = await node.server.getEvents({ startLedger: start, filters: [{ type: "system" }] });
  assert.equal(system.events.length, 0);

  // Paging: limit 4, then the rest strictly after the cursor; always a cursor.
  const p1 = await node.server.getEvents({ startLedger: start, filters: mine, limit: 4 });
  assert.equal(p1.events.length, 4);
  assert.equal(p1.cursor, p1.events[3].id);
  const p2 = await node.server.getEvents({ cursor: p1.cursor, filters: mine, limit: 4 });
  assert.deepEqual(p2.events.map((e) => e.id), all.events.slice(4).map((e) => e.id));
  assert.ok(p2.cursor.length > 0);
  // The window cursor after an incomplete page returns nothing new until more events arrive.
  const p3 = await node.server.getEvents({ cursor: p2.cursor, filters: [] });
  assert.equal(p3.events.length, 0);
  const client = await node.clientFor<AnyClient>(c1, users[0]);
  await (await client.increment({ user: users[0].publicKey(), by: 9 })).signAndSend();
  const p4 = await node.server.getEvents({ cursor: p2.cursor, filters: mine });
  assert.equal(p4.events.length, 1);
  assert.equal(scValToNative(p4.events[0].value), 15);

  // endLedger is exclusive.
  const firstLedger = all.events[0].ledger;
  const one = await node.server.getEvents({
    startLedger: firstLedger,
    endLedger: firstLedger + 1,
    filters: mine,
  });
  assert.equal(one.events.length, 1);

  // Invalid requests.
  await assert.rejects(
    node.server.getEvents({ startLedger: node.latestLedger().sequence + 5, filters: [] }),
    (e: { code: number; message: string }) => {
      assert.equal(e.code, -32600);
      assert.match(e.message, /^startLedger must be within the ledger range: 1 - \d+$/);
      return true;
    },
  );
  await assert.rejects(
    node.server.getEvents({ startLedger: start, filters: [{ topics: [["**", sym("incr")]] }] }),
    (e: { code: number }) => e.code === -32602,
  );
  await assert.rejects(
    node.server.getEvents({ startLedger: start, filters: Array(6).fill({}) }),
    (e: { code: number; message: string }) =>
      e.code === -32602 && /maximum 5 filters/.test(e.message),
  );
  // A sixth contract id in one filter is rejected, as stellar-rpc does.
  await assert.rejects(
    node.server.getEvents({ startLedger: start, filters: [{ contractIds: Array(6).fill(c1) }] }),
    (e: { code: number; message: string }) =>
      e.code === -32602 && /maximum 5 contract IDs/.test(e.message),
  );
  // A failed transaction's operation events are discarded; its CAP-67 fee events (charge and
  // refund) are stored, as stellar-rpc does, with inSuccessfulContractCall false.
  const beforeCount =
    (await node.server.getEvents({ startLedger: start, filters: [] })).events.length;
  const kp = users[1];
  const acc = await node.server.getAccount(kp.publicKey());
  const op = Operation.invokeContractFunction({
    contract: c1,
    function: "increment",
    args: [new Address(kp.publicKey()).toScVal(), nativeToScVal(1, { type: "u32" })],
  });
  const raw = new TransactionBuilder(acc, { fee: "100", networkPassphrase: node.networkPassphrase })
    .addOperation(op).setTimeout(30).build();
  const sim = await node.server.simulateTransaction(
    raw,
  ) as rpc.Api.SimulateTransactionSuccessResponse;
  const prepared = rpc.assembleTransaction(raw, sim).build();
  // Make it fail at apply: drop the written keys from the footprint.
  const declared = sim.transactionData.build();
  const trimmed = new TransactionBuilder(await node.server.getAccount(kp.publicKey()), {
    fee: "100",
    networkPassphrase: node.networkPassphrase,
  }).addOperation(
    Operation.invokeHostFunction({
      func: (prepared.operations[0] as Operation.InvokeHostFunction).func,
      auth: sim.result!.auth,
    }),
  )
    .setSorobanData(
      new xdr.SorobanTransactionData({
        ext: xdr.SorobanTransactionDataExt.v0(),
        resourceFee: declared.resourceFee,
        resources: new xdr.SorobanResources({
          footprint: new xdr.LedgerFootprint({
            readOnly: declared.resources.footprint.readOnly,
            readWrite: [],
          }),
          instructions: declared.resources.instructions,
          diskReadBytes: declared.resources.diskReadBytes,
          writeBytes: declared.resources.writeBytes,
        }),
      }),
    ).setTimeout(30).build();
  trimmed.sign(kp);
  const s = await node.server.sendTransaction(trimmed);
  assert.equal((await node.confirm(s.hash)).status, "FAILED");
  const after = (await node.server.getEvents({ startLedger: start, filters: [] })).events;
  assert.equal(after.length, beforeCount + 2);
  const failed = after.filter((e) => e.txHash === s.hash);
  assert.deepEqual(failed.map((e) => scValToNative(e.topic[0])), ["fee", "fee"]);
  assert.ok(failed.every((e) => e.inSuccessfulContractCall === false));
});
