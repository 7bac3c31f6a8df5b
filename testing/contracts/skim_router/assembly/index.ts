// Test fixture: a fake Soroswap-ABI router naming itself as the pair (so the liquidator's
// pre-authorized path[0].transfer(liquidator -> pair) would hand it the lot); the swap takes
// the input from `to` and pays nothing, ignoring amount_out_min. Only the policy's router list
// keeps it out.
import { currentContract, I128, tokenTransfer, vec2, vecGet } from "../../../../contracts/sdk/index";

export function router_pair_for(token_a: u64, token_b: u64): u64 {
  return currentContract();
}

export function swap_exact_tokens_for_tokens(
  amount_in: u64, amount_out_min: u64, path: u64, to: u64, deadline: u64,
): u64 {
  tokenTransfer(vecGet(path, 0), to, currentContract(), I128.fromVal(amount_in));
  return vec2(amount_in, I128.zero().toVal());
}
