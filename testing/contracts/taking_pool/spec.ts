/**
 * Test fixtures `taking_pool`, `clock_pool` and `priceless_pool`: fake lending pools for the
 * liquidator's tests (behaviour in each contract's `assembly/index.ts`).
 *
 * @module
 */
import { defineSpec, T, type TypeDef } from "@vigil/soroban/spec_dsl";

/** `get_positions(address) -> Positions` of the fake pools (the liquidator reads it). */
export const POSITIONS_FN = {
  name: "get_positions",
  doc: "Always empty positions (nothing is ever kept in this pool).",
  inputs: [["address", T.address]] as [string, TypeDef][],
  output: T.val,
};

/** Blend's `submit(from, spender, to, requests)`. */
export const SUBMIT_INPUTS: [string, TypeDef][] = [
  ["from", T.address],
  ["spender", T.address],
  ["to", T.address],
  ["requests", T.vec(T.udt("Request"))],
];

/** Blend's `Request` struct. */
export const REQUEST_STRUCT = {
  Request: [["address", T.address], ["amount", T.i128], ["request_type", T.u32]] as [
    string,
    TypeDef,
  ][],
};

/** `taking_pool`: `submit` takes `requests[0].amount` from `spender` and gives nothing back. */
export const TAKING_POOL_SPEC = defineSpec({
  functions: [POSITIONS_FN, {
    name: "submit",
    doc: "Takes requests[0].amount of requests[0].address from spender; pays nothing.",
    inputs: SUBMIT_INPUTS,
  }],
  structs: REQUEST_STRUCT,
});
