/**
 * Our AssemblyScript oracle Wasm (contracts/wasm/oracle.wasm) on the real Soroban host through
 * FFI: create with its constructor, an admin write with source-account auth, SEP-40 reads.
 */
import assert from "node:assert/strict";
import { contract, Keypair } from "@stellar/stellar-sdk";
import { ORACLE_SPEC, otherAsset } from "../protocols/oracle/contract/spec.ts";
import { closeRealHost } from "./mod.ts";
import { call, RealLedger } from "@vigil/testing/real_host/ledger";
import { worldWasmPath } from "../protocols/world_contracts.ts";

Deno.test("real host: oracle constructor, set_price, lastprice", () => {
  try {
    const spec = new contract.Spec(ORACLE_SPEC);
    const l = new RealLedger();
    const admin = Keypair.random().publicKey();
    l.account(admin, 1_000_0000000n);
    const wasm = Deno.readFileSync(worldWasmPath("oracle"));
    const oracle = l.deploy(
      admin,
      wasm,
      spec.funcArgsToScVals("__constructor", {
        admin,
        base: otherAsset("USD"),
        assets: [otherAsset("XLM")],
        decimals: 14,
        resolution: 300,
      }),
    );
    const read = (fn: string, args: object = {}) => {
      const r = l.run(admin, call(oracle, fn, spec.funcArgsToScVals(fn, args)));
      assert.ok(r.out.ok, r.out.error?.debug);
      return spec.funcResToNative(fn, r.out.result!.toXdr("base64"));
    };
    assert.equal(read("decimals"), 14);
    assert.equal(read("version"), 4);
    assert.equal(read("admin"), admin);
    const set = l.run(
      admin,
      call(oracle, "set_price", [
        ...spec.funcArgsToScVals("set_price", { asset: otherAsset("XLM"), price: 12_345n }),
      ]),
    );
    assert.ok(set.out.ok, set.out.error?.debug);
    const p = read("lastprice", { asset: otherAsset("XLM") }) as { price: bigint };
    assert.equal(p.price, 12_345n);
    assert.equal(read("lastprice", { asset: otherAsset("BTC") }), null);
  } finally {
    closeRealHost();
  }
});
