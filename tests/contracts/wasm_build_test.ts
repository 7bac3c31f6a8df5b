/**
 * What is deployed is what the source says: rebuilding each contract from its AssemblyScript
 * sources reproduces the committed `contracts/wasm/<name>.wasm` byte for byte, and each
 * test-fixture contract its committed `contracts/wasm/fixtures/<name>.wasm`.
 * (After changing a contract, a fixture or the SDK: `deno task build:contracts`, then commit the
 * Wasm.)
 */
import assert from "node:assert/strict";
import {
  buildContract,
  CONTRACTS,
  testContracts,
  testWasmPath,
  wasmPath,
} from "../../contracts/build.ts";

const TEST_CONTRACTS = await testContracts();
const tables: [string, string[], (n: string) => URL][] = [
  ["", Object.keys(CONTRACTS), wasmPath],
  ["test fixture ", Object.keys(TEST_CONTRACTS), testWasmPath],
];
for (const [kind, names, path] of tables) {
  for (const name of names) {
    Deno.test(`${kind}${name}.wasm is byte-identical to a rebuild from source`, async () => {
      const committed = await Deno.readFile(path(name));
      const rebuilt = await buildContract(name);
      assert.equal(rebuilt.length, committed.length, "size differs: run deno task build:contracts");
      assert.ok(rebuilt.every((b, i) => b === committed[i]), "bytes differ: run build:contracts");
    });
  }
}

Deno.test("no test fixture shares a name with a product contract", () => {
  for (const name of Object.keys(TEST_CONTRACTS)) assert.ok(!(name in CONTRACTS), name);
});
