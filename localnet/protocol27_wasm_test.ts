/**
 * A contract built for protocol 27 (`checked_u256`, calling the protocol-26 host function
 * `u256_checked_add`) on the node, over JSON-RPC with stellar-sdk: uploaded and created by
 * transactions, called through `contract.Client`, it returns the sum, and `None` on overflow
 * (issue 22's "done when"). A module newer than the ledger's protocol is refused by the host
 * itself: `localnet/real_host/protocol27_test.ts`.
 */
import assert from "node:assert/strict";
import { hash, type Keypair } from "@stellar/stellar-sdk";
import { startTestNode } from "@vigil/testing/localnet";
import { CHECKED_U256_PROTOCOL } from "@vigil/testing/contracts/checked_u256/spec";

const WASM = new URL("../contracts/wasm/fixtures/checked_u256.wasm", import.meta.url);

interface CheckedU256 {
  add(args: { a: bigint; b: bigint }): Promise<{ result: bigint | null | undefined }>;
}

Deno.test("a protocol-27 Wasm calling u256_checked_add runs on the node and returns the sum", async () => {
  await using node = await startTestNode();
  assert.equal((await node.server.getVersionInfo()).protocolVersion, 27);
  const wasm = await Deno.readFile(WASM);
  assert.equal(CHECKED_U256_PROTOCOL, 27);
  const id = await node.deployWasm(wasm);
  // The code entry is served by the RPC, byte for byte.
  const served = await node.server.getContractWasmByHash(hash(wasm as never));
  assert.deepEqual(new Uint8Array(served), wasm);
  const alice: Keypair = await node.newAccount();
  const c = await node.clientFor<CheckedU256>(id, alice);
  const max = (1n << 256n) - 1n;
  assert.equal((await c.add({ a: 2n ** 200n, b: 12_345n })).result, 2n ** 200n + 12_345n);
  assert.equal((await c.add({ a: max - 1n, b: 1n })).result, max);
  // Overflow: the host's checked add gives None (Void), not a trap.
  const over = (await c.add({ a: max, b: 1n })).result;
  assert.ok(over === null || over === undefined, `overflow gave ${over}`);
});
