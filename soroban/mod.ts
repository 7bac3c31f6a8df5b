/**
 * The one door to Soroban RPC for the keeper, the browser and deploy: the counted RPC transport,
 * ledger reads, read-only simulation, the write path (simulate → sign → send → confirm) with typed
 * errors, contract specs, ScVal helpers and the spec DSL.
 *
 * @module
 */
export * from "./rpc.ts";
export * from "./ledger.ts";
export * from "./tx.ts";
export * from "./send.ts";
export * from "./errors.ts";
export * from "./scval.ts";
export * from "./spec_cache.ts";
export * from "./spec_dsl.ts";
export * from "./auto_restore.ts";
export * from "./ttl.ts";
export * from "./auth_guard.ts";
