import assert from "node:assert/strict";
import { Asset, contract, Keypair, xdr } from "@stellar/stellar-sdk";
import { defineSpec, T } from "../../contracts/sdk.ts";
import { counterContract } from "../fixtures/counter.ts";
import { registerModule, specFor, stubWasm } from "../../localnet/host/mod.ts";
import { normalizeSpec, specFromWasm, wasmCustomSections } from "../../localnet/host/wasm.ts";
import { instanceLedgerKey } from "../../localnet/host/keys.ts";
import { contractCodeKey } from "../../localnet/host/xdr_fast.ts";
import { MemLedger, PASSPHRASE } from "./fixture.ts";

// deno-lint-ignore no-explicit-any
type Any = any;

Deno.test("stub wasm: magic, version, one contractspecv0 section holding the spec XDR", () => {
  const wasm = stubWasm(counterContract.spec);
  assert.deepEqual([...wasm.subarray(0, 8)], [0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00]);
  const sections = wasmCustomSections(wasm);
  assert.deepEqual([...sections.keys()], ["contractspecv0"]);
  const joined = counterContract.spec.map((e) => e.toXdr("base64"));
  assert.deepEqual(specFromWasm(wasm).map((e) => e.toXdr("base64")), joined);
});

Deno.test("stub wasm: parsed by the SDK's contract.Spec.fromWasm and contract.Client.fromWasm", async () => {
  const wasm = stubWasm(counterContract.spec);
  const spec = contract.Spec.fromWasm(wasm);
  assert.deepEqual(spec.funcs().map((f) => String(f.name)).sort(), [
    "__constructor",
    "admin",
    "boom",
    "get",
    "increment",
    "transfer_via",
  ]);
  assert.deepEqual(spec.errorCases().map((c) => [c.value, String(c.doc)]), [[1, "Too big"], [
    2,
    "No admin",
  ]]);
  const client = await contract.Client.fromWasm(wasm, {
    contractId: "CDMLFMKMMD7MWZP3FKUBZPVHTUEDLSX4BYGYKH4GCESXYHS3IHQ4EIG4",
    networkPassphrase: PASSPHRASE,
    rpcUrl: "http://127.0.0.1:9",
    allowHttp: true,
  });
  assert.equal(typeof (client as Any).increment, "function");
  assert.equal(typeof (client as Any).get, "function");
});

Deno.test("stub wasm: struct fields are served sorted by name (what soroban-sdk emits)", () => {
  const spec = defineSpec({
    functions: [{ name: "f", output: T.udt("S") }],
    structs: { S: [["b", T.u32], ["a", T.u32]] },
  });
  const served = contract.Spec.fromWasm(stubWasm(spec));
  const s = served.entries.find((e) => e.type === "scSpecEntryUdtStructV0")!.toJson() as Any;
  assert.deepEqual(s.udt_struct_v0.fields.map((f: Any) => f.name), ["a", "b"]);
  assert.deepEqual(
    normalizeSpec(spec).map((e) => e.toXdr("base64")),
    served.entries.map((e) => e.toXdr("base64")),
  );
});

Deno.test("contract.Client.from reads a deployed module's instance and stub code", async () => {
  const l = new MemLedger();
  const admin = Keypair.random().publicKey();
  l.account(admin, 10_0000000n);
  const id = l.deploy(counterContract, { admin }, admin);
  // The SDK's two reads, served straight from the in-memory ledger.
  const server = {
    getContractInstance: (c: string) => {
      const e = l.get(instanceLedgerKey(c))!;
      return Promise.resolve((e.data as Any).contractData.val.instance);
    },
    getContractWasmByHash: (hash: Uint8Array) => {
      const e = l.get(contractCodeKey(hash))!;
      return Promise.resolve((e.data as Any).contractCode.code);
    },
  };
  const client = await contract.Client.from({
    contractId: id,
    networkPassphrase: PASSPHRASE,
    rpcUrl: "http://127.0.0.1:9",
    allowHttp: true,
    server: server as Any,
  });
  assert.equal(typeof (client as Any).transfer_via, "function");
  assert.equal(registerModule(counterContract).length, 64);
  assert.deepEqual(
    specFor(id, l).funcs().map((f) => String(f.name)).sort(),
    client.spec.funcs().map((f) => String(f.name)).sort(),
  );
});

Deno.test("specFor: a SAC gets the SAC interface; unknown contracts throw", () => {
  const l = new MemLedger();
  const issuer = Keypair.random().publicKey();
  const sac = l.deploySac(new Asset("USDC", issuer));
  const names = specFor(sac, l).funcs().map((f) => String(f.name));
  for (const n of ["transfer", "balance", "mint", "approve", "allowance", "burn", "decimals"]) {
    assert.ok(names.includes(n), n);
  }
  assert.throws(
    () => specFor("CA3D5KRYM6CB7OWQ6TWYRR3Z4T7GNZLKERYNZGGA5SOAOPIFY6YQGAXE", l),
    /not found/,
  );
  void xdr;
});
