/**
 * What is deployed is what the source says: rebuilding each contract from its AssemblyScript
 * sources reproduces the committed `contracts/wasm/<name>.wasm` byte for byte.
 * (After changing a contract or the SDK: `deno task build:contracts`, then commit the Wasm.)
 */
import assert from "node:assert/strict";
import { buildContract, CONTRACTS, wasmPath } from "../../contracts/build.ts";

for (const name of Object.keys(CONTRACTS)) {
  Deno.test(`${name}.wasm is byte-identical to a rebuild from source`, async () => {
    const committed = await Deno.readFile(wasmPath(name));
    const rebuilt = await buildContract(name);
    assert.equal(rebuilt.length, committed.length, "size differs: run deno task build:contracts");
    assert.ok(rebuilt.every((b, i) => b === committed[i]), "bytes differ: run build:contracts");
  });
}
