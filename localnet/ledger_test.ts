/**
 * Unit tests of the ledger layer without HTTP: header hash chain and hashes against the SDK's
 * own XDR encoding, fee model, cursors, classic op result codes, snapshots.
 */
import assert from "node:assert/strict";
import {
  Account,
  Address,
  Asset,
  Keypair,
  nativeToScVal,
  Networks,
  Operation,
  TransactionBuilder,
  xdr,
} from "@stellar/stellar-sdk";
import { realHostApi as host, realLedger, settingsOf } from "./real_host/node_host.ts";
import { closeRealHost, resourceFee } from "./real_host/mod.ts";
import fc from "fast-check";
import { Chain } from "./ledger.ts";
import { resultPair, txMetaB64, txSetOf } from "./meta.ts";
import { simulateEnvelope } from "./apply_soroban.ts";
import { fixtureWasm } from "@vigil/testing/contracts/mod";
import { eventsFee, FEE_CONFIG, nonRefundableFee } from "./fees.ts";
import { cursorString, parseCursor, toid } from "./events.ts";
import { loadAccount } from "./accounts.ts";
import { sha256, toHex } from "./util.ts";

function classicTx(chain: Chain, kp: Keypair, ops: xdr.Operation[], fee = 100) {
  const acc = loadAccount(chain.store, kp.publicKey())!;
  const b = new TransactionBuilder(new Account(kp.publicKey(), acc.seqNum.toString()), {
    fee: String(fee),
    networkPassphrase: chain.passphrase,
  });
  for (const op of ops) b.addOperation(op);
  const tx = b.setTimeout(0).build();
  tx.sign(kp);
  const env = tx.toEnvelope();
  // Queued, then included when the next ledger closes.
  const out = chain.submit(env, env.toXdr("base64"));
  if (out.status === "PENDING") chain.closeLedger();
  return out;
}

function resultJson(chain: Chain, hash: string) {
  return chain.txIndex.get(hash)!.result.toJson();
}

Deno.test("headers chain by sha256 of the previous header; set hashes match the SDK's XDR", () => {
  const chain = new Chain(Networks.STANDALONE, host);
  const root = chain.root;
  const a = Keypair.random();
  const b = Keypair.random();
  const r1 = classicTx(chain, root, [
    Operation.createAccount({ destination: a.publicKey(), startingBalance: "100" }),
    Operation.createAccount({ destination: b.publicKey(), startingBalance: "100" }),
  ], 200);
  assert.equal(r1.status, "PENDING");
  chain.closeLedgers(2);
  for (let i = 1; i < chain.ledgers.length; i++) {
    const prev = chain.ledgers[i - 1];
    const cur = chain.ledgers[i];
    assert.equal(cur.sequence, prev.sequence + 1);
    const header = chain.header(cur);
    assert.equal(toHex(header.previousLedgerHash.value), chain.hashHex(prev));
    assert.equal(toHex(sha256(header.toXdr())), chain.hashHex(cur));
    assert.equal(header.ledgerSeq, cur.sequence);
    assert.equal(header.scpValue.closeTime, cur.closeTime);
    assert.equal(
      toHex(header.scpValue.txSetHash.value),
      toHex(sha256(txSetOf(prev.hash, cur.txs).toXdr())),
    );
    assert.equal(
      toHex(header.txSetResultHash.value),
      toHex(sha256(new xdr.TransactionResultSet({ results: cur.txs.map(resultPair) }).toXdr())),
    );
    // Close times strictly increase, as stellar-core requires.
    assert.ok(cur.closeTime > prev.closeTime);
  }
  // Meta decodes and contains the created accounts.
  const l2 = chain.ledger(2)!;
  const meta = xdr.LedgerCloseMeta.fromXdr(chain.metaB64(l2), "base64");
  assert.equal(meta.type, "v2");
  if (meta.type === "v2") {
    const tm = meta.v2.txProcessing[0].txApplyProcessing;
    assert.equal(tm.type, "v4");
    if (tm.type === "v4") {
      const created = tm.v4.operations.flatMap((o) => o.changes).filter((c) =>
        c.type === "ledgerEntryCreated"
      );
      assert.equal(created.length, 2);
    }
  }
  // New accounts start at creationLedger << 32.
  assert.equal(loadAccount(chain.store, a.publicKey())!.seqNum, 2n << 32n);
});

