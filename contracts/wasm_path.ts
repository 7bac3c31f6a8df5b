/**
 * Where the committed Wasm lives — all a deployment needs from the build, without the builder
 * (AssemblyScript, binaryen) that `build.ts` loads.
 *
 * @module
 */

/** Directory of the committed Wasm files. */
export const WASM_DIR = new URL("./wasm/", import.meta.url);

/** Directory of the committed test-fixture Wasm files. */
export const TEST_WASM_DIR = new URL("./wasm/fixtures/", import.meta.url);

/** Path of a product contract's committed Wasm. */
export const wasmPath = (name: string): URL => new URL(`${name}.wasm`, WASM_DIR);

/** Path of a test fixture contract's committed Wasm. */
export const testWasmPath = (name: string): URL => new URL(`${name}.wasm`, TEST_WASM_DIR);
