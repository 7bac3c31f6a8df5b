/**
 * The keeper against state archival on the local node (short TTLs set per node): it keeps
 * Vigil's vault and registry instances and code alive by extending their TTL below the
 * threshold (restoring them first when already archived: ExtendFootprintTtl cannot restore), a
 * call whose entries were archived restores them inside the invocation (protocol 23+, CAP-66),
 * and through an older RPC that answers with a `restorePreamble` the restore is sent first.
 */
// @ts-ignore: the Blend SDK's stellar-sdk 14 graph resolves @types/node 12, which lacks node:assert/strict
import assert from "node:assert/strict";
import { Address, xdr } from "@stellar/stellar-sdk";
import { contractInstanceKey, getLedgerEntries } from "@vigil/soroban/ledger";
import { ChainRpc } from "@vigil/soroban/rpc";
import { sv } from "@vigil/soroban/scval";
import { ROOT_ONLY } from "@vigil/soroban/auth_guard";
import { invokeContract } from "@vigil/soroban/tx";
import { keepAlive } from "@vigil/soroban/ttl";
import { startTestNode, type TestNode } from "@vigil/testing/localnet";
import { startPreambleRpc } from "@vigil/testing/preamble_rpc";
import { deployFixture } from "@vigil/testing/contracts/mod";

const SHORT = { minPersistentTtl: 200, minTemporaryTtl: 20, maxEntryTtl: 100_000 };

Deno.test("keep-alive: contract instances and code are extended below the threshold, restored when archived", async () => {
  // Two contracts that never extend their own TTL (Vigil's vault and registry also extend
  // their instance on use; the keeper's hourly keep-alive covers the quiet periods).
  await using node = await startTestNode({ network: SHORT });
  const admin = await node.newAccount();
  const a = await deployFixture(node, "counter", { admin: admin.publicKey() });
  const b = await deployFixture(node, "counter", { admin: admin.publicKey() });
  await node.closeLedgers(1);
  const keeper = await node.newAccount();
  const chain = new ChainRpc(node.rpcUrl, { networkPassphrase: node.networkPassphrase });
  try {
    const ttlOf = async (id: string) => {
      const { entries, latestLedger } = await getLedgerEntries(chain, [contractInstanceKey(id)]);
      return [...entries.values()][0].liveUntilLedgerSeq! - latestLedger;
    };
    const opts = { thresholdLedgers: 50, extendToLedgers: 1_000 };
    // Far from expiry (about 200 left, threshold 50): nothing is sent.
    const quiet = await keepAlive(chain, keeper, [a, b], opts);
    assert.equal(quiet.extended, 0);
    assert.equal(quiet.txHash, undefined);
    assert.equal(quiet.checked, 3, "two instances and their (shared) code");
    // Below the threshold: one ExtendFootprintTtl for all of them.
    await node.closeLedgers((await ttlOf(a)) - 30);
    assert.ok((await ttlOf(a)) < 50);
    const r = await keepAlive(chain, keeper, [a, b], opts);
    assert.ok(r.extended === 3 && r.txHash, JSON.stringify(r));
    assert.ok((await ttlOf(a)) > 900);
    assert.ok((await ttlOf(b)) > 900);
    // Already archived: restored, then extended.
    await node.closeLedgers(1_100);
    assert.ok((await ttlOf(b)) < 0);
    const back = await keepAlive(chain, keeper, [a, b], opts);
    assert.ok(back.restored === 3 && back.extended === 3, JSON.stringify(back));
    assert.ok((await ttlOf(b)) > 900);
    // The restored contract answers calls again.
    const got = await invokeContract(chain, keeper, b, "get", [sv.address(keeper.publicKey())], {
      auth: ROOT_ONLY,
    });
    assert.deepEqual(got.returnValue?.toJson(), { u32: 0 });
  } finally {
    chain.close();
  }
});

/** A counter fixture whose `Count` entry for `user` has been archived, and a call on it. */
async function archivedCounter(node: TestNode, rpcUrl = node.rpcUrl) {
  const admin = await node.newAccount();
  const id = await deployFixture(node, "counter", { admin: admin.publicKey() });
  const user = await node.newAccount();
  const chain = new ChainRpc(rpcUrl, { networkPassphrase: node.networkPassphrase });
  const inc = () =>
    invokeContract(chain, user, id, "increment", [sv.address(user.publicKey()), sv.u32(3)], {
      auth: ROOT_ONLY,
    });
  await inc();
  await node.closeLedgers(250); // the counter entry, instance and code archive
  const key = xdr.LedgerKey.contractData(
    new xdr.LedgerKeyContractData({
      contract: Address.fromString(id).toScAddress(),
      key: xdr.ScVal.scvVec([xdr.ScVal.scvSymbol("Count"), sv.address(user.publicKey())]),
      durability: xdr.ContractDataDurability.persistent,
    }),
  );
  const liveUntil = async () => {
    const { entries, latestLedger } = await getLedgerEntries(chain, [key]);
    return [...entries.values()][0].liveUntilLedgerSeq! - latestLedger;
  };
  const seq = async () =>
    BigInt((await chain.server.getAccount(user.publicKey())).sequenceNumber());
  assert.ok((await liveUntil()) < 0, "archived");
  return { chain, inc, liveUntil, seq };
}

Deno.test("a keeper call on an archived entry restores it inside the invocation (protocol 27: no RestoreFootprint transaction)", async () => {
  await using node = await startTestNode({ network: SHORT });
  const { chain, inc, liveUntil, seq } = await archivedCounter(node);
  try {
    const before = await seq();
    const r = await inc();
    assert.deepEqual(r.returnValue?.toJson(), { u32: 6 });
    // The entry, the instance and the code: all restored by the call's own transaction.
    assert.ok(r.restoredEntries! >= 1, JSON.stringify(r));
    assert.equal(r.restoreTxHash, undefined);
    assert.equal((await seq()) - before, 1n, "one transaction from the keeper");
    assert.ok((await liveUntil()) >= 0, "live again");
  } finally {
    chain.close();
  }
});

Deno.test("a keeper call through an RPC that answers with a restorePreamble: RestoreFootprint first, then the call", async () => {
  await using node = await startTestNode({ network: SHORT });
  await using old = startPreambleRpc(node.rpcUrl, node.networkPassphrase);
  const { chain, inc, liveUntil, seq } = await archivedCounter(node, old.url);
  try {
    const before = await seq();
    const r = await inc();
    assert.deepEqual(r.returnValue?.toJson(), { u32: 6 });
    assert.equal(old.rewritten, 1);
    assert.match(r.restoreTxHash ?? "", /^[0-9a-f]{64}$/);
    assert.equal(r.restoredEntries, 0, "nothing left to restore inside the call");
    assert.equal((await seq()) - before, 2n, "the restore, then the call");
    assert.ok((await liveUntil()) >= 0, "live again");
  } finally {
    chain.close();
  }
});