Deno.test("a ledger applies in stellar-core's order whatever the arrival order; its tx set lists members by full hash", () => {
  const chain = new Chain(Networks.STANDALONE, host);
  const senders = [Keypair.random(), Keypair.random(), Keypair.random(), Keypair.random()];
  classicTx(
    chain,
    chain.root,
    senders.map((k) =>
      Operation.createAccount({ destination: k.publicKey(), startingBalance: "100" })
    ),
  );
  const envs = senders.map((kp) => {
    const acc = loadAccount(chain.store, kp.publicKey())!;
    const tx = new TransactionBuilder(new Account(kp.publicKey(), acc.seqNum.toString()), {
      fee: "100",
      networkPassphrase: chain.passphrase,
    }).addOperation(
      Operation.payment({
        destination: chain.root.publicKey(),
        asset: Asset.native(),
        amount: "1",
      }),
    ).setTimeout(0).build();
    tx.sign(kp);
    return tx.toEnvelope().toXdr("base64");
  });
  const predicted = chain.applyOrderOf(envs);
  const snap = chain.snapshot();
  const orders: string[][] = [];
  for (const arrival of [[0, 1, 2, 3], [3, 2, 1, 0], [2, 0, 3, 1]]) {
    chain.revert(snap);
    for (const i of arrival) {
      assert.equal(
        chain.submit(xdr.TransactionEnvelope.fromXdr(envs[i], "base64"), envs[i]).status,
        "PENDING",
      );
    }
    const l = chain.closeLedger();
    assert.deepEqual(l.txs.map((t) => t.order), [1, 2, 3, 4]);
    orders.push(l.txs.map((t) => t.hash));
    // Canonical set: one component at the base fee, members by SHA-256 of the envelope.
    const phase = txSetOf(chain.ledger(l.sequence - 1)!.hash, l.txs).v1TxSet.phases[0];
    assert.ok(phase.type === "v0Components");
    const comps = phase.v0Components;
    assert.equal(comps.length, 1);
    const c = comps[0].txsMaybeDiscountedFee;
    assert.equal(c.baseFee, 100n);
    const keys = c.txs.map((e) => toHex(sha256(e.toXdr())));
    assert.deepEqual(keys, [...keys].sort());
  }
  assert.deepEqual(orders[1], orders[0]);
  assert.deepEqual(orders[2], orders[0]);
  assert.deepEqual(orders[0], predicted);
});

Deno.test("Soroban transactions go into the parallel phase; its hash matches the SDK's XDR", async () => {
  const chain = new Chain(Networks.STANDALONE, host);
  // The counter fixture's Wasm, uploaded and created directly (as Localnet.deployWasm does).
  const direct = (hostFunction: xdr.HostFunction): xdr.ScVal => {
    const res = host.invokeHostFunction({
      reader: chain.store,
      ledger: chain.hostLedger(),
      source: chain.root.publicKey(),
      hostFunction,
      auth: [],
      mode: "record_allow_nonroot",
    });
    assert.equal(res.ok, true, res.errorString);
    chain.applyDirect(res.changes, [], res.liveUntil);
    return res.returnValue!;
  };
  const wasm = await fixtureWasm("counter");
  direct(xdr.HostFunction.hostFunctionTypeUploadContractWasm(wasm as never));
  const created = direct(xdr.HostFunction.hostFunctionTypeCreateContractV2(
    new xdr.CreateContractArgsV2({
      contractIdPreimage: xdr.ContractIdPreimage.contractIdPreimageFromAddress(
        new xdr.ContractIdPreimageFromAddress({
          address: new Address(chain.root.publicKey()).toScAddress(),
          salt: new Uint8Array(32) as never,
        }),
      ),
      executable: xdr.ContractExecutable.contractExecutableWasm(sha256(wasm) as never),
      constructorArgs: [new Address(chain.root.publicKey()).toScVal()],
    }),
  ));
  const dep = { contractId: Address.fromScVal(created).toString() };
  chain.settle();
  const root = chain.root;
  const acc = loadAccount(chain.store, root.publicKey())!;
  const op = Operation.invokeContractFunction({
    contract: dep.contractId,
    function: "increment",
    args: [new Address(root.publicKey()).toScVal(), nativeToScVal(2, { type: "u32" })],
  });
  const unsigned = new TransactionBuilder(new Account(root.publicKey(), acc.seqNum.toString()), {
    fee: "100",
    networkPassphrase: chain.passphrase,
  }).addOperation(op).setTimeout(0).build();
  const sim = simulateEnvelope(
    { reader: chain.store, host, hostLedger: chain.hostLedger() },
    unsigned.toEnvelope(),
    undefined,
  );
  assert.equal(sim.error, undefined);
  const tx = new TransactionBuilder(new Account(root.publicKey(), acc.seqNum.toString()), {
    fee: "100",
    networkPassphrase: chain.passphrase,
  }).addOperation(
    Operation.invokeHostFunction({
      func: (op.body as xdr.OperationBodyInvokeHostFunction).invokeHostFunctionOp.hostFunction,
      auth: sim.results![0].auth.map((a) => xdr.SorobanAuthorizationEntry.fromXdr(a, "base64")),
    }),
  ).setSorobanData(xdr.SorobanTransactionData.fromXdr(sim.transactionData!, "base64"))
    .setTimeout(0).build();
  tx.sign(root);
  const env = tx.toEnvelope();
  const r = chain.submit(env, env.toXdr("base64"));
  assert.equal(r.status, "PENDING");
  const l = chain.closeLedger();
  assert.equal(l.txs[0].successful, true);
  const set = txSetOf(chain.ledger(l.sequence - 1)!.hash, l.txs);
  assert.equal(set.v1TxSet.phases[1].type, "parallelTxsComponent");
  assert.equal(toHex(chain.header(l).scpValue.txSetHash.value), toHex(sha256(set.toXdr())));
  assert.equal(
    toHex(chain.header(l).txSetResultHash.value),
    toHex(sha256(new xdr.TransactionResultSet({ results: l.txs.map(resultPair) }).toXdr())),
  );
  // The return value is in the v4 meta's sorobanMeta.
  const meta = xdr.TransactionMeta.fromXdr(txMetaB64(l.txs[0], chain.nativeSac), "base64");
  assert.deepEqual(meta.type === "v4" ? meta.v4.sorobanMeta?.returnValue?.toJson() : null, {
    u32: 2,
  });
  closeRealHost(); // the FFI library and its callback, opened by the direct calls
});

