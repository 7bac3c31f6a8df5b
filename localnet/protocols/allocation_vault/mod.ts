/**
 * The allocation vault on the local node: the deploy helper of the Wasm contracts
 * (`localnet/protocols/allocation_vault/contracts/allocation_vault/`, `localnet/protocols/allocation_vault/contracts/hodl_strategy/`) and the client-side drift maths a
 * keeper adapter uses. See `README.md` in this directory.
 *
 * @module
 */
export { ROLES, VAULT_ERRORS } from "./contracts/allocation_vault/spec.ts";
export { STRATEGY_ERRORS } from "./contracts/hodl_strategy/spec.ts";
export * from "./drift.ts";
export { deployAllocationVault } from "./deploy.ts";
export type {
  AllocationDeployTarget,
  AllocationVaultDeployment,
  AllocationVaultDeployOptions,
} from "./deploy.ts";
