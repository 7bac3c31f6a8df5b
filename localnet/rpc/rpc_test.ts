/**
 * The node over real HTTP with the unmodified SDK: network/health/ledger decoding, friendbot,
 * classic payments and trustlines, envelope validation errors, time control, JSON-RPC rules.
 */
import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import {
  Account,
  Asset,
  Keypair,
  Operation,
  type rpc,
  TransactionBuilder,
  xdr,
} from "@stellar/stellar-sdk";
import { startTestNode, type TestNode } from "@vigil/testing/localnet";
import { deployFixture } from "@vigil/testing/contracts/mod";

// deno-lint-ignore no-explicit-any
async function rawRpc(node: TestNode, body: unknown): Promise<{ status: number; json: any }> {
  const res = await fetch(node.rpcUrl, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
  return { status: res.status, json: await res.json() };
}

async function pay(
  node: TestNode,
  from: Keypair,
  to: string,
  amount: string,
  asset = Asset.native(),
  opts: { fee?: string; seqDelta?: bigint; signer?: Keypair } = {},
) {
  const acc = await node.server.getAccount(from.publicKey());
  const source = opts.seqDelta
    ? new Account(from.publicKey(), (BigInt(acc.sequenceNumber()) + opts.seqDelta).toString())
    : acc;
  const tx = new TransactionBuilder(source, {
    fee: opts.fee ?? "100",
    networkPassphrase: node.networkPassphrase,
  })
    .addOperation(Operation.payment({ destination: to, asset, amount }))
    .setTimeout(60)
    .build();
  tx.sign(opts.signer ?? from);
  return { tx, res: await node.server.sendTransaction(tx) };
}

async function nativeBalance(node: TestNode, g: string): Promise<bigint> {
  const e = await node.server.getAccountEntry(g);
  return e.balance;
}

Deno.test("getNetwork, getHealth, getVersionInfo, getFeeStats, getLatestLedger decode", async () => {
  await using node = await startTestNode();
  const net = await node.server.getNetwork();
  assert.equal(net.passphrase, node.networkPassphrase);
  assert.equal(net.protocolVersion, 27);
  assert.equal(net.friendbotUrl, node.friendbotUrl);
  const health = await node.server.getHealth();
  assert.equal(health.status, "healthy");
  await node.closeLedgers(3);
  const latest = await node.server.getLatestLedger();
  assert.equal(latest.sequence, 4);
  assert.equal(latest.protocolVersion, 27);
  // v17 decodes both XDRs: check they are the right header and chain to the previous one.
  assert.equal(latest.headerXdr.ledgerSeq, 4);
  assert.equal(latest.metadataXdr.type, "v2");
  const prev = await node.server.getLedgers({ startLedger: 3, pagination: { limit: 1 } });
  assert.equal(prev.ledgers.length, 1);
  assert.equal(prev.ledgers[0].sequence, 3);
  assert.equal(
    Buffer.from(latest.headerXdr.previousLedgerHash.value).toString("hex"),
    prev.ledgers[0].hash,
  );
  const v = await node.server.getVersionInfo();
  assert.equal(v.protocolVersion, 27);
  const fees = await node.server.getFeeStats();
  assert.equal(typeof fees.sorobanInclusionFee.p50, "string");
  assert.equal(fees.latestLedger, 4);
});

Deno.test("friendbot funds a new account with a real transaction; getAccount reads it", async () => {
  await using node = await startTestNode();
  const kp = Keypair.random();
  const tx = await node.server.fundAddress(kp.publicKey());
  assert.equal(tx.status, "SUCCESS");
  const acc = await node.server.getAccount(kp.publicKey());
  const ledger = tx.ledger;
  assert.equal(acc.sequenceNumber(), (BigInt(ledger) << 32n).toString());
  assert.equal(await nativeBalance(node, kp.publicKey()), 10_000n * 10_000_000n);
  // GET works too, and a second funding is refused with the real friendbot's wording.
  const again = await fetch(`${node.friendbotUrl}?addr=${kp.publicKey()}`);
  assert.equal(again.status, 400);
  assert.match((await again.json()).detail, /createAccountAlreadyExist/);
  // requestAirdrop (deprecated path) also works for a new account.
  const kp2 = Keypair.random();
  const a2 = await node.server.requestAirdrop(kp2.publicKey());
  assert.equal(a2.accountId(), kp2.publicKey());
});

Deno.test("friendbot funds a contract address through the native SAC", async () => {
  await using node = await startTestNode();
  const admin = await node.newAccount();
  const c = await deployFixture(node, "counter", { admin: admin.publicKey() });
  // Without the native SAC deployed there is nothing to pay a contract with.
  await assert.rejects(node.server.fundAddress(c));
  await node.deployAsset(Asset.native());
  const tx = await node.server.fundAddress(c);
  assert.equal(tx.status, "SUCCESS");
  const bal = await node.server.getSACBalance(c, Asset.native(), node.networkPassphrase);
  assert.equal(bal.balanceEntry?.amount, (10_000n * 10_000_000n).toString());
});

Deno.test("payment: balances move, fee is charged, getTransaction SUCCESS with meta", async () => {
  await using node = await startTestNode();
  const alice = await node.newAccount();
  const bob = await node.newAccount();
  const a0 = await nativeBalance(node, alice.publicKey());
  const b0 = await nativeBalance(node, bob.publicKey());
  const { res } = await pay(node, alice, bob.publicKey(), "12.5");
  assert.equal(res.status, "PENDING");
  const got = await node.server.pollTransaction(res.hash);
  assert.equal(got.status, "SUCCESS");
  if (got.status !== "SUCCESS") return;
  assert.equal(got.resultXdr.feeCharged, 100n);
  assert.equal(got.resultMetaXdr.type, "v4");
  assert.equal(await nativeBalance(node, alice.publicKey()), a0 - 125_000_000n - 100n);
  assert.equal(await nativeBalance(node, bob.publicKey()), b0 + 125_000_000n);
  // getTransactions and getLedgers page over it.
  const txs = await node.server.getTransactions({
    startLedger: got.ledger,
    pagination: { limit: 5 },
  });
  assert.equal(txs.transactions[0].txHash, res.hash);
  assert.equal(txs.transactions[0].status, "SUCCESS");
  const ledgers = await node.server.getLedgers({
    startLedger: got.ledger,
    pagination: { limit: 1 },
  });
  assert.equal(ledgers.ledgers[0].metadataXdr.type, "v2");
});

Deno.test("payment failing at apply (underfunded) is FAILED with seq consumed and fee charged", async () => {
  await using node = await startTestNode();
  const alice = await node.newAccount(10n);
  const bob = await node.newAccount();
  const seq0 = BigInt((await node.server.getAccount(alice.publicKey())).sequenceNumber());
  const bal0 = await nativeBalance(node, alice.publicKey());
  const { res } = await pay(node, alice, bob.publicKey(), "100");
  assert.equal(res.status, "PENDING");
  const got = await node.confirm(res.hash);
  assert.equal(got.status, "FAILED");
  if (got.status !== "FAILED") return;
  assert.equal(got.resultXdr.result.type, "txFailed");
  assert.deepEqual(got.resultXdr.toJson(), {
    fee_charged: "100",
    result: { tx_failed: [{ op_inner: { payment: "underfunded" } }] },
    ext: "v0",
  });
  const seq1 = BigInt((await node.server.getAccount(alice.publicKey())).sequenceNumber());
  assert.equal(seq1, seq0 + 1n);
  assert.equal(await nativeBalance(node, alice.publicKey()), bal0 - 100n);
});

Deno.test("envelope errors: bad seq, bad signature, fee too low, too late, no account", async () => {
  await using node = await startTestNode();
  const alice = await node.newAccount();
  const bob = await node.newAccount();
  const codeOf = (r: rpc.Api.SendTransactionResponse) => {
    assert.equal(r.status, "ERROR");
    return r.errorResult!.result.type;
  };
  const seq0 = (await node.server.getAccount(alice.publicKey())).sequenceNumber();
  assert.equal(
    codeOf((await pay(node, alice, bob.publicKey(), "1", undefined, { seqDelta: 5n })).res),
    "txBadSeq",
  );
  assert.equal(
    codeOf((await pay(node, alice, bob.publicKey(), "1", undefined, { signer: bob })).res),
    "txBadAuth",
  );
  assert.equal(
    codeOf((await pay(node, alice, bob.publicKey(), "1", undefined, { fee: "99" })).res),
    "txInsufficientFee",
  );
  // The error result XDR is a real TransactionResult: fee 100, tx_bad_seq.
  const bad = (await pay(node, alice, bob.publicKey(), "1", undefined, { seqDelta: 5n })).res;
  assert.deepEqual(bad.errorResult!.toJson(), {
    fee_charged: "100",
    result: "tx_bad_seq",
    ext: "v0",
  });
  // Nothing was included: the sequence number did not move.
  assert.equal((await node.server.getAccount(alice.publicKey())).sequenceNumber(), seq0);
  // Time bounds: maxTime in the past.
  const acc = await node.server.getAccount(alice.publicKey());
  const late = new TransactionBuilder(acc, {
    fee: "100",
    networkPassphrase: node.networkPassphrase,
    timebounds: { minTime: 0, maxTime: Math.floor(Date.now() / 1000) - 10 },
  }).addOperation(
    Operation.payment({ destination: bob.publicKey(), asset: Asset.native(), amount: "1" }),
  )
    .build();
  late.sign(alice);
  assert.equal(codeOf(await node.server.sendTransaction(late)), "txTooLate");
  // Unknown source account.
  const ghost = Keypair.random();
  const g = new TransactionBuilder(new Account(ghost.publicKey(), "1"), {
    fee: "100",
    networkPassphrase: node.networkPassphrase,
  }).addOperation(
    Operation.payment({ destination: bob.publicKey(), asset: Asset.native(), amount: "1" }),
  )
    .setTimeout(30).build();
  g.sign(ghost);
  assert.equal(codeOf(await node.server.sendTransaction(g)), "txNoAccount");
  // An extra, unused signature.
  const acc2 = await node.server.getAccount(alice.publicKey());
  const extra = new TransactionBuilder(acc2, {
    fee: "100",
    networkPassphrase: node.networkPassphrase,
  })
    .addOperation(
      Operation.payment({ destination: bob.publicKey(), asset: Asset.native(), amount: "1" }),
    )
    .setTimeout(30).build();
  extra.sign(alice, bob);
  assert.equal(codeOf(await node.server.sendTransaction(extra)), "txBadAuthExtra");
  // Too early: minTime in the future.
  const early = new TransactionBuilder(await node.server.getAccount(alice.publicKey()), {
    fee: "100",
    networkPassphrase: node.networkPassphrase,
    timebounds: { minTime: Math.floor(Date.now() / 1000) + 3600, maxTime: 0 },
  }).addOperation(
    Operation.payment({ destination: bob.publicKey(), asset: Asset.native(), amount: "1" }),
  ).build();
  early.sign(alice);
  assert.equal(codeOf(await node.server.sendTransaction(early)), "txTooEarly");
  // Fee above what is available over the reserve → txInsufficientBalance.
  const poor = await node.newAccount(1n); // exactly the 1 XLM minimum balance
  assert.equal(
    codeOf((await pay(node, poor, bob.publicKey(), "0.1")).res),
    "txInsufficientBalance",
  );
  // A Soroban op mixed with a classic one → txMalformed.
  const mixed = new TransactionBuilder(await node.server.getAccount(alice.publicKey()), {
    fee: "200",
    networkPassphrase: node.networkPassphrase,
  }).addOperation(
    Operation.invokeContractFunction({
      contract: Asset.native().contractId(node.networkPassphrase),
      function: "decimals",
      args: [],
    }),
  ).addOperation(
    Operation.payment({ destination: bob.publicKey(), asset: Asset.native(), amount: "1" }),
  ).setTimeout(30).build();
  mixed.sign(alice);
  assert.equal(codeOf(await node.server.sendTransaction(mixed)), "txMalformed");
  // A fee bump not signed by its fee source → txBadAuth (the outer check comes first).
  const inner = new TransactionBuilder(await node.server.getAccount(alice.publicKey()), {
    fee: "100",
    networkPassphrase: node.networkPassphrase,
  }).addOperation(
    Operation.payment({ destination: bob.publicKey(), asset: Asset.native(), amount: "1" }),
  ).setTimeout(30).build();
  inner.sign(alice);
  const cheap = TransactionBuilder.buildFeeBumpTransaction(
    bob,
    "100",
    inner,
    node.networkPassphrase,
  );
  cheap.sign(alice);
  const cheapRes = await node.server.sendTransaction(cheap);
  assert.equal(codeOf(cheapRes), "txBadAuth");
  assert.equal(
    cheapRes.hash,
    cheap.hash().reduce((h, b) => h + b.toString(16).padStart(2, "0"), ""),
  );
  // Unsupported op → txFAILED [opNOT_SUPPORTED], not included.
  const acc3 = await node.server.getAccount(alice.publicKey());
  const ms = new TransactionBuilder(acc3, { fee: "100", networkPassphrase: node.networkPassphrase })
    .addOperation(Operation.manageData({ name: "k", value: "v" }))
    .setTimeout(30).build();
  ms.sign(alice);
  const r = await node.server.sendTransaction(ms);
  assert.equal(r.status, "ERROR");
  assert.deepEqual(r.errorResult!.toJson(), {
    fee_charged: "100",
    result: { tx_failed: ["op_not_supported"] },
    ext: "v0",
  });
});

Deno.test("ChangeTrust + issued-asset payments: trustline balances, issuer mints, limits", async () => {
  await using node = await startTestNode();
  const issuer = await node.newAccount();
  const alice = await node.newAccount();
  const bob = await node.newAccount();
  const usdc = new Asset("USDC", issuer.publicKey());
  // Without a trustline the payment fails at apply (no_trust).
  const { res: noTrust } = await pay(node, issuer, alice.publicKey(), "5", usdc);
  const nt = await node.confirm(noTrust.hash);
  assert.equal(nt.status, "FAILED");
  for (const kp of [alice, bob]) {
    const acc = await node.server.getAccount(kp.publicKey());
    const tx = new TransactionBuilder(acc, {
      fee: "100",
      networkPassphrase: node.networkPassphrase,
    })
      .addOperation(Operation.changeTrust({ asset: usdc, limit: "1000" }))
      .setTimeout(30).build();
    tx.sign(kp);
    const r = await node.server.sendTransaction(tx);
    assert.equal((await node.confirm(r.hash)).status, "SUCCESS");
  }
  const aliceEntry = await node.server.getAccountEntry(alice.publicKey());
  assert.equal(aliceEntry.numSubEntries, 1);
  // Issuer mints to alice; alice pays bob.
  const { res: mint } = await pay(node, issuer, alice.publicKey(), "300", usdc);
  assert.equal((await node.confirm(mint.hash)).status, "SUCCESS");
  const { res: p2 } = await pay(node, alice, bob.publicKey(), "120", usdc);
  assert.equal((await node.confirm(p2.hash)).status, "SUCCESS");
  const aliceLine = await node.server.getTrustline(alice.publicKey(), usdc);
  const bobLine = await node.server.getTrustline(bob.publicKey(), usdc);
  assert.equal(aliceLine.balance, 1_800_000_000n);
  assert.equal(bobLine.balance, 1_200_000_000n);
  // Over the limit → line_full; more than held → underfunded.
  const { res: full } = await pay(node, issuer, bob.publicKey(), "900", usdc);
  const f = await node.confirm(full.hash);
  assert.equal(f.status, "FAILED");
  if (f.status === "FAILED") {
    assert.deepEqual(f.resultXdr.toJson(), {
      fee_charged: "100",
      result: { tx_failed: [{ op_inner: { payment: "line_full" } }] },
      ext: "v0",
    });
  }
  const { res: under } = await pay(node, bob, alice.publicKey(), "500", usdc);
  assert.equal((await node.confirm(under.hash)).status, "FAILED");
});

Deno.test("localnet_advanceTime moves ledger timestamps; closeLedgers; snapshot/revert", async () => {
  await using node = await startTestNode();
  const t0 = node.latestLedger();
  const adv = await rawRpc(node, {
    jsonrpc: "2.0",
    id: 7,
    method: "localnet_advanceTime",
    params: { seconds: 3600 },
  });
  assert.equal(adv.json.id, 7);
  // Time and sequence move together: one ledger per second of ledger time (close interval 1 s).
  assert.equal(adv.json.result.sequence, t0.sequence + 3600);
  assert.ok(adv.json.result.closeTime >= Number(t0.closeTime) + 3600);
  const latest = await node.server.getLatestLedger();
  assert.equal(latest.headerXdr.scpValue.closeTime, BigInt(adv.json.result.closeTime));
  const closed = await rawRpc(node, {
    jsonrpc: "2.0",
    id: 1,
    method: "localnet_closeLedgers",
    params: { count: 10 },
  });
  assert.equal(closed.json.result.sequence, t0.sequence + 3610);
  // Closing ledgers moves time by the interval per ledger (close times strictly increase).
  assert.ok(closed.json.result.closeTime >= adv.json.result.closeTime + 10);
  // SDK-built transactions (time bounds from the wall clock) stay valid after time travel.
  const alice = await node.newAccount();
  const acc = await node.server.getAccount(alice.publicKey());
  const tx = new TransactionBuilder(acc, { fee: "100", networkPassphrase: node.networkPassphrase })
    .addOperation(
      Operation.payment({
        destination: node.chain.root.publicKey(),
        asset: Asset.native(),
        amount: "1",
      }),
    ).setTimeout(300).build();
  tx.sign(alice);
  const sent = await node.server.sendTransaction(tx);
  assert.equal(sent.status, "PENDING");
  const got = await node.confirm(sent.hash);
  assert.equal(got.status, "SUCCESS");
  if (got.status === "SUCCESS") {
    assert.ok(BigInt(got.createdAt) >= BigInt(adv.json.result.closeTime));
  }
  const snap = await rawRpc(node, {
    jsonrpc: "2.0",
    id: 1,
    method: "localnet_snapshot",
    params: null,
  });
  const kp = await node.newAccount();
  await node.closeLedgers(5);
  await node.server.getAccount(kp.publicKey());
  const rev = await rawRpc(node, {
    jsonrpc: "2.0",
    id: 1,
    method: "localnet_revert",
    params: { id: snap.json.result.id },
  });
  assert.equal(rev.json.result.sequence, snap.json.result.sequence);
  await assert.rejects(node.server.getAccount(kp.publicKey()), /Account not found/);
});

Deno.test("JSON-RPC envelope: HTTP 200 always, id echoed, errors, CORS, batches", async () => {
  await using node = await startTestNode();
  const bad = await rawRpc(node, "{nope");
  assert.equal(bad.status, 200);
  assert.equal(bad.json.error.code, -32700);
  const nf = await rawRpc(node, { jsonrpc: "2.0", id: "x", method: "nope", params: null });
  assert.equal(nf.json.id, "x");
  assert.equal(nf.json.error.code, -32601);
  const inv = await rawRpc(node, {
    jsonrpc: "2.0",
    id: 1,
    method: "getLedgerEntries",
    params: { keys: "x" },
  });
  assert.equal(inv.json.error.code, -32602);
  const noParams = await rawRpc(node, { jsonrpc: "2.0", id: 1, method: "getHealth" });
  assert.equal(noParams.json.result.status, "healthy");
  const range = await rawRpc(node, {
    jsonrpc: "2.0",
    id: 1,
    method: "getEvents",
    params: { startLedger: 999, filters: [], pagination: {} },
  });
  assert.equal(range.json.error.code, -32600);
  assert.equal(range.json.error.message, "startLedger must be within the ledger range: 1 - 1");
  const batch = await rawRpc(node, [
    { jsonrpc: "2.0", id: 1, method: "getHealth" },
    { jsonrpc: "2.0", id: 2, method: "getNetwork", params: null },
  ]);
  assert.deepEqual(batch.json.map((r: { id: number }) => r.id), [1, 2]);
  const pre = await fetch(node.rpcUrl, { method: "OPTIONS" });
  await pre.body?.cancel();
  assert.equal(pre.status, 204);
  assert.equal(pre.headers.get("access-control-allow-origin"), "*");
  const sendBad = await rawRpc(node, {
    jsonrpc: "2.0",
    id: 1,
    method: "sendTransaction",
    params: { transaction: "AAAA" },
  });
  assert.equal(sendBad.json.error.code, -32602);
  // getTransaction of an unknown hash: NOT_FOUND with the range fields.
  const nf2 = await node.server.getTransaction("00".repeat(32));
  assert.equal(nf2.status, "NOT_FOUND");
  // getLedgerEntries omits missing keys.
  const k = xdr.LedgerKey.account(
    new xdr.LedgerKeyAccount({
      accountId: xdr.PublicKey.publicKeyTypeEd25519(Keypair.random().rawPublicKey()),
    }),
  );
  const le = await node.server.getLedgerEntries(k);
  assert.equal(le.entries.length, 0);
});

Deno.test("getTransactions and getLedgers page with cursors; registerControlMethod", async () => {
  await using node = await startTestNode();
  const alice = await node.newAccount();
  const bob = await node.newAccount();
  const hashes: string[] = [];
  // One queued transaction per account: each payment lands before the next is sent.
  for (let i = 0; i < 5; i++) {
    const { res } = await pay(node, alice, bob.publicKey(), "1");
    await node.confirm(res.hash);
    hashes.push(res.hash);
  }
  const first = (await node.confirm(hashes[0])) as rpc.Api.GetSuccessfulTransactionResponse;
  const p1 = await node.server.getTransactions({
    startLedger: first.ledger,
    pagination: { limit: 2 },
  });
  assert.deepEqual(p1.transactions.map((t) => t.txHash), hashes.slice(0, 2));
  const p2 = await node.server.getTransactions({ pagination: { cursor: p1.cursor, limit: 2 } });
  assert.deepEqual(p2.transactions.map((t) => t.txHash), hashes.slice(2, 4));
  const p3 = await node.server.getTransactions({ pagination: { cursor: p2.cursor, limit: 10 } });
  assert.deepEqual(p3.transactions.map((t) => t.txHash), hashes.slice(4));
  await assert.rejects(
    node.server.getTransactions({ startLedger: 10_000 }),
    (e: { code: number }) => e.code === -32600,
  );
  const l1 = await node.server.getLedgers({ startLedger: 1, pagination: { limit: 3 } });
  assert.deepEqual(l1.ledgers.map((l) => l.sequence), [1, 2, 3]);
  const l2 = await node.server.getLedgers({ pagination: { cursor: l1.cursor, limit: 2 } });
  assert.deepEqual(l2.ledgers.map((l) => l.sequence), [4, 5]);
  assert.equal(l2.ledgers[0].headerXdr.header.ledgerSeq, 4);
  // Control methods added by scenario code are served on the same endpoint.
  node.registerControlMethod("localnet_echo", (params) => ({ got: params }));
  const echo = await rawRpc(node, {
    jsonrpc: "2.0",
    id: 9,
    method: "localnet_echo",
    params: { x: 1 },
  });
  assert.deepEqual(echo.json, { jsonrpc: "2.0", id: 9, result: { got: { x: 1 } } });
});
