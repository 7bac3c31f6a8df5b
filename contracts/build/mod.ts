/**
 * The contract builder (AssemblyScript → Soroban Wasm): a dev tool, imported by nothing at run
 * time. `deno task build:contracts` (`tools/build_contracts.ts`) runs it over every table.
 *
 * @module
 */
export * from "./builder.ts";
