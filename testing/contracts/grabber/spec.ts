/**
 * Test fixture `grabber` (auth_guard_test): `take(from, token, to, amount)` makes `from` pay `to`
 * with `token` under `from`'s authorization.
 *
 * @module
 */
import { defineSpec, T } from "@vigil/soroban/spec_dsl";

/** The grabber's interface. */
export const GRABBER_SPEC = defineSpec({
  functions: [{
    name: "take",
    doc: "Test fixture: token.transfer(from -> to, amount) under from's auth (auth_guard_test).",
    inputs: [["from", T.address], ["token", T.address], ["to", T.address], ["amount", T.i128]],
  }],
});
