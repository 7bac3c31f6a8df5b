/**
 * Test fixture `clock_pool` (see `assembly/index.ts`).
 *
 * @module
 */
import { defineSpec } from "@vigil/soroban/spec_dsl";
import { POSITIONS_FN, REQUEST_STRUCT, SUBMIT_INPUTS } from "../taking_pool/spec.ts";

/** `clock_pool`: `submit` pays back the amount plus `ledger timestamp mod 997`. */
export const CLOCK_POOL_SPEC = defineSpec({
  functions: [POSITIONS_FN, {
    name: "submit",
    doc: "Takes requests[0].amount from spender; pays to that plus ledger timestamp mod 997.",
    inputs: SUBMIT_INPUTS,
  }],
  structs: REQUEST_STRUCT,
});
