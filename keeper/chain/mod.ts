/**
 * The keeper's chain layer: counted Soroban RPC access, batched ledger reads, events,
 * read-only simulation and the transaction pipeline, with typed errors.
 *
 * @module
 */
export * from "@vigil/soroban/auth_guard";
export * from "@vigil/soroban/errors";
export * from "@vigil/soroban/ledger";
export * from "@vigil/soroban/rpc";
export * from "@vigil/soroban/scval";
export * from "@vigil/soroban/tx";
export * from "@vigil/soroban/ttl";
export * from "@vigil/soroban/spec_cache";
