/** localnet/spec: see `contract_spec.ts`. @module */
export * from "./contract_spec.ts";
