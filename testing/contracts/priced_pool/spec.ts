/**
 * Test fixture `priced_pool` (see `assembly/index.ts`).
 *
 * @module
 */
import { defineSpec, T } from "@vigil/soroban/spec_dsl";
import { POSITIONS_FN, REQUEST_STRUCT, SUBMIT_INPUTS } from "../taking_pool/spec.ts";

/** `priced_pool`: a pool that is its own oracle, moving exactly the requested amounts. */
export const PRICED_POOL_SPEC = defineSpec({
  functions: [
    POSITIONS_FN,
    {
      name: "submit",
      doc:
        "Repay (5): takes amount from spender; WithdrawCollateral (3): pays amount to `to`; fill (6): nothing.",
      inputs: SUBMIT_INPUTS,
    },
    { name: "get_config", doc: "{ oracle: this pool }.", output: T.val },
    {
      name: "set_price",
      doc: "Sets lastprice(Stellar(token)) (no auth: a test fixture).",
      inputs: [["token", T.address], ["price", T.i128]],
    },
    {
      name: "lastprice",
      doc: "{ price, timestamp: 0 } as set, else None.",
      inputs: [["asset", T.val]],
      output: T.val,
    },
  ],
  structs: REQUEST_STRUCT,
});
