/**
 * The in-process API's spec codec: native values ↔ ScVal by a contract's own `contractspecv0`.
 *
 * @module
 */
export * from "./contract_spec.ts";
