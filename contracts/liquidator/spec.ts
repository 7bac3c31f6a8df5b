/**
 * The liquidator executor's Soroban interface (functions, structs, errors).
 *
 * The liquidator is Vigil's flash executor: the vault lends USDC to the keeper account and calls
 * `exec`, which buys a non-USDC bid asset with USDC when the debt is not USDC, fills a Blend
 * auction, swaps the lot (and what is left of a bought asset) to USDC and pays the vault back, all
 * under the keeper's own authorization. It has no storage and holds no funds.
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
        "Keeper auth. Checks the plan against the vault's policy (pool, routers, path hops listed, else NotAllowed; only fill/repay/withdraw-collateral requests, one buy leg USDC -> asset per non-USDC repaid asset, one Soroswap leg to USDC per non-USDC lot or bought asset, else InvalidPlan). Runs each buy first: refused above min(max_in, oracle value of amount_out + max_slippage_bps) (SwapAboveCeiling), bought for at least amount_out (SwapBelowFloor). Submits the requests (positions unchanged, else PositionsChanged); with min_ratio_bps > 0 it submits fill+repays, then withdrawals, and the oracle value of what each moved (paid = bid, received = lot) must give lot * 10000 >= bid * min_ratio_bps (BelowMinProfit). Swaps ALL of each lot or bought asset gained to USDC at no less than the oracle value minus max_slippage_bps (PriceUnavailable without a price), pays the vault amount + the keeper's USDC gain (negative: LiquidationShortfall) plus all swap proceeds. Returns the amount repaid.",
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
    BuyLeg: [
      [
        "amount_out",
        T.i128,
        "Exact amount of the bid asset (`path`'s last token) to buy; positive.",
      ],
      [
        "max_in",
        T.i128,
        "The keeper's ceiling on the USDC the buy may cost; the liquidator also applies the oracle ceiling.",
      ],
      [
        "path",
        T.vec(A),
        "Token path, at least 2 entries: USDC first, the repaid asset last, only policy `tokens` between.",
      ],
      ["router", A],
    ],
    LiquidationPlan: [
      [
        "allowance_until",
        T.u32,
        "Ledger until which the repayment allowance may live (≥ the ledger the flash lands in); the allowance is set and cleared inside `exec`, so it never outlives the invocation.",
      ],
      [
        "buys",
        T.vec(T.udt("BuyLeg")),
        "One per non-USDC asset the requests repay, run before `submit` (empty for USDC debt).",
      ],
      [
        "min_ratio_bps",
        T.u32,
        "The least oracle lot/bid ratio of what the fill moves, in basis points (10200 = MIN_PROFIT 1.02), valued at the prices in force when the flash executes (else BelowMinProfit). Non-zero: two submits (fill + repays, then withdrawals); 0: one submit, no check.",
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
      [
        "path",
        T.vec(A),
        "Token path, at least 2 entries; the first a lot or bought asset, the last USDC.",
      ],
      ["router", A],
    ],
  },
  errors: VIGIL_SPEC_ERRORS,
  docs: {
    BuyLeg:
      "One exact-output purchase of a non-USDC bid asset with the flash's USDC (Soroswap `swap_tokens_for_exact_tokens`). What the pool refunds above the debt is sold back by the asset's `SwapLeg`.",
    FlashPolicy: "The vault's flash policy, as the vault forwards it to `exec`.",
    LiquidationPlan: "The `data` the vault forwards to `exec`.",
    Request: "Blend v2 `Request { address, amount, request_type }`.",
    SwapLeg:
      "One swap of seized collateral (or of a bought bid asset's leftover) to USDC. The liquidator swaps ALL the keeper received of `path[0]` (not `amount_in`), so `amount_in` and `min_out` only set the keeper's price floor.",
  },
};

/** The liquidator spec (the Wasm's `contractspecv0`). */
export const LIQUIDATOR_SPEC = defineSpec(LIQUIDATOR_SPEC_DEF);
