/**
 * The real host runs protocol-27 Wasm: a contract declaring `contractenvmetav0` protocol 27 that
 * calls `u256_checked_add` (a protocol-26 host function the home-made host does not bind) returns
 * the sum, and `Void` on overflow. A Wasm declaring a protocol above the node's is refused.
 */
import assert from "node:assert/strict";
import { Keypair, nativeToScVal, scValToNative, xdr } from "@stellar/stellar-sdk";
import { closeRealHost, REAL_HOST_PROTOCOL } from "./mod.ts";
import { wat } from "@vigil/testing/wat";
import { call, RealLedger } from "@vigil/testing/real_host/ledger";

// `u256_checked_add` is export "H" of module "i" (soroban-env-common 27.0.1 env.json).
const SRC = `(module
  (import "i" "H" (func $u256_checked_add (param i64 i64) (result i64)))
  (func (export "add") (param i64 i64) (result i64)
    (call $u256_checked_add (local.get 0) (local.get 1)))
)`;

Deno.test("real host: a protocol-27 Wasm calls u256_checked_add", async () => {
  const wasm = await wat(SRC, { protocol: REAL_HOST_PROTOCOL });
  try {
    const l = new RealLedger();
    const g = Keypair.random().publicKey();
    l.account(g, 1_000_0000000n);
    const c = l.deploy(g, wasm, []);
    const u256 = (v: bigint) => nativeToScVal(v, { type: "u256" });
    const sum = l.run(g, call(c, "add", [u256(2n), u256(40n)]));
    assert.ok(sum.out.ok, sum.out.error?.debug);
    assert.equal(scValToNative(sum.out.result!), 42n);
    const big = (1n << 256n) - 1n;
    const huge = l.run(g, call(c, "add", [u256(big - 1n), u256(1n)]));
    assert.equal(scValToNative(huge.out.result!), big);
    // Overflow: checked arithmetic returns Void instead of trapping.
    const over = l.simulate(g, call(c, "add", [u256(big), u256(1n)]));
    assert.ok(over.ok, over.error?.debug);
    assert.equal(over.result!.toXdr("base64"), xdr.ScVal.scvVoid().toXdr("base64"));
  } finally {
    closeRealHost();
  }
});

Deno.test("real host: a Wasm declaring a protocol above the ledger's is refused", async () => {
  const wasm = await wat(SRC, { protocol: REAL_HOST_PROTOCOL + 1 });
  try {
    const l = new RealLedger();
    const g = Keypair.random().publicKey();
    l.account(g, 1_000_0000000n);
    const sim = l.simulate(g, xdr.HostFunction.hostFunctionTypeUploadContractWasm(wasm));
    assert.equal(sim.ok, false);
    assert.deepEqual(sim.error!.scError!.toJson(), { wasm_vm: "invalid_input" });
  } finally {
    closeRealHost();
  }
});

Deno.test("real host: the AssemblyScript fixture built for protocol 27 (checked_u256) returns the sum", async () => {
  const wasm = await Deno.readFile(
    new URL("../../contracts/wasm/fixtures/checked_u256.wasm", import.meta.url),
  );
  try {
    const l = new RealLedger();
    const g = Keypair.random().publicKey();
    l.account(g, 1_000_0000000n);
    const c = l.deploy(g, wasm, []);
    const u256 = (v: bigint) => nativeToScVal(v, { type: "u256" });
    const sum = l.run(g, call(c, "add", [u256(1n << 200n), u256(7n)]));
    assert.ok(sum.out.ok, sum.out.error?.debug);
    assert.equal(scValToNative(sum.out.result!), (1n << 200n) + 7n);
  } finally {
    closeRealHost();
  }
});
