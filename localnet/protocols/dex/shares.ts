/**
 * Share books of the stand-ins that issue shares (the Soroswap pair's and the Phoenix pool's LP
 * shares, the DeFindex vault's and the HODL strategy's shares): a balance per holder and their
 * total. Each contract keeps its real counterpart's storage layout, so the keys and the total's
 * storage tier are parameters; the bookkeeping is the same everywhere.
 *
 * @module
 */
import type { xdr } from "@stellar/stellar-sdk";
import { addr, type Env, type FnSpec, sym, T } from "../../../contracts/sdk.ts";
import { big, getI128, setI128 } from "./common.ts";

/** Where a contract keeps its shares, and how it refuses an overdraft. */
export interface ShareLayout {
  /** Persistent key of a holder's balance. */
  balanceKey(holder: string): xdr.ScVal;
  /** Key of the total. */
  totalKey: xdr.ScVal;
  /** Storage tier of the total. */
  totalTier: "instance" | "persistent";
  /** Fails the call when a holder has fewer shares than it gives up. */
  insufficient(): never;
}

/** Balances and total of one contract's shares. */
export interface ShareLedger {
  /** A holder's shares (0 when none). */
  balance(env: Env, holder: string): bigint;
  /** All shares issued. */
  total(env: Env): bigint;
  /** Issues `amount` shares to `to`. */
  mint(env: Env, to: string, amount: bigint): void;
  /** Cancels `amount` of `from`'s shares (the layout's failure when it has fewer). */
  burn(env: Env, from: string, amount: bigint): void;
  /** Moves shares between holders; the total is not touched. */
  move(env: Env, from: string, to: string, amount: bigint): void;
}

/** The share ledger of a layout. */
export function shareLedger(layout: ShareLayout): ShareLedger {
  const balance = (env: Env, holder: string) =>
    getI128(env.storage.persistent, layout.balanceKey(holder));
  const setBalance = (env: Env, holder: string, v: bigint) =>
    setI128(env.storage.persistent, layout.balanceKey(holder), v);
  const total = (env: Env) => getI128(env.storage[layout.totalTier], layout.totalKey);
  const setTotal = (env: Env, v: bigint) =>
    setI128(env.storage[layout.totalTier], layout.totalKey, v);
  const debit = (env: Env, from: string, amount: bigint) => {
    const have = balance(env, from);
    if (have < amount) layout.insufficient();
    setBalance(env, from, have - amount);
  };
  return {
    balance,
    total,
    mint(env, to, amount) {
      setBalance(env, to, balance(env, to) + amount);
      setTotal(env, total(env) + amount);
    },
    burn(env, from, amount) {
      debit(env, from, amount);
      setTotal(env, total(env) - amount);
    },
    move(env, from, to, amount) {
      debit(env, from, amount);
      setBalance(env, to, balance(env, to) + amount);
    },
  };
}

/**
 * SEP-41 `transfer` of shares: `from` must authorize, a negative amount traps, `book` moves the
 * shares, then the standard `("transfer", from, to)` event with the amount.
 */
export function transferShares(
  env: Env,
  args: { from: string; to: string; amount: bigint },
  book: (from: string, to: string, amount: bigint) => void,
): void {
  const amount = big(args.amount);
  env.requireAuth(args.from);
  if (amount < 0n) throw new Error("negative amount is not allowed");
  book(args.from, args.to, amount);
  env.emit([sym("transfer"), addr(args.from), addr(args.to)], env.toScVal(amount, T.i128));
}

/** Spec of the SEP-41 subset a share token answers: `balance`, `transfer`, metadata. */
export const SHARE_TOKEN_FUNCTIONS: FnSpec[] = [
  { name: "balance", inputs: [["id", T.address]], output: T.i128 },
  {
    name: "transfer",
    inputs: [["from", T.address], ["to", T.address], ["amount", T.i128]],
  },
  { name: "decimals", output: T.u32 },
  { name: "name", output: T.string },
  { name: "symbol", output: T.string },
];
