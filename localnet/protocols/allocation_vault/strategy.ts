/**
 * A DeFindex strategy stand-in that simply holds the asset (like DeFindex's HODL strategy), with
 * the strategy interface of `defindex-strategy-core`: `asset()`, `deposit(amount, from) -> i128`,
 * `withdraw(amount, from, to) -> i128`, `balance(from) -> i128`, `harvest(from, data)`, and the
 * `StrategyError` codes (401, 410–415).
 *
 * Holders own shares of everything the strategy holds, so a plain token transfer to the strategy
 * is yield (tests use this to move allocations). `balance(from)` = `shares * held / total_shares`
 * (floor); a withdrawal burns `ceil(amount * total_shares / held)` shares.
 *
 * Difference from real strategies: `deposit` pulls the tokens with `transfer_from` (spender =
 * the strategy), so the depositor must `approve` it first — the allocation vault stand-in does
 * this in the same call. Real strategies pull with `transfer(from, …)` and rely on the vault's
 * `authorize_as_current_contract`, which the local host's contract SDK does not offer.
 *
 * Storage: instance `Vec[Symbol(Asset)]`, `Vec[Symbol(TotalShares)]`; persistent
 * `Vec[Symbol(Shares), Address]` → i128.
 *
 * @module
 */
import {
  addr,
  type ContractModule,
  defineSpec,
  type Env,
  fail,
  str,
  sym,
  T,
  variant,
} from "../../../contracts/sdk.ts";
import {
  big,
  errorCodes,
  type ErrorTable,
  getAddr,
  setAddr,
  setI128,
  tokenBalance,
  tokenTransfer,
} from "../dex/common.ts";
import { ceilDiv } from "../dex/math.ts";
import { shareLedger } from "../dex/shares.ts";

const K = {
  asset: variant("Asset"),
  totalShares: variant("TotalShares"),
};
const sharesKey = (a: string) => variant("Shares", addr(a));

/** `StrategyError` of `defindex-strategy-core`. */
const ERRORS = {
  NotInitialized: [401, "Strategy: not initialized"],
  NegativeNotAllowed: [410, "Strategy: amount must be positive"],
  InvalidArgument: [411, "Strategy: invalid argument"],
  InsufficientBalance: [412, "Strategy: insufficient balance"],
  UnderflowOverflow: [413, ""],
  ArithmeticError: [414, ""],
  DivisionByZero: [415, ""],
} satisfies ErrorTable;

/** `StrategyError` codes of `defindex-strategy-core`. */
export const STRATEGY_ERRORS = errorCodes(ERRORS);
const E = STRATEGY_ERRORS;

const spec = defineSpec({
  errorEnumName: "StrategyError",
  errors: ERRORS,
  structs: {
    DepositEvent: [["amount", T.i128], ["from", T.address]],
    WithdrawEvent: [["amount", T.i128], ["from", T.address]],
    HarvestEvent: [["amount", T.i128], ["from", T.address], ["price_per_share", T.i128]],
  },
  functions: [
    { name: "__constructor", inputs: [["asset", T.address], ["init_args", T.vec(T.val)]] },
    { name: "asset", output: T.address },
    { name: "deposit", inputs: [["amount", T.i128], ["from", T.address]], output: T.i128 },
    {
      name: "withdraw",
      inputs: [["amount", T.i128], ["from", T.address], ["to", T.address]],
      output: T.i128,
    },
    { name: "balance", inputs: [["from", T.address]], output: T.i128 },
    { name: "harvest", inputs: [["from", T.address], ["data", T.option(T.bytes)]] },
  ],
});

function asset(env: Env): string {
  return getAddr(env.storage.instance, K.asset) ?? fail(E.NotInitialized);
}

function held(env: Env): bigint {
  return tokenBalance(env, asset(env), env.currentContract);
}

/** Holders' shares (balances persistent, total in the instance). */
const shares = shareLedger({
  balanceKey: sharesKey,
  totalKey: K.totalShares,
  totalTier: "instance",
  insufficient: () => fail(E.InsufficientBalance),
});

function balanceOf(env: Env, who: string): bigint {
  const total = shares.total(env);
  if (total === 0n) return 0n;
  return (shares.balance(env, who) * held(env)) / total;
}

const TOPIC = str("HodlStrategy");

/** The HODL strategy stand-in. */
export const hodlStrategy: ContractModule = {
  name: "hodl_strategy",
  spec,
  functions: {
    __constructor(env, { asset }: { asset: string }) {
      setAddr(env.storage.instance, K.asset, asset);
      setI128(env.storage.instance, K.totalShares, 0n);
    },

    asset: (env) => asset(env),

    deposit(env, a: { amount: bigint; from: string }) {
      const amount = big(a.amount);
      if (amount <= 0n) fail(E.NegativeNotAllowed);
      env.requireAuth(a.from);
      const total = shares.total(env);
      const before = held(env);
      const minted = total === 0n || before === 0n ? amount : (amount * total) / before;
      env.call(asset(env), "transfer_from", [
        env.currentContract,
        a.from,
        env.currentContract,
        amount,
      ]);
      shares.mint(env, a.from, minted);
      env.emit(
        [TOPIC, sym("deposit")],
        env.toScVal({ amount, from: a.from }, T.udt("DepositEvent")),
      );
      return balanceOf(env, a.from);
    },

    withdraw(env, a: { amount: bigint; from: string; to: string }) {
      const amount = big(a.amount);
      if (amount <= 0n) fail(E.NegativeNotAllowed);
      env.requireAuth(a.from);
      const total = shares.total(env);
      const pool = held(env);
      if (total === 0n || pool === 0n) fail(E.InsufficientBalance);
      shares.burn(env, a.from, ceilDiv(amount * total, pool));
      tokenTransfer(env, asset(env), env.currentContract, a.to, amount);
      env.emit(
        [TOPIC, sym("withdraw")],
        env.toScVal({ amount, from: a.from }, T.udt("WithdrawEvent")),
      );
      return balanceOf(env, a.from);
    },

    balance: (env, { from }: { from: string }) => balanceOf(env, from),

    harvest(env, { from }: { from: string }) {
      // Nothing to harvest: yield arrives as plain transfers to the strategy.
      env.emit(
        [TOPIC, sym("harvest")],
        env.toScVal({ amount: 0n, from, price_per_share: 0n }, T.udt("HarvestEvent")),
      );
    },
  },
};
