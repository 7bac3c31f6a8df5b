/**
 * Test fixture `short_router` (see `assembly/index.ts`).
 *
 * @module
 */
import { defineSpec, T } from "@vigil/soroban/spec_dsl";
import { PAIR_FOR_FN, SWAP_INPUTS } from "../skim_router/spec.ts";

/** `short_router`: takes the input, pays one unit, claims `amount_out_min`. */
export const SHORT_ROUTER_SPEC = defineSpec({
  functions: [PAIR_FOR_FN, {
    name: "swap_exact_tokens_for_tokens",
    doc: "Takes amount_in, pays 1 unit, claims amount_out_min.",
    inputs: SWAP_INPUTS,
    output: T.vec(T.i128),
  }],
});
