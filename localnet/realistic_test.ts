/**
 * Conformance of the node's ledger clock and transaction queue, written as a client observes
 * them over JSON-RPC: queueing (NOT_FOUND until the ledger closes), many transactions per
 * ledger, TRY_AGAIN_LATER and DUPLICATE, surge pricing, fee bumps, getFeeStats from charged
 * fees, and time and sequence moving together.
 */
import assert from "node:assert/strict";
import {
  Account,
  Address,
  Asset,
  type Keypair,
  MuxedAccount,
  nativeToScVal,
  Operation,
  rpc,
  TransactionBuilder,
} from "@stellar/stellar-sdk";
import { startTestNode, type TestNode } from "@vigil/testing/localnet";
import { compareXored } from "./apply_order.ts";
import { sha256 } from "./util.ts";

async function payment(node: TestNode, from: Keypair, to: string, fee = "100") {
  const acc = await node.server.getAccount(from.publicKey());
  const tx = new TransactionBuilder(acc, { fee, networkPassphrase: node.networkPassphrase })
    .addOperation(Operation.payment({ destination: to, asset: Asset.native(), amount: "1" }))
    .setTimeout(60)
    .build();
  tx.sign(from);
  return tx;
}

const hexOf = (t: { hash(): Uint8Array }) =>
  Array.from(t.hash(), (b) => b.toString(16).padStart(2, "0")).join("");
// deno-lint-ignore no-explicit-any
const resultJson = (r: { toJson(): unknown }) => r.toJson() as any;
const feeOf = (r: { toJson(): unknown }) => String(resultJson(r).fee_charged);

async function rpcCall(node: TestNode, method: string, params: unknown) {
  const res = await fetch(node.rpcUrl, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
  });
  return await res.json();
}

Deno.test("queue: NOT_FOUND until the ledger closes; several accounts land in one ledger", async () => {
  // No automatic close: the test closes the ledger itself.
  await using node = await startTestNode({ autoCloseMs: 0 });
  const dest = (await node.newAccount()).publicKey();
  const senders = [await node.newAccount(), await node.newAccount(), await node.newAccount()];
  const txs = await Promise.all(senders.map((s) => payment(node, s, dest)));
  const before = (await node.server.getLatestLedger()).sequence;
  const predicted = node.chain.applyOrderOf(txs.map((t) => t.toXDR()));
  const sent: rpc.Api.SendTransactionResponse[] = [];
  for (const tx of txs) sent.push(await node.server.sendTransaction(tx));
  for (const s of sent) assert.equal(s.status, "PENDING");
  // Queued, not applied: the first poll is NOT_FOUND, with the hash, and the sequence holds.
  const first = await rpcCall(node, "getTransaction", { hash: sent[0].hash });
  assert.equal(first.result.status, "NOT_FOUND");
  assert.equal(first.result.txHash, sent[0].hash);
  assert.equal((await node.server.getLatestLedger()).sequence, before);
  const closed = await rpcCall(node, "localnet_closeLedgers", { count: 1 });
  assert.equal(closed.result.sequence, before + 1);
  const got = await Promise.all(sent.map((s) => node.server.getTransaction(s.hash)));
  assert.deepEqual(got.map((g) => g.status), ["SUCCESS", "SUCCESS", "SUCCESS"]);
  const ok = got as rpc.Api.GetSuccessfulTransactionResponse[];
  assert.deepEqual(ok.map((g) => g.ledger), [before + 1, before + 1, before + 1]);
  // stellar-core's order, not arrival: by SHA-256 of the envelope XOR the ledger's tx set hash.
  assert.deepEqual(ok.map((g) => g.applicationOrder).sort(), [1, 2, 3]);
  const setHash = node.chain.latest.txSetHash;
  const key = (i: number) => sha256(txs[i].toEnvelope().toXDR());
  const byXor = [0, 1, 2].sort((a, b) => compareXored(key(a), key(b), setHash));
  assert.deepEqual(byXor.map((i) => ok[i].applicationOrder), [1, 2, 3]);
  assert.deepEqual(byXor.map((i) => sent[i].hash), predicted, "applyOrderOf predicted it");
});

