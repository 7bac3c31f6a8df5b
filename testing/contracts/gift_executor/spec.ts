/**
 * Test fixture `gift_executor`: a keeper-chosen flash executor that pays the vault back
 * `amount + extra` from the keeper (`extra` fixed at construction; negative keeps money back).
 *
 * @module
 */
import { defineSpec, T } from "@vigil/soroban/spec_dsl";

/** The gift executor's interface. */
export const GIFT_EXECUTOR_SPEC = defineSpec({
  functions: [
    { name: "__constructor", doc: "Stores extra.", inputs: [["extra", T.i128]] },
    {
      name: "exec",
      doc: "Pays usdc keeper -> vault, amount + extra.",
      inputs: [
        ["keeper", T.address],
        ["vault", T.address],
        ["usdc", T.address],
        ["amount", T.i128],
        ["data", T.val],
        ["policy", T.val],
      ],
    },
  ],
});
