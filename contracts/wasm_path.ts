/**
 * Where Vigil's committed Wasm lives — all a deployment needs from the build, without the builder
 * (AssemblyScript, binaryen) that `build/` loads.
 *
 * @module
 */

/** Directory of the committed Wasm files of Vigil's contracts. */
export const WASM_DIR: URL = new URL("./wasm/", import.meta.url);

/** Path of one of Vigil's contracts' committed Wasm. */
export const wasmPath = (name: string): URL => new URL(`${name}.wasm`, WASM_DIR);
