/**
 * The allocation vault stand-in (DeFindex-compatible vault + HODL strategies), the drift maths a
 * keeper adapter uses, and the deploy helper. See `localnet/protocols/dex/README.md` (allocation vault).
 *
 * @module
 */
export { allocationVault, ROLES, VAULT_ERRORS } from "./vault.ts";
export { hodlStrategy, STRATEGY_ERRORS } from "./strategy.ts";
export * from "./drift.ts";
export { deployAllocationVault } from "./deploy.ts";
export type { AllocationVaultDeployment, AllocationVaultDeployOptions } from "./deploy.ts";