Deno.test("queue: a second transaction from one account is TRY_AGAIN_LATER; re-sent is DUPLICATE", async () => {
  await using node = await startTestNode({ autoCloseMs: 0 });
  const alice = await node.newAccount();
  const bob = (await node.newAccount()).publicKey();
  const acc = await node.server.getAccount(alice.publicKey());
  const build = (n: number) => {
    const tx = new TransactionBuilder(acc, {
      fee: "100",
      networkPassphrase: node.networkPassphrase,
    })
      .addOperation(
        Operation.payment({ destination: bob, asset: Asset.native(), amount: String(n) }),
      )
      .setTimeout(60)
      .build();
    tx.sign(alice);
    return tx;
  };
  const t1 = build(1); // seq + 1
  const t2 = build(2); // seq + 2 (the builder incremented the account)
  assert.equal((await node.server.sendTransaction(t1)).status, "PENDING");
  assert.equal((await node.server.sendTransaction(t2)).status, "TRY_AGAIN_LATER");
  assert.equal((await node.server.sendTransaction(t1)).status, "DUPLICATE");
  await node.closeLedgers(1);
  assert.equal((await node.server.getTransaction(hexOf(t1))).status, "SUCCESS");
  // Applied: re-sending the same envelope is still DUPLICATE; t2 (seq + 2) is now valid.
  assert.equal((await node.server.sendTransaction(t1)).status, "DUPLICATE");
  assert.equal((await node.server.sendTransaction(t2)).status, "PENDING");
  await node.closeLedgers(1);
  assert.equal((await node.server.getTransaction(hexOf(t2))).status, "SUCCESS");
  // t2 was refused while t1 waited: never two queued transactions from one account.
  const never = await node.server.getTransaction("ab".repeat(32));
  assert.equal(never.status, "NOT_FOUND");
});

Deno.test("surge pricing: over capacity the highest bids land first at the lowest included bid", async () => {
  await using node = await startTestNode({ autoCloseMs: 0, capacity: { classicOps: 2 } });
  const dest = (await node.newAccount()).publicKey();
  const [a, b, c] = [await node.newAccount(), await node.newAccount(), await node.newAccount()];
  const low = await payment(node, a, dest, "100");
  const high = await payment(node, b, dest, "300");
  const mid = await payment(node, c, dest, "200");
  for (const tx of [low, high, mid]) {
    assert.equal((await node.server.sendTransaction(tx)).status, "PENDING");
  }
  await node.closeLedgers(1);
  const hex = hexOf;
  const gHigh = await node.server.getTransaction(hex(high));
  const gMid = await node.server.getTransaction(hex(mid));
  assert.equal(gHigh.status, "SUCCESS");
  assert.equal(gMid.status, "SUCCESS");
  assert.equal((await node.server.getTransaction(hex(low))).status, "NOT_FOUND");
  // Both pay the surge price (the lowest included bid), not their own bids.
  assert.equal(gHigh.status === "SUCCESS" && feeOf(gHigh.resultXdr), "200");
  assert.equal(gMid.status === "SUCCESS" && feeOf(gMid.resultXdr), "200");
  await node.closeLedgers(1);
  const gLow = await node.server.getTransaction(hex(low));
  assert.equal(gLow.status, "SUCCESS");
  assert.equal(gLow.status === "SUCCESS" && feeOf(gLow.resultXdr), "100");
  // getFeeStats reports the charged inclusion fees (per operation), not the bids.
  const stats = await node.server.getFeeStats();
  assert.equal(stats.inclusionFee.max, "200");
  assert.equal(stats.inclusionFee.min, "100");
  assert.equal(stats.sorobanInclusionFee.transactionCount, "0");
  assert.equal(stats.sorobanInclusionFee.p50, "0");
});

