/**
 * The keeper's transaction pipeline against the local node's realistic queue, over JSON-RPC:
 * one transaction in flight per account, TRY_AGAIN_LATER re-sent until queued, a transaction
 * that cannot be included before its ledger bound reported as expired (never landed), and the
 * inclusion fee taken from getFeeStats within the ceiling.
 */
// @ts-ignore: the Blend SDK's stellar-sdk 14 graph resolves @types/node 12, which lacks node:assert/strict
import assert from "node:assert/strict";
import {
  Address,
  Asset,
  type Keypair,
  Operation,
  type Transaction,
  TransactionBuilder,
} from "@stellar/stellar-sdk";
import { type DryRunCall, DryRunError, TxExpiredError } from "@vigil/soroban/errors";
import { ChainRpc } from "@vigil/soroban/rpc";
import { sv } from "@vigil/soroban/scval";
import { ROOT_ONLY } from "@vigil/soroban/auth_guard";
import { sendChangeTrust } from "@vigil/soroban/change_trust";
import { inclusionFeeFor, invokeContract, sendAndConfirm } from "@vigil/soroban/tx";
import { startTestNode, type TestNode } from "@vigil/testing/localnet";
import { submitRaw } from "@vigil/testing/submit";

function rpcFor(node: TestNode): ChainRpc {
  return new ChainRpc(node.rpcUrl, { networkPassphrase: node.networkPassphrase });
}

const transfer = (from: Keypair, to: string, stroops: bigint) => [
  sv.address(from.publicKey()),
  sv.address(to),
  sv.i128(stroops),
];

async function payment(node: TestNode, from: Keypair, fee: string, maxLedger?: number) {
  const acc = await node.server.getAccount(from.publicKey());
  const tx = new TransactionBuilder(acc, {
    fee,
    networkPassphrase: node.networkPassphrase,
    timebounds: { minTime: 0, maxTime: Math.floor(Date.now() / 1000) + 600 },
    ...(maxLedger ? { ledgerbounds: { minLedger: 0, maxLedger } } : {}),
  })
    .addOperation(
      Operation.payment({
        destination: node.chain.root.publicKey(),
        asset: Asset.native(),
        amount: "1",
      }),
    )
    .build();
  tx.sign(from);
  return tx;
}

Deno.test("two concurrent calls from one account are serialized: both land, in order", async () => {
  await using node = await startTestNode();
  const sac = await node.deployAsset(Asset.native());
  const keeper = await node.newAccount();
  const to = (await node.newAccount()).publicKey();
  const chain = rpcFor(node);
  try {
    const [a, b] = await Promise.all([
      invokeContract(chain, keeper, sac, "transfer", transfer(keeper, to, 1n), { auth: ROOT_ONLY }),
      invokeContract(chain, keeper, sac, "transfer", transfer(keeper, to, 2n), { auth: ROOT_ONLY }),
    ]);
    // Without the per-account lock the second would reuse the sequence number (or be refused
    // with TRY_AGAIN_LATER while the first waits in the queue).
    assert.ok(b.ledger > a.ledger, `${a.ledger} then ${b.ledger}`);
  } finally {
    chain.close();
  }
});

Deno.test("TRY_AGAIN_LATER (queue full of higher bids) is re-sent until it lands", async () => {
  // One classic operation per ledger, so the lane's queue holds four transactions.
  await using node = await startTestNode({ autoCloseMs: 0, capacity: { classicOps: 1 } });
  const bidders = await Promise.all([1, 2, 3, 4].map(() => node.newAccount()));
  const me = await node.newAccount();
  for (const b of bidders) {
    const r = await submitRaw(node.server, await payment(node, b, "500"));
    assert.equal(r.status, "PENDING");
  }
  const mine = await payment(node, me, "100");
  const direct = await submitRaw(node.server, mine);
  assert.equal(direct.status, "TRY_AGAIN_LATER");
  const chain = rpcFor(node);
  try {
    const pending = sendAndConfirm(chain, mine, { pollIntervalMs: 20 });
    // Ledgers close: one bidder each; the queue drains and the re-sent envelope gets in.
    let landed;
    for (let i = 0; i < 20 && !landed; i++) {
      await node.closeLedgers(1);
      await new Promise((r) => setTimeout(r, 60));
      landed = await Promise.race([pending, Promise.resolve(undefined)]);
    }
    const r = landed ?? await pending;
    assert.equal(r.failed, undefined);
    assert.ok(r.ledger > 0);
  } finally {
    chain.close();
  }
});

