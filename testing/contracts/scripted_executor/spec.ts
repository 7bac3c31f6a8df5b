/**
 * Test fixture `scripted_executor`: a flash executor whose behaviour is the `data` script the
 * keeper passes through `vault.flash` (see `testing/scripted_executor.ts` for the steps
 * and the script encoder).
 *
 * @module
 */
import { defineSpec, T } from "@vigil/soroban/spec_dsl";

/** The scripted executor's interface (no storage). */
export const SCRIPTED_EXECUTOR_SPEC = defineSpec({
  functions: [{
    name: "exec",
    doc: "Runs the script in data, step by step (test fixture).",
    inputs: [
      ["keeper", T.address],
      ["vault", T.address],
      ["usdc", T.address],
      ["amount", T.i128],
      ["data", T.val],
      ["policy", T.udt("FlashPolicy")],
    ],
  }],
  structs: {
    FlashPolicy: [
      ["executors", T.vec(T.address)],
      ["max_slippage_bps", T.u32],
      ["pools", T.vec(T.address)],
      ["routers", T.vec(T.address)],
      ["tokens", T.vec(T.address)],
    ],
  },
});
