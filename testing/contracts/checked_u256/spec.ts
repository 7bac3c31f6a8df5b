/**
 * Test fixture `checked_u256`, the one contract built for protocol 27: `add(a, b) -> Option<U256>`
 * is the host's `u256_checked_add` (protocol 26+), `None` on overflow. A host at protocol 23
 * refuses its upload; the real host at protocol 27 runs it.
 *
 * @module
 */
import { defineSpec, T } from "@vigil/soroban/spec_dsl";

/** The protocol `checked_u256` declares in `contractenvmetav0`. */
export const CHECKED_U256_PROTOCOL = 27;

/** The fixture's interface. */
export const CHECKED_U256_SPEC = defineSpec({
  functions: [
    { name: "add", inputs: [["a", T.u256], ["b", T.u256]], output: T.option(T.u256) },
  ],
});
