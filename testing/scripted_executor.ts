/**
 * Scripts for the scripted flash executor (the Wasm fixture `scripted_executor`,
 * `testing/contracts/scripted_executor/`): honest, short-paying and hostile executors are
 * all this one contract with a different `data` script. The vault forwards `data` unchanged,
 * so a test (the keeper) decides what the executor does inside `vault.flash`.
 *
 * `exec(keeper, vault, usdc, amount, data: Val, policy: FlashPolicy)` runs `data`, a Vec of
 * steps, in order (`policy` is the vault's stored flash policy, which the vault forwards; a flash
 * through this executor only passes the vault once the admin listed it in `policy.executors`):
 * - `[Symbol("pay"), to: Address, amount: i128]` → `usdc.transfer(keeper → to, amount)`;
 * - `[Symbol("pay_from"), from: Address, to: Address, amount: i128]` →
 *   `usdc.transfer(from → to, amount)` (needs `from`'s auth);
 * - `[Symbol("call"), contract: Address, fn: Symbol, args: Vec<Val>]` → any contract call (re-enter
 *   the vault, call the registry's `record_execution`, …);
 * - `[Symbol("repay_all")]` → `usdc.transfer(keeper → vault, amount)`;
 * - `[Symbol("require_listed")]` → traps unless this executor is in the forwarded
 *   `policy.executors` (shows the vault forwards its stored policy).
 *
 * The fake venues the liquidator tests list (`taking_pool`, `clock_pool`, `priceless_pool`,
 * `skim_router`, `short_router`) are fixture contracts of their own, deployed with
 * `deployFixture` from `testing/contracts/mod.ts`.
 *
 * @module
 */
import { Address, type xdr } from "@stellar/stellar-sdk";
import { i128, sym, vec } from "@vigil/soroban/spec_dsl";

/** One step of a script (see the module doc). */
export type Step =
  | { op: "pay"; to: string; amount: bigint }
  | { op: "pay_from"; from: string; to: string; amount: bigint }
  | { op: "call"; contract: string; fn: string; args: xdr.ScVal[] }
  | { op: "repay_all" }
  | { op: "require_listed" };

const addrVal = (a: string) => new Address(a).toScVal();

/** Encodes a script as the `data` argument of `vault.flash`. */
export function script(...steps: Step[]): xdr.ScVal {
  return vec(...steps.map((s) => {
    switch (s.op) {
      case "pay":
        return vec(sym("pay"), addrVal(s.to), i128(s.amount));
      case "pay_from":
        return vec(sym("pay_from"), addrVal(s.from), addrVal(s.to), i128(s.amount));
      case "call":
        return vec(sym("call"), addrVal(s.contract), sym(s.fn), vec(...s.args));
      case "repay_all":
        return vec(sym("repay_all"));
      case "require_listed":
        return vec(sym("require_listed"));
    }
  }));
}
