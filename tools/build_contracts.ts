/**
 * `deno task build:contracts`: rebuilds every AssemblyScript contract and writes its Wasm —
 * Vigil's contracts into `contracts/wasm/`, the local node's world contracts into
 * `contracts/wasm/`, the test fixtures into `contracts/wasm/fixtures/`. Deterministic: a clean checkout
 * rebuilds the committed bytes (`contracts/build/build_test.ts`).
 *
 * @module
 */
import { buildContract, sha256Hex } from "@vigil/contracts/build";
import { CONTRACT_TABLES } from "@vigil/testing/contract_tables";

const names = new Set<string>();
for (const { kind, sources, wasmPath } of CONTRACT_TABLES) {
  for (const c of sources) {
    if (names.has(c.name)) throw new Error(`${kind} contract ${c.name}: the name is taken`);
    names.add(c.name);
    const wasm = await buildContract(c);
    const out = wasmPath(c.name);
    await Deno.mkdir(new URL("./", out), { recursive: true });
    await Deno.writeFile(out, wasm);
    console.log(`${kind} ${c.name}: ${wasm.length} bytes, sha256 ${await sha256Hex(wasm)}`);
  }
}
