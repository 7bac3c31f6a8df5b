// Test fixture: pays out of this contract's own token balance (the token's require_auth(self)
// is covered by the invoker rule).
import { currentContract, I128, tokenTransfer, VOID } from "../../../../contracts/sdk/index";

export function pay(token: u64, to: u64, amount: u64): u64 {
  tokenTransfer(token, currentContract(), to, I128.fromVal(amount));
  return VOID;
}