Deno.test("getFeeStats: an empty window reports zeros", async () => {
  await using node = await startTestNode();
  const stats = await node.server.getFeeStats();
  for (const d of [stats.inclusionFee, stats.sorobanInclusionFee]) {
    assert.equal(d.max, "0");
    assert.equal(d.min, "0");
    assert.equal(d.mode, "0");
    assert.equal(d.p90, "0");
    assert.equal(d.transactionCount, "0");
  }
});

Deno.test("getFeeStats windows: configurable, capped at 1,000 ledgers as stellar-rpc 25.1+", async () => {
  // stellar-rpc's validator: positive, at most 1,000 ledgers, with its message.
  await assert.rejects(
    startTestNode({ feeStatsWindows: { soroban: 1001 } }),
    /soroban-fee-stats-retention-window cannot exceed 1000 ledgers \(got 1001\)/,
  );
  await assert.rejects(startTestNode({ feeStatsWindows: { classic: 0 } }), /must be positive/);
  // A 2-ledger classic window forgets a payment 2 ledgers later; the default 10 would not.
  await using node = await startTestNode({ feeStatsWindows: { classic: 2, soroban: 1000 } });
  const alice = await node.newAccount();
  const tx = await payment(node, alice, (await node.newAccount()).publicKey());
  assert.equal(
    (await node.confirm((await node.server.sendTransaction(tx)).hash)).status,
    "SUCCESS",
  );
  const fresh = await node.server.getFeeStats();
  assert.equal(fresh.inclusionFee.transactionCount, "1");
  assert.equal(fresh.inclusionFee.ledgerCount, 2);
  await node.closeLedgers(2);
  const later = await node.server.getFeeStats();
  assert.equal(later.inclusionFee.transactionCount, "0");
  assert.ok(later.sorobanInclusionFee.ledgerCount <= 1000);
});

Deno.test("a fee-bump transaction lands: the fee source pays, the inner source's sequence moves", async () => {
  await using node = await startTestNode();
  const alice = await node.newAccount();
  const sponsor = await node.newAccount();
  const dest = (await node.newAccount()).publicKey();
  const inner = await payment(node, alice, dest);
  const bump = TransactionBuilder.buildFeeBumpTransaction(
    sponsor,
    "300",
    inner,
    node.networkPassphrase,
  );
  bump.sign(sponsor);
  const aliceBefore = (await node.server.getAccountEntry(alice.publicKey())).balance;
  const sponsorBefore = (await node.server.getAccountEntry(sponsor.publicKey())).balance;
  const sent = await node.server.sendTransaction(bump);
  assert.equal(sent.status, "PENDING");
  assert.equal(sent.hash, hexOf(bump));
  const got = await node.confirm(sent.hash);
  assert.equal(got.status, "SUCCESS");
  const raw = await rpcCall(node, "getTransaction", { hash: sent.hash });
  assert.equal(raw.result.feeBump, true);
  // Fee of 2 operations (inner op + the bump) at the base fee, paid by the sponsor.
  assert.equal(got.status === "SUCCESS" && feeOf(got.resultXdr), "200");
  assert.equal(
    (await node.server.getAccountEntry(sponsor.publicKey())).balance,
    sponsorBefore - 200n,
  );
  assert.equal(
    (await node.server.getAccountEntry(alice.publicKey())).balance,
    aliceBefore - 10_000_000n,
  );
  // The result is a fee-bump result wrapping the inner transaction's.
  assert.ok(got.status === "SUCCESS");
  assert.deepEqual(Object.keys(resultJson(got.resultXdr).result), ["tx_fee_bump_inner_success"]);
});

