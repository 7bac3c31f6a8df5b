/** keeper/adapters/allocation: see `allocation_adapter.ts`. @module */
export * from "./allocation_adapter.ts";
