/**
 * Vigil's contracts: the spec tables of the vault, the keeper registry and the liquidator, their
 * error tables and where their committed Wasm lives. Deployment is `contracts/deploy/`; the
 * builder (`contracts/build/`) is a dev tool imported by nothing at run time.
 *
 * @module
 */
export * from "./vault/spec.ts";
export * from "./registry/spec.ts";
export * from "./registry/errors.ts";
export * from "./liquidator/spec.ts";
export * from "./wasm_path.ts";