Deno.test("classic result codes: low reserve, already exists, malformed, invalid limit", () => {
  const chain = new Chain(Networks.STANDALONE, host);
  const root = chain.root;
  const a = Keypair.random();
  const low = classicTx(chain, root, [
    Operation.createAccount({ destination: a.publicKey(), startingBalance: "0.5" }),
  ]);
  assert.deepEqual(resultJson(chain, low.hash), {
    fee_charged: "100",
    result: { tx_failed: [{ op_inner: { create_account: "low_reserve" } }] },
    ext: "v0",
  });
  classicTx(chain, root, [
    Operation.createAccount({ destination: a.publicKey(), startingBalance: "10" }),
  ]);
  const again = classicTx(chain, root, [
    Operation.createAccount({ destination: a.publicKey(), startingBalance: "10" }),
  ]);
  assert.deepEqual(resultJson(chain, again.hash), {
    fee_charged: "100",
    result: { tx_failed: [{ op_inner: { create_account: "already_exist" } }] },
    ext: "v0",
  });
  // A two-op tx where the second op fails: everything rolled back, fee for both ops charged.
  const b = Keypair.random();
  const before = loadAccount(chain.store, root.publicKey())!.balance;
  const two = classicTx(chain, root, [
    Operation.createAccount({ destination: b.publicKey(), startingBalance: "10" }),
    Operation.createAccount({ destination: a.publicKey(), startingBalance: "10" }),
  ], 200);
  assert.equal(chain.txIndex.get(two.hash)!.successful, false);
  assert.equal(loadAccount(chain.store, b.publicKey()), undefined);
  assert.equal(loadAccount(chain.store, root.publicKey())!.balance, before - 200n);
  // Malformed at submission → ERROR, not included.
  const bad = classicTx(chain, root, [
    Operation.payment({ destination: a.publicKey(), asset: Asset.native(), amount: "0.0000001" }),
    Operation.createAccount({ destination: root.publicKey(), startingBalance: "10" }),
  ], 200);
  assert.equal(bad.status, "ERROR");
  assert.deepEqual(xdr.TransactionResult.fromXdr(bad.errorResultXdr!, "base64").toJson(), {
    fee_charged: "200",
    result: {
      tx_failed: [
        { op_inner: { payment: "success" } },
        { op_inner: { create_account: "malformed" } },
      ],
    },
    ext: "v0",
  });
  // ChangeTrust: limit below balance → invalid_limit; removal frees the sub-entry.
  const usdc = new Asset("USDC", root.publicKey());
  classicTx(chain, a, [Operation.changeTrust({ asset: usdc, limit: "100" })]);
  classicTx(chain, root, [
    Operation.payment({ destination: a.publicKey(), asset: usdc, amount: "50" }),
  ]);
  const lower = classicTx(chain, a, [Operation.changeTrust({ asset: usdc, limit: "10" })]);
  assert.deepEqual(resultJson(chain, lower.hash), {
    fee_charged: "100",
    result: { tx_failed: [{ op_inner: { change_trust: "invalid_limit" } }] },
    ext: "v0",
  });
  classicTx(chain, a, [
    Operation.payment({ destination: root.publicKey(), asset: usdc, amount: "50" }),
  ]);
  const remove = classicTx(chain, a, [Operation.changeTrust({ asset: usdc, limit: "0" })]);
  assert.equal(chain.txIndex.get(remove.hash)!.successful, true);
  assert.equal(loadAccount(chain.store, a.publicKey())!.numSubEntries, 0);
});

