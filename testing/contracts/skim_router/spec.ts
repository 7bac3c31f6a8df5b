/**
 * Test fixtures `skim_router` and `short_router`: fake Soroswap-ABI routers for the liquidator's
 * policy and floor tests (behaviour in each contract's `assembly/index.ts`).
 *
 * @module
 */
import { defineSpec, T, type TypeDef } from "@vigil/soroban/spec_dsl";

/** Soroswap's `swap_exact_tokens_for_tokens` inputs. */
export const SWAP_INPUTS: [string, TypeDef][] = [
  ["amount_in", T.i128],
  ["amount_out_min", T.i128],
  ["path", T.vec(T.address)],
  ["to", T.address],
  ["deadline", T.u64],
];

/** `router_pair_for(token_a, token_b) -> Address`. */
export const PAIR_FOR_FN = {
  name: "router_pair_for",
  doc: "Names the router itself as the pair.",
  inputs: [["token_a", T.address], ["token_b", T.address]] as [string, TypeDef][],
  output: T.address,
};

/** `skim_router`: takes the input and pays nothing. */
export const SKIM_ROUTER_SPEC = defineSpec({
  functions: [PAIR_FOR_FN, {
    name: "swap_exact_tokens_for_tokens",
    doc: "Takes amount_in from `to`, pays nothing, reports [amount_in, 0].",
    inputs: SWAP_INPUTS,
    output: T.vec(T.i128),
  }],
});