Deno.test("a transaction that cannot be included before its ledger bound is reported as expired", async () => {
  // No classic capacity at all: a congested network where nothing of ours is included.
  await using node = await startTestNode({ autoCloseMs: 0, capacity: { classicOps: 0 } });
  const me = await node.newAccount();
  const latest = node.latestLedger().sequence;
  const tx = await payment(node, me, "100", latest + 4);
  const chain = rpcFor(node);
  try {
    const pending = sendAndConfirm(chain, tx, { pollIntervalMs: 20 });
    const caught = pending.catch((e) => e);
    for (let i = 0; i < 6; i++) {
      await new Promise((r) => setTimeout(r, 40));
      await node.closeLedgers(1);
    }
    const err = await caught;
    assert.ok(err instanceof TxExpiredError, String(err));
    assert.equal(err.maxLedger, latest + 4);
    // It never landed: the sequence number did not move.
    const acc = await node.server.getAccount(me.publicKey());
    assert.equal(BigInt(acc.sequenceNumber()) + 1n, BigInt(tx.sequence));
  } finally {
    chain.close();
  }
});

Deno.test("inclusion fee: getFeeStats p90 of charged Soroban fees, within the ceiling", async () => {
  await using node = await startTestNode({ autoCloseMs: 0, capacity: { sorobanTxs: 1 } });
  const sac = await node.deployAsset(Asset.native());
  const chain = rpcFor(node);
  try {
    // Empty window: the base fee; a fixed fee is used as given.
    assert.equal(await inclusionFeeFor(chain), 100);
    assert.equal(await inclusionFeeFor(chain, { inclusionFee: 777 }), 777);
    // Two Soroban bids for one slot: the higher lands at the surge price (the lowest included
    // bid = its own), the other in the next ledger.
    const [x, y] = [await node.newAccount(), await node.newAccount()];
    const to = new Address(node.chain.root.publicKey()).toString();
    const both = Promise.all([
      invokeContract(chain, x, sac, "transfer", transfer(x, to, 1n), {
        inclusionFee: 5_000,
        auth: ROOT_ONLY,
      }),
      invokeContract(chain, y, sac, "transfer", transfer(y, to, 1n), {
        inclusionFee: 3_000,
        auth: ROOT_ONLY,
      }),
    ]);
    for (let i = 0; i < 200 && node.chain.queueSize < 2; i++) {
      await new Promise((r) => setTimeout(r, 10));
    }
    assert.equal(node.chain.queueSize, 2);
    await node.closeLedgers(1);
    await new Promise((r) => setTimeout(r, 50));
    await node.closeLedgers(1);
    const [rx, ry] = await both;
    assert.ok(rx.ledger < ry.ledger);
    const fresh = rpcFor(node); // no cached fee stats
    try {
      assert.equal(await inclusionFeeFor(fresh), 5_000);
      assert.equal(await inclusionFeeFor(fresh, { maxInclusionFee: 4_000 }), 4_000);
    } finally {
      fresh.close();
    }
  } finally {
    chain.close();
  }
});