Deno.test("fee schedule: the node's non-refundable and events fees equal the real host's (protocol 27)", () => {
  // stellar-core validates a transaction's declared fee with the host's
  // `compute_transaction_resource_fee`; the node's TS formulas must give the same stroops for the
  // same resources under the same (protocol-27) settings, whatever the resources.
  const ledger = realLedger(new Chain(Networks.STANDALONE, host).hostLedger());
  const settings = settingsOf(FEE_CONFIG);
  try {
    fc.assert(
      fc.property(
        fc.record({
          instructions: fc.integer({ min: 0, max: 400_000_000 }),
          diskReadEntries: fc.integer({ min: 0, max: 200 }),
          writeEntries: fc.integer({ min: 0, max: 200 }),
          diskReadBytes: fc.integer({ min: 0, max: 200_000 }),
          writeBytes: fc.integer({ min: 0, max: 132_096 }),
          txSizeBytes: fc.integer({ min: 100, max: 132_096 }),
          eventBytes: fc.integer({ min: 0, max: 16_384 }),
        }),
        (r) => {
          const fromHost = resourceFee(
            {
              ...r,
              contractEventsSizeBytes: r.eventBytes,
              transactionSizeBytes: r.txSizeBytes,
            },
            ledger,
            settings,
          );
          assert.equal(nonRefundableFee(r), fromHost.nonRefundable, JSON.stringify(r));
          assert.equal(eventsFee(r.eventBytes), fromHost.refundable, JSON.stringify(r));
        },
      ),
      { numRuns: 200 },
    );
    // One by hand, protocol 27's schedule (SLP-4): 1M instructions at 7 per 10k, a disk read
    // at 1,563, two writes at 2,500, 1000 B read at 447/KB, 500 B written at 875/KB, history
    // (800 + 300 B) at 4,059/KB, bandwidth 800 B at 406/KB.
    assert.equal(
      nonRefundableFee({
        instructions: 1_000_000,
        diskReadEntries: 1,
        writeEntries: 2,
        diskReadBytes: 1000,
        writeBytes: 500,
        txSizeBytes: 800,
      }),
      700n + 1563n + 5000n + 437n + 428n + 4361n + 318n,
    );
    // Events and the return value: 5,000 per KB, refundable.
    assert.equal(eventsFee(1024), 5_000n);
  } finally {
    closeRealHost();
  }
});

Deno.test("event cursors: TOID layout and round trip", () => {
  assert.equal(toid(5, 1, 0), (5n << 32n) | (1n << 12n));
  const c = { ledger: 123, tx: 7, op: 2, event: 4 };
  const s = cursorString(c);
  assert.match(s, /^\d{19}-\d{10}$/);
  assert.deepEqual(parseCursor(s), c);
  assert.equal(parseCursor("abc"), undefined);
  assert.equal(parseCursor("1-2-3"), undefined);
});

Deno.test("snapshot/revert restores entries, ledgers and transactions", () => {
  const chain = new Chain(Networks.STANDALONE, host);
  const snap = chain.snapshot();
  const a = Keypair.random();
  const r = classicTx(chain, chain.root, [
    Operation.createAccount({ destination: a.publicKey(), startingBalance: "10" }),
  ]);
  chain.closeLedgers(3);
  assert.ok(chain.txIndex.has(r.hash));
  chain.revert(snap);
  assert.equal(chain.latest.sequence, 1);
  assert.equal(chain.txIndex.has(r.hash), false);
  assert.equal(loadAccount(chain.store, a.publicKey()), undefined);
  // The chain continues from the restored point.
  const r2 = classicTx(chain, chain.root, [
    Operation.createAccount({ destination: a.publicKey(), startingBalance: "10" }),
  ]);
  assert.equal(chain.txIndex.get(r2.hash)!.ledger, 2);
});
