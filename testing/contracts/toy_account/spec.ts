/**
 * Test fixture `toy_account`: a toy custom account (host auth tests). `__check_auth` accepts a
 * signature equal to the signature payload (`BadSignature` #1 otherwise) and only contract
 * calls named `transfer` (`NotAllowed` #2 otherwise).
 *
 * @module
 */
import { defineSpec, T } from "@vigil/soroban/spec_dsl";

/** The toy account's interface. */
export const TOY_ACCOUNT_SPEC = defineSpec({
  functions: [{
    name: "__check_auth",
    inputs: [
      ["signature_payload", T.bytesN(32)],
      ["signature", T.bytes],
      ["auth_contexts", T.vec(T.val)],
    ],
  }],
  errors: { BadSignature: [1, "bad signature"], NotAllowed: [2, "not allowed"] },
});
