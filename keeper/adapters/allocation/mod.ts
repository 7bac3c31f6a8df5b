/**
 * The allocation adapter: rebalances a DeFindex-style allocation vault toward its target weights.
 *
 * @module
 */
export * from "./allocation_adapter.ts";
