/**
 * What is deployed is what the source says: rebuilding each contract from its AssemblyScript
 * sources reproduces its committed Wasm byte for byte: Vigil's `contracts/wasm/<name>.wasm`, the
 * local node's world contracts' `contracts/wasm/<name>.wasm` and the fixtures' `contracts/wasm/fixtures/`.
 * (After changing a contract, a fixture or the SDK: `deno task build:contracts`, then commit the
 * Wasm.)
 */
import assert from "node:assert/strict";
import { CONTRACT_TABLES } from "@vigil/testing/contract_tables";
import { buildContract } from "./builder.ts";

for (const { kind, sources, wasmPath } of CONTRACT_TABLES) {
  for (const c of sources) {
    Deno.test(`${kind} ${c.name}.wasm is byte-identical to a rebuild from source`, async () => {
      const committed = await Deno.readFile(wasmPath(c.name));
      const rebuilt = await buildContract(c);
      assert.equal(rebuilt.length, committed.length, "size differs: run deno task build:contracts");
      assert.ok(rebuilt.every((b, i) => b === committed[i]), "bytes differ: run build:contracts");
    });
  }
}

Deno.test("no two contracts share a name (their Wasm would overwrite each other)", () => {
  const names = CONTRACT_TABLES.flatMap((t) => t.sources.map((c) => c.name));
  assert.equal(new Set(names).size, names.length, names.join(","));
  assert.ok(names.length >= 20, `${names.length} contracts`);
});
