/**
 * The test-fixture contracts as Wasm (`contracts/wasm/fixtures/<name>.wasm`, built by
 * `deno task build:contracts` from `testing/contracts/<name>/`): read and deploy them.
 *
 * @module
 */
import type { xdr } from "@stellar/stellar-sdk";
import { testWasmPath } from "./wasm_path.ts";
import type { Localnet } from "@vigil/localnet/node";
import type { TEST_CONTRACT_SPECS } from "./specs.ts";

/** A test-fixture contract's name. */
export type FixtureName = keyof typeof TEST_CONTRACT_SPECS;

const cache = new Map<string, Uint8Array>();

/** The committed Wasm of a test-fixture contract (read once per process). */
export async function fixtureWasm(name: FixtureName): Promise<Uint8Array> {
  let w = cache.get(name);
  if (!w) {
    w = await Deno.readFile(testWasmPath(name));
    cache.set(name, w);
  }
  return w;
}

/** The committed Wasm of a test-fixture contract, read synchronously (in-process host tests). */
export function fixtureWasmSync(name: FixtureName): Uint8Array {
  let w = cache.get(name);
  if (!w) {
    w = Deno.readFileSync(testWasmPath(name));
    cache.set(name, w);
  }
  return w;
}

/**
 * Uploads a fixture's Wasm and creates a contract from it on `node` (directly, no transaction),
 * running its `__constructor` with `args` (native values encoded with the Wasm's own spec, or
 * ScVals). Returns the contract id.
 */
export async function deployFixture(
  node: Pick<Localnet, "deployWasm">,
  name: FixtureName,
  args?: xdr.ScVal[] | Record<string, unknown> | unknown[],
): Promise<string> {
  return await node.deployWasm(await fixtureWasm(name), args);
}
