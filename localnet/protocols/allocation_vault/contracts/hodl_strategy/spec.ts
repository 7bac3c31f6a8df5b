/**
 * The HODL strategy's Soroban interface: the strategy interface of DeFindex's
 * `defindex-strategy-core` (`asset`, `deposit`, `withdraw`, `balance`, `harvest`) and its
 * `StrategyError` codes. Source: `localnet/protocols/allocation_vault/contracts/hodl_strategy/assembly/index.ts`.
 *
 * Struct fields are listed in byte order of their names (how `#[contracttype]` structs appear on
 * the wire).
 *
 * @module
 */
import { defineSpec, T } from "@vigil/soroban/spec_dsl";

/** `StrategyError` of `defindex-strategy-core` (name → [code, message]). */
const ERRORS: Record<string, [number, string]> = {
  NotInitialized: [401, "Strategy: not initialized"],
  NegativeNotAllowed: [410, "Strategy: amount must be positive"],
  InvalidArgument: [411, "Strategy: invalid argument"],
  InsufficientBalance: [412, "Strategy: insufficient balance"],
  UnderflowOverflow: [413, ""],
  ArithmeticError: [414, ""],
  DivisionByZero: [415, ""],
};

/** `StrategyError` codes. */
export const STRATEGY_ERRORS = Object.fromEntries(
  Object.entries(ERRORS).map(([k, [code]]) => [k, code]),
) as Record<keyof typeof ERRORS, number>;

/** The HODL strategy's spec (every output is `Result<_, StrategyError>`). */
export const HODL_STRATEGY_SPEC = defineSpec({
  errorEnumName: "StrategyError",
  errors: ERRORS,
  structs: {
    DepositEvent: [["amount", T.i128], ["from", T.address]],
    WithdrawEvent: [["amount", T.i128], ["from", T.address]],
    HarvestEvent: [["amount", T.i128], ["from", T.address], ["price_per_share", T.i128]],
  },
  functions: [
    {
      name: "__constructor",
      doc: "Stores the asset the strategy holds (init_args are ignored).",
      inputs: [["asset", T.address], ["init_args", T.vec(T.val)]],
    },
    { name: "asset", doc: "The asset held.", output: T.address },
    {
      name: "deposit",
      doc:
        "from authorizes; pulls amount (> 0) from `from` with the asset's transfer and credits shares of the holdings (floor); returns from's balance.",
      inputs: [["amount", T.i128], ["from", T.address]],
      output: T.i128,
    },
    {
      name: "withdraw",
      doc:
        "from authorizes; burns ceil(amount x shares / held) of from's shares (412 when short) and sends amount to `to`; returns from's balance.",
      inputs: [["amount", T.i128], ["from", T.address], ["to", T.address]],
      output: T.i128,
    },
    {
      name: "balance",
      doc: "from's part of the holdings: floor(shares x held / total shares).",
      inputs: [["from", T.address]],
      output: T.i128,
    },
    {
      name: "harvest",
      doc: "Nothing to harvest (yield arrives as plain transfers); emits a zero harvest event.",
      inputs: [["from", T.address], ["data", T.option(T.bytes)]],
    },
  ],
});
