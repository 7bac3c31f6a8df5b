// Test fixture: a flash executor scripted by `data` (a Vec of steps; encoder and step list in
// tests/fixtures/scripted_executor.ts). No storage.
import {
  currentContract, expectAddress, I128, mapGet, symbol, tokenTransfer, valEq, vecContains,
  vecGet, vecLen, VOID,
} from "../../../../contracts/sdk/index";
import * as env from "../../../../contracts/sdk/env";

function is(op: u64, name: string): bool {
  return valEq(op, symbol(name));
}

export function exec(keeper: u64, vault: u64, usdc: u64, amount: u64, data: u64, policy: u64): u64 {
  const n = vecLen(data);
  for (let i: u32 = 0; i < n; i++) {
    const step = vecGet(data, i);
    const op = vecGet(step, 0);
    if (is(op, "pay")) {
      tokenTransfer(usdc, keeper, vecGet(step, 1), I128.fromVal(vecGet(step, 2)));
    } else if (is(op, "pay_from")) {
      tokenTransfer(usdc, vecGet(step, 1), vecGet(step, 2), I128.fromVal(vecGet(step, 3)));
    } else if (is(op, "call")) {
      env.call(expectAddress(vecGet(step, 1)), vecGet(step, 2), vecGet(step, 3));
    } else if (is(op, "repay_all")) {
      tokenTransfer(usdc, keeper, vault, I128.fromVal(amount));
    } else if (is(op, "require_listed")) {
      // Traps unless the vault forwarded a policy listing this executor.
      if (!vecContains(mapGet(policy, symbol("executors")), currentContract())) unreachable();
    } else {
      unreachable(); // unknown step
    }
  }
  return VOID;
}
