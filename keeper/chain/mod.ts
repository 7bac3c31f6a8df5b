/**
 * The keeper's chain layer: counted Soroban RPC access, batched ledger reads, events,
 * read-only simulation and the transaction pipeline, with typed errors.
 *
 * @module
 */
export * from "./auth_guard.ts";
export * from "./errors.ts";
export * from "./ledger.ts";
export * from "./rpc.ts";
export * from "./scval.ts";
export * from "./tx.ts";
export * from "./ttl.ts";
export * from "./spec.ts";