Deno.test("time and sequence move together: advanceTime closes a ledger per second", async () => {
  await using node = await startTestNode();
  const l0 = await node.server.getLatestLedger();
  const adv = await rpcCall(node, "localnet_advanceTime", { seconds: 600 });
  assert.equal(adv.result.sequence, l0.sequence + 600);
  const l1 = await node.server.getLatestLedger();
  assert.equal(l1.sequence, l0.sequence + 600);
  assert.ok(BigInt(l1.closeTime) >= BigInt(l0.closeTime) + 600n);
  // Close times strictly increase from ledger to ledger.
  const page = await node.server.getLedgers({
    startLedger: l0.sequence,
    pagination: { limit: 50 },
  });
  for (let i = 1; i < page.ledgers.length; i++) {
    assert.ok(
      BigInt(page.ledgers[i].ledgerCloseTime) > BigInt(page.ledgers[i - 1].ledgerCloseTime),
    );
  }
});

Deno.test("retention: an old startLedger gets the real RPC's range error; getHealth reports the window", async () => {
  await using node = await startTestNode({ retentionLedgers: 50 });
  await node.closeLedgers(120);
  const health = await node.server.getHealth();
  assert.equal(health.ledgerRetentionWindow, 50);
  assert.equal(health.latestLedger, 121);
  assert.equal(health.oldestLedger, 72);
  const old = await rpcCall(node, "getEvents", { startLedger: 10, filters: [] });
  assert.equal(old.error.code, -32600);
  assert.equal(old.error.message, "startLedger must be within the ledger range: 72 - 121");
  const txs = await rpcCall(node, "getTransactions", { startLedger: 10 });
  assert.equal(txs.error.code, -32600);
  const ledgers = await rpcCall(node, "getLedgers", { startLedger: 71 });
  assert.equal(ledgers.error.code, -32600);
  const inWindow = await node.server.getLedgers({ startLedger: 72, pagination: { limit: 1 } });
  assert.equal(inWindow.ledgers[0].sequence, 72);
});

Deno.test("getEvents refuses type 'diagnostic'; SAC mint refuses a muxed `to`", async () => {
  await using node = await startTestNode();
  const diag = await rpcCall(node, "getEvents", {
    startLedger: 1,
    filters: [{ type: "diagnostic" }],
  });
  assert.equal(diag.error.code, -32602);
  const issuer = await node.newAccount();
  const usdc = await node.deployAsset(new Asset("USDC", issuer.publicKey()));
  const holder = await node.newAccount();
  const muxed = new MuxedAccount(new Account(holder.publicKey(), "0"), "7").accountId();
  const acc = await node.server.getAccount(issuer.publicKey());
  const tx = new TransactionBuilder(acc, { fee: "100", networkPassphrase: node.networkPassphrase })
    .addOperation(
      Operation.invokeContractFunction({
        contract: usdc,
        function: "mint",
        args: [Address.fromString(muxed).toScVal(), nativeToScVal(1n, { type: "i128" })],
      }),
    )
    .setTimeout(60)
    .build();
  const sim = await node.server.simulateTransaction(tx);
  assert.ok(rpc.Api.isSimulationError(sim), "a muxed mint destination must fail");
  assert.match(sim.error, /Error\(Value, UnexpectedType\)/);
});

Deno.test("getTransactions and getLedgers page limits: default 50, at most 200", async () => {
  await using node = await startTestNode();
  await node.closeLedgers(260);
  const page = await node.server.getLedgers({ startLedger: 1 });
  assert.equal(page.ledgers.length, 50);
  const big = await rpcCall(node, "getLedgers", { startLedger: 1, pagination: { limit: 201 } });
  assert.equal(big.error.code, -32602);
  const max = await node.server.getLedgers({ startLedger: 1, pagination: { limit: 200 } });
  assert.equal(max.ledgers.length, 200);
  const txs = await rpcCall(node, "getTransactions", {
    startLedger: 1,
    pagination: { limit: 201 },
  });
  assert.equal(txs.error.code, -32602);
});
