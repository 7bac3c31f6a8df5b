/**
 * The liquidator executor's Soroban interface (functions, structs, errors).
 *
 * The liquidator is Vigil's flash executor: the vault lends USDC to the keeper account and calls
 * `exec`, which fills a Blend auction, swaps the lot to USDC and pays the vault back, all under
 * the keeper's own authorization. It has no storage and holds no funds.
 *
 * Struct fields are listed in byte order of their names (ScMap keys sorted, as
 * `#[contracttype]` structs appear on the wire).
 *
 * @module
 */
import { defineSpec, type SpecDef, T } from "@vigil/soroban/spec_dsl";
import { VIGIL_SPEC_ERRORS } from "../registry/errors.ts";

/** Swap venue kinds of a `SwapLeg` (its `kind`). */
export const SwapKind = {
  /**
   * Soroswap router `swap_exact_tokens_for_tokens(amount_in, min_out, path, liquidator, now + 1)`,
   * run by the liquidator on what the keeper received.
   */
  Soroswap: 0,
  /**
   * Refused inside a flash (`InvalidPlan`). Once the Phoenix multihop, whose pool pulls the input
   * with a nested `require_auth` the liquidator could only pre-authorize knowing the pool; the
   * local market has no Phoenix venue since issue 21 (both venues speak the Soroswap ABI). The
   * value is kept so the liquidator's ABI does not change.
   */
  Phoenix: 1,
} as const;

const A = T.address;

/**
 * The liquidator's interface as written (types and docs): `LIQUIDATOR_SPEC` is what the Wasm
 * embeds, and `tools/gen_clients.ts` generates `contracts/clients/liquidator.ts` from this.
 */
export const LIQUIDATOR_SPEC_DEF: SpecDef = {
  functions: [
    {
      name: "exec",
      doc:
        "Keeper auth. Flash executor: checks the plan against the vault's policy (pool and routers listed, else NotAllowed; only fill/repay USDC/withdraw-collateral requests and one Soroswap leg to USDC per non-USDC lot asset, else InvalidPlan), submits the Blend requests for the keeper (its positions must not change: PositionsChanged), moves every lot asset the keeper gained into itself and swaps ALL of it to USDC at no less than the pool oracle's value minus max_slippage_bps (PriceUnavailable without a price), then pays the vault amount + the keeper's USDC gain (transfer_from under an allowance set and cleared here; negative: LiquidationShortfall) plus all swap proceeds. Returns the amount repaid.",
      inputs: [
        ["keeper", A],
        ["vault", A],
        ["usdc", A],
        ["amount", T.i128],
        ["data", T.udt("LiquidationPlan")],
        ["policy", T.udt("FlashPolicy")],
      ],
      output: T.i128,
    },
  ],
  structs: {
    FlashPolicy: [
      ["executors", T.vec(A)],
      ["max_slippage_bps", T.u32],
      ["pools", T.vec(A)],
      ["routers", T.vec(A)],
      ["tokens", T.vec(A)],
    ],
    LiquidationPlan: [
      [
        "allowance_until",
        T.u32,
        "Ledger until which the repayment allowance may live (≥ the ledger the flash lands in); the allowance is set and cleared inside `exec`, so it never outlives the invocation.",
      ],
      ["pool", A, "Blend pool."],
      [
        "requests",
        T.vec(T.udt("Request")),
        "`submit(keeper, keeper, keeper, requests)`: fill + repay + withdraw-collateral.",
      ],
      ["swaps", T.vec(T.udt("SwapLeg"))],
    ],
    Request: [["address", A], ["amount", T.i128], ["request_type", T.u32]],
    SwapLeg: [
      [
        "amount_in",
        T.i128,
        "The planned input (units of `path[0]`): scales `min_out` to the amount actually swapped.",
      ],
      ["kind", T.u32, "`SwapKind` (contracts/liquidator/spec.ts)."],
      [
        "min_out",
        T.i128,
        "The keeper's floor for `amount_in`; the liquidator also applies the oracle floor.",
      ],
      ["path", T.vec(A), "Token path, at least 2 entries; the first a lot asset, the last USDC."],
      ["router", A],
    ],
  },
  errors: VIGIL_SPEC_ERRORS,
  docs: {
    FlashPolicy: "The vault's flash policy, as the vault forwards it to `exec`.",
    LiquidationPlan: "The `data` the vault forwards to `exec`.",
    Request: "Blend v2 `Request { address, amount, request_type }`.",
    SwapLeg:
      "One swap of seized collateral to USDC. The liquidator swaps ALL the keeper received of `path[0]` (not `amount_in`), so `amount_in` and `min_out` only set the keeper's price floor.",
  },
};

/** The liquidator spec (the Wasm's `contractspecv0`). */
export const LIQUIDATOR_SPEC = defineSpec(LIQUIDATOR_SPEC_DEF);
