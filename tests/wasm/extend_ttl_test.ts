/**
 * `extend_ttl` as the real host does it, over JSON-RPC, for a Wasm contract (the forwarder's
 * `extend_contract_data_ttl`): an entry is
 * extended only when its TTL is at or below the threshold, and only then is rent charged;
 * `threshold > extend_to` is `Error(Storage, InvalidInput)`; past the network's max TTL a
 * temporary entry is `Error(Storage, InvalidAction)` and a persistent one is clamped.
 */
import assert from "node:assert/strict";
import { Operation, type rpc, xdr } from "@stellar/stellar-sdk";
import { startTestNode, type TestNode } from "@vigil/testing/localnet";
import { forwarderWasm } from "@vigil/testing/wasm/forwarder";
import { contractDataKey, deployWasm, submit } from "@vigil/testing/wasm/deploy_helpers";

// deno-lint-ignore no-explicit-any
type Any = any;

const SHORT = { minPersistentTtl: 30, minTemporaryTtl: 10, maxEntryTtl: 10_000 };
const sym = (s: string) => xdr.ScVal.scvSymbol(s);
const u32 = (n: number) => xdr.ScVal.scvU32(n);
const PERSISTENT = 1 as const;
const TEMPORARY = 0 as const;

function rentOf(res: rpc.Api.GetSuccessfulTransactionResponse): bigint {
  const meta = res.resultMetaXdr as Any;
  assert.equal(meta.type, "v4");
  return BigInt(meta.v4.sorobanMeta.ext.v1.rentFeeCharged);
}

async function checkThresholdSemantics(
  node: TestNode,
  contractId: string,
  fns: { put: string; extend: string },
) {
  const alice = await node.newAccount();
  const inv = (fn: string, args: xdr.ScVal[]) =>
    submit(
      node,
      alice,
      Operation.invokeContractFunction({ contract: contractId, function: fn, args }),
    );
  const liveUntil = async (key: string, t: 0 | 1) => {
    const lk = contractDataKey(contractId, sym(key), t);
    const got = await node.server.getLedgerEntries(xdr.LedgerKey.fromXDR(lk, "base64"));
    return got.entries[0].liveUntilLedgerSeq!;
  };
  await inv(fns.put, [sym("k"), u32(1), u32(PERSISTENT)]);
  await inv(fns.put, [sym("t"), u32(1), u32(TEMPORARY)]);
  const created = await liveUntil("k", PERSISTENT);

  // Above the threshold: nothing extended, no rent.
  const above = await inv(fns.extend, [sym("k"), u32(PERSISTENT), u32(5), u32(1_000)]);
  assert.ok(created - above.ledger > 5, "the entry's TTL must be above the threshold here");
  assert.equal(await liveUntil("k", PERSISTENT), created);
  assert.equal(rentOf(above), 0n);

  // At or below the threshold: extended to ledger + extend_to, with rent.
  const below = await inv(fns.extend, [sym("k"), u32(PERSISTENT), u32(1_000), u32(1_000)]);
  assert.equal(await liveUntil("k", PERSISTENT), below.ledger + 1_000);
  assert.ok(rentOf(below) > 0n);

  // threshold > extend_to: the host's InvalidInput, even for an entry with nothing to extend.
  await assert.rejects(
    () => inv(fns.extend, [sym("k"), u32(PERSISTENT), u32(1_001), u32(1_000)]),
    /Error\(Storage, InvalidInput\)/,
  );
  // Past the max TTL (10,000 here): a temporary entry cannot be extended…
  await assert.rejects(
    () => inv(fns.extend, [sym("t"), u32(TEMPORARY), u32(20_000), u32(20_000)]),
    /Error\(Storage, InvalidAction\)/,
  );
  // …a persistent one is clamped to the max live-until ledger (ledger + max TTL − 1).
  const clamped = await inv(fns.extend, [sym("k"), u32(PERSISTENT), u32(20_000), u32(20_000)]);
  assert.equal(await liveUntil("k", PERSISTENT), clamped.ledger + 10_000 - 1);
}

Deno.test("Wasm extend_contract_data_ttl honours the threshold and the max TTL", async () => {
  await using node = await startTestNode({ network: SHORT });
  const alice = await node.newAccount();
  const fwd = await deployWasm(node, alice, await forwarderWasm());
  await checkThresholdSemantics(node, fwd, { put: "l__", extend: "l_7" });
});
