/**
 * Test fixture `payer`: pays out of its own token balance, so tests can move SAC funds from a
 * C address to a G address (its own auth comes from the invoker rule).
 *
 * @module
 */
import { defineSpec, T } from "@vigil/soroban/spec_dsl";

/** The payer's interface. */
export const PAYER_SPEC = defineSpec({
  functions: [{
    name: "pay",
    doc: "Transfers amount of token from this contract to `to` (test fixture).",
    inputs: [["token", T.address], ["to", T.address], ["amount", T.i128]],
  }],
});
