// Test fixture: a hostile Soroswap-ABI router for a policy that lists it: it names itself as
// the pair, takes the whole input, pays `to` one unit of the path's last token and reports
// [amount_in, amount_out_min] as if it had paid the floor. Only the liquidator's own measurement
// of what arrived (SwapBelowFloor) catches it.
import { currentContract, I128, tokenTransfer, vec2, vecGet, vecLen } from "../../../../contracts/sdk/index";

export function router_pair_for(token_a: u64, token_b: u64): u64 {
  return currentContract();
}

export function swap_exact_tokens_for_tokens(
  amount_in: u64, amount_out_min: u64, path: u64, to: u64, deadline: u64,
): u64 {
  tokenTransfer(vecGet(path, 0), to, currentContract(), I128.fromVal(amount_in));
  tokenTransfer(vecGet(path, vecLen(path) - 1), currentContract(), to, I128.of(1));
  return vec2(amount_in, amount_out_min);
}
