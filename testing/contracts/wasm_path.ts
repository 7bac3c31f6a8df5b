/**
 * Where the test-fixture contracts' committed Wasm lives (`contracts/wasm/fixtures/<name>.wasm`).
 *
 * @module
 */

/** Directory of the committed test-fixture Wasm files. */
export const TEST_WASM_DIR: URL = new URL("../../contracts/wasm/fixtures/", import.meta.url);

/** Path of a test fixture contract's committed Wasm. */
export const testWasmPath = (name: string): URL => new URL(`${name}.wasm`, TEST_WASM_DIR);
