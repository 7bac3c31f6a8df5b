/**
 * TTLs through the node's in-process API on the real host (`Localnet.invoke`, `deployWasm`): a
 * new entry lives as long as the host says, a contract's `extend_ttl` (instance, persistent,
 * temporary; read-only access included) really extends the entry in the store, an extension
 * never shortens, and an archived entry read in-process comes back live (automatic restore).
 */
import assert from "node:assert/strict";
import { Address, xdr } from "@stellar/stellar-sdk";
import { startTestNode, type TestNode } from "@vigil/testing/localnet";
import { deployFixture } from "@vigil/testing/contracts/mod";

const SHORT = { minPersistentTtl: 30, minTemporaryTtl: 10, maxEntryTtl: 10_000 };

function dataKey(contract: string, key: xdr.ScVal, durability: xdr.ContractDataDurability) {
  return xdr.LedgerKey.contractData(
    new xdr.LedgerKeyContractData({
      contract: Address.fromString(contract).toScAddress(),
      key,
      durability,
    }),
  ).toXdr("base64");
}

const PERSISTENT = xdr.ContractDataDurability.persistent;
const TEMPORARY = xdr.ContractDataDurability.temporary;

/** The probe's storage key for `name` in tier 1 (persistent) or 2 (temporary), and its instance. */
function keys(probe: string, name: string) {
  return {
    persistent: dataKey(probe, xdr.ScVal.scvSymbol(name), PERSISTENT),
    temporary: dataKey(probe, xdr.ScVal.scvSymbol(name), TEMPORARY),
    instance: dataKey(probe, xdr.ScVal.scvLedgerKeyContractInstance(), PERSISTENT),
  };
}

/** The ledger the next in-process call runs in (and whose sequence its TTLs count from). */
const openSeq = (node: TestNode) => node.latestLedger().sequence + 1;

Deno.test("real host in-process invoke: new entries get the host's TTL; extend_ttl extends", async () => {
  await using node = await startTestNode({ network: SHORT });
  const probe = await deployFixture(node, "probe");
  const k = keys(probe, "k");
  const store = node.chain.store;

  let seq = openSeq(node);
  await node.invoke(probe, "put", { tier: 1, key: "k", val: 5 });
  await node.invoke(probe, "put", { tier: 2, key: "k", val: 6 });
  assert.equal(store.liveUntil(k.persistent), seq + SHORT.minPersistentTtl - 1);
  assert.equal(store.liveUntil(k.temporary), seq + SHORT.minTemporaryTtl - 1);
  await node.closeLedgers(1);

  // bump_to only reads the entry: the extension is a TTL change of a read-only key.
  seq = openSeq(node);
  await node.invoke(probe, "bump_to", { tier: 1, key: "k", threshold: 500, extend_to: 1000 });
  await node.invoke(probe, "bump_to", { tier: 2, key: "k", threshold: 400, extend_to: 800 });
  await node.invoke(probe, "bump_to", { tier: 0, key: "k", threshold: 600, extend_to: 2000 });
  assert.equal(store.liveUntil(k.persistent), seq + 1000, "persistent entry extended");
  assert.equal(store.liveUntil(k.temporary), seq + 800, "temporary entry extended");
  assert.equal(store.liveUntil(k.instance), seq + 2000, "instance extended");
  await node.closeLedgers(1);

  // What JSON-RPC serves is the store's TTL.
  const got = await node.server.getLedgerEntries(
    xdr.LedgerKey.fromXDR(k.persistent, "base64"),
    xdr.LedgerKey.fromXDR(k.instance, "base64"),
  );
  const byKey = new Map(got.entries.map((e) => [e.key.toXDR("base64"), e.liveUntilLedgerSeq]));
  assert.equal(byKey.get(k.persistent), seq + 1000);
  assert.equal(byKey.get(k.instance), seq + 2000);

  // Below the threshold the host extends nothing, and an extension never shortens a TTL.
  const before = store.liveUntil(k.persistent)!;
  await node.invoke(probe, "bump_to", { tier: 1, key: "k", threshold: 10, extend_to: 20 });
  assert.equal(store.liveUntil(k.persistent), before);
});

Deno.test("real host in-process invoke: an archived entry read in-process is restored live", async () => {
  await using node = await startTestNode({ network: SHORT });
  const probe = await deployFixture(node, "probe");
  const k = keys(probe, "old");
  await node.invoke(probe, "put", { tier: 1, key: "old", val: 9 });
  // Keep the instance and code alive while the entry archives.
  await node.invoke(probe, "bump_to", { tier: 0, key: "old", threshold: 5_000, extend_to: 5_000 });
  await node.closeLedgers(SHORT.minPersistentTtl + 2);
  const store = node.chain.store as unknown as { archived(k: string): boolean };
  assert.ok(store.archived(k.persistent), "the entry is archived");

  const seq = openSeq(node);
  assert.equal(await node.invoke(probe, "read", { tier: 1, key: "old" }), 9);
  assert.ok(!store.archived(k.persistent), "restored by the call");
  assert.equal(node.chain.store.liveUntil(k.persistent), seq + SHORT.minPersistentTtl - 1);
});
