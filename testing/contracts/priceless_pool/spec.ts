/**
 * Test fixture `priceless_pool` (see `assembly/index.ts`).
 *
 * @module
 */
import { defineSpec, T } from "@vigil/soroban/spec_dsl";
import { POSITIONS_FN, REQUEST_STRUCT, SUBMIT_INPUTS } from "../taking_pool/spec.ts";

/** `priceless_pool`: a pool that is its own oracle, with no prices. */
export const PRICELESS_POOL_SPEC = defineSpec({
  functions: [
    POSITIONS_FN,
    {
      name: "submit",
      doc: "Pays `to` every withdraw-collateral request (type 3) from the pool's own balance.",
      inputs: SUBMIT_INPUTS,
    },
    { name: "get_config", doc: "{ oracle: this pool }.", output: T.val },
    { name: "lastprice", doc: "Always None.", inputs: [["asset", T.val]], output: T.val },
  ],
  structs: REQUEST_STRUCT,
});
