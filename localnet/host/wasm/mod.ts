/**
 * Soroban Wasm execution for the local node.
 *
 * - {@link processModule} (`module.ts`): upload-time validation with the real host's structural
 *   rules, and metering instrumentation.
 * - `val.ts`, `objects.ts`: the 64-bit Val encoding, host objects with per-frame handles, the
 *   host's Val order, ScVal conversion.
 * - `bindings/`: every env.json host function of protocols ≤ 23, by module.
 * - {@link runWasm} (`vm.ts`): compiled-module cache, instance reuse, fuel, error mapping.
 *
 * @module
 */
export { FUEL_EXPORT, MAX_PAGES, processModule, WasmRefused } from "./module.ts";
export { compileContract, type CompiledContract, runWasm, validateWasm } from "./vm.ts";
export { HOST_FUNCTIONS, HOST_FUNCTIONS_BY_NAME } from "./bindings/mod.ts";
