/**
 * A contract built for protocol 27 (`checked_u256`, calling the protocol-26 host function
 * `u256_checked_add`) on the node's own protocol-23 host: refused at upload, as a protocol-23
 * network refuses a module whose `contractenvmetav0` is newer than the ledger's protocol, and
 * nothing is stored. (The real host at protocol 27, issue 22, runs it: `tests/real_host/`.)
 */
import assert from "node:assert/strict";
import { hash } from "@stellar/stellar-sdk";
import { startTestNode } from "../helpers/localnet.ts";
import { CHECKED_U256_PROTOCOL } from "../fixtures/contracts/checked_u256/spec.ts";

const WASM = new URL("../../contracts/wasm/fixtures/checked_u256.wasm", import.meta.url);

Deno.test("a protocol-27 Wasm is refused at upload by the protocol-23 host, and nothing is stored", async () => {
  await using node = await startTestNode();
  const wasm = await Deno.readFile(WASM);
  assert.equal(CHECKED_U256_PROTOCOL, 27);
  await assert.rejects(
    () => node.uploadWasm(wasm),
    /contract protocol number 27 is newer than host protocol 23/,
  );
  // No contract code entry: the RPC answers "not found" (a rejection, not an Error object).
  const found = await node.server.getContractWasmByHash(hash(wasm as never)).then(
    () => true,
    () => false,
  );
  assert.equal(found, false, "the refused Wasm was stored");
});
