// Test fixture: a flash executor that pays the vault back amount + extra from the keeper
// (extra is fixed at construction; a negative one keeps money back).
import { addI128, get, I128, INSTANCE, put, symbol, tokenTransfer, VOID } from "../../../../contracts/sdk/index";

export function __constructor(extra: u64): u64 {
  put(symbol("Extra"), I128.fromVal(extra).toVal(), INSTANCE);
  return VOID;
}

export function exec(keeper: u64, vault: u64, usdc: u64, amount: u64, data: u64, policy: u64): u64 {
  const extra = I128.fromVal(get(symbol("Extra"), INSTANCE));
  tokenTransfer(usdc, keeper, vault, addI128(I128.fromVal(amount), extra, 1));
  return VOID;
}
