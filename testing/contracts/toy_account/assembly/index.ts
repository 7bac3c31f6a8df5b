// Test fixture: a toy custom account (interface: ../spec.ts).
import { fail, mapGet, symbol, valEq, vecGet, vecLen, VOID } from "../../../../contracts/sdk/index";

const BadSignature: u32 = 1;
const NotAllowed: u32 = 2;

export function __check_auth(signature_payload: u64, signature: u64, auth_contexts: u64): u64 {
  // Bytes compare by value: the signature must be the 32-byte payload itself.
  if (!valEq(signature, signature_payload)) fail(BadSignature);
  const n = vecLen(auth_contexts);
  for (let i: u32 = 0; i < n; i++) {
    // Context::Contract(ContractContext { args, contract, fn_name }) = Vec[Symbol, Map].
    const c = vecGet(auth_contexts, i);
    if (!valEq(vecGet(c, 0), symbol("Contract"))) fail(NotAllowed);
    if (!valEq(mapGet(vecGet(c, 1), symbol("fn_name")), symbol("transfer"))) fail(NotAllowed);
  }
  return VOID;
}
