// Test fixture (auth_guard_test): makes `from` pay `to` under `from`'s authorization.
import { I128, requireAuth, tokenTransfer, VOID } from "../../../../contracts/sdk/index";

export function take(from: u64, token: u64, to: u64, amount: u64): u64 {
  requireAuth(from);
  tokenTransfer(token, from, to, I128.fromVal(amount));
  return VOID;
}