Deno.test("fee from the simulation: the bid rises to what the caller's callback asks, never above the ceiling", async () => {
  await using node = await startTestNode();
  const sac = await node.deployAsset(Asset.native());
  const [k, to] = [await node.newAccount(), (await node.newAccount()).publicKey()];
  const chain = rpcFor(node);
  // The total fee of the envelope as sent: the inclusion bid plus the resource fee, which is the
  // same for the same transfer (same footprint), so differences between two are differences of bids.
  const feeOf = async (hash: string) => {
    const tx = await node.server.getTransaction(hash);
    assert.equal(tx.status, "SUCCESS");
    const sent = TransactionBuilder.fromXDR(
      tx.envelopeXdr.toXDR("base64"),
      node.networkPassphrase,
    ) as Transaction;
    return BigInt(sent.fee);
  };
  try {
    const base = await invokeContract(chain, k, sac, "transfer", transfer(k, to, 1n), {
      auth: ROOT_ONLY,
    });
    const bidOf = async (hash: string) => (await feeOf(hash)) - (await feeOf(base.hash)) + 100n;
    let seen: bigint | undefined;
    const raised = await invokeContract(chain, k, sac, "transfer", transfer(k, to, 1n), {
      auth: ROOT_ONLY,
      maxInclusionFee: 20_000,
      feeFromSimulation: (sim) => {
        seen = BigInt(sim.minResourceFee);
        return 12_345;
      },
    });
    assert.ok(seen !== undefined && seen > 0n, "called with the simulation");
    assert.equal(await bidOf(raised.hash), 12_345n);
    const capped = await invokeContract(chain, k, sac, "transfer", transfer(k, to, 1n), {
      auth: ROOT_ONLY,
      maxInclusionFee: 2_000,
      feeFromSimulation: () => 1e9,
    });
    assert.equal(await bidOf(capped.hash), 2_000n);
    // Never lowered below the fee-stats bid (here the 100-stroop base fee).
    const low = await invokeContract(chain, k, sac, "transfer", transfer(k, to, 1n), {
      auth: ROOT_ONLY,
      feeFromSimulation: () => 1,
    });
    assert.equal(await bidOf(low.hash), 100n);
  } finally {
    chain.close();
  }
});

Deno.test("dry run: simulated and checked, reported to the hook, DryRunError, nothing sent", async () => {
  await using node = await startTestNode();
  const sac = await node.deployAsset(Asset.native());
  const [k, to] = [await node.newAccount(), (await node.newAccount()).publicKey()];
  const chain = rpcFor(node);
  try {
    const seq = (await node.server.getAccount(k.publicKey())).sequenceNumber();
    const seen: DryRunCall[] = [];
    await assert.rejects(
      invokeContract(chain, k, sac, "transfer", transfer(k, to, 5n), {
        auth: ROOT_ONLY,
        dryRun: (a) => seen.push(a),
      }),
      (e) => e instanceof DryRunError && e.action.call === `transfer on ${sac}`,
    );
    assert.equal(seen.length, 1);
    assert.equal(seen[0].fn, "transfer");
    assert.ok(Number(seen[0].resourceFee) > 0);
    // A failing simulation is still an error, not a dry-run action.
    await assert.rejects(
      invokeContract(chain, k, sac, "transfer", transfer(k, to, 10n ** 30n), {
        auth: ROOT_ONLY,
        dryRun: (a) => seen.push(a),
      }),
      (e) => !(e instanceof DryRunError),
    );
    // Classic sends are gated too.
    const tx = await payment(node, k, "100");
    await assert.rejects(sendAndConfirm(chain, tx, { dryRun: (a) => seen.push(a) }), DryRunError);
    assert.equal(seen.at(-1)?.call, "payment");
    await node.closeLedgers(2);
    assert.equal((await node.server.getAccount(k.publicKey())).sequenceNumber(), seq);
  } finally {
    chain.close();
  }
});

Deno.test("sendChangeTrust: the keeper and `main.ts trustline` add a trustline through the send path", async () => {
  await using node = await startTestNode();
  const [issuer, k] = [await node.newAccount(), await node.newAccount()];
  const asset = new Asset("WETH", issuer.publicKey());
  const sac = await node.deployAsset(asset);
  const chain = rpcFor(node);
  try {
    // Without a trustline the SAC refuses the balance read (its TrustlineMissing error).
    await assert.rejects(node.view(sac, "balance", { id: k.publicKey() }));
    const r = await sendChangeTrust(chain, k, asset);
    assert.equal(r.failed, undefined);
    assert.ok(r.ledger > 0);
    assert.equal(await node.view(sac, "balance", { id: k.publicKey() }), 0n);
  } finally {
    chain.close();
  }
});
