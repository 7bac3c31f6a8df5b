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
import { defineSpec, T } from "@vigil/soroban/spec_dsl";
import { VIGIL_SPEC_ERRORS } from "../registry/errors.ts";

/** Blend v2 `Request { address, amount, request_type }`. */
export interface BlendRequest {
  address: string;
  amount: bigint;
  request_type: number;
}

/** Swap venue kinds of a {@link SwapLeg}. */
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

/**
 * One swap of seized collateral to USDC. The liquidator swaps ALL the keeper received of
 * `path[0]` (not `amount_in`), so `amount_in` and `min_out` only set the keeper's price floor.
 */
export interface SwapLeg {
  /** The planned input (units of `path[0]`): scales `min_out` to the amount actually swapped. */
  amount_in: bigint;
  /** {@link SwapKind}. */
  kind: number;
  /** The keeper's floor for `amount_in`; the liquidator also applies the oracle floor. */
  min_out: bigint;
  /** Token path, at least 2 entries; the first a lot asset, the last USDC. */
  path: string[];
  router: string;
}

/** `LiquidationPlan`: the `data` the vault forwards to `exec`. */
export interface LiquidationPlan {
  /**
   * Ledger until which the repayment allowance may live (≥ the ledger the flash lands in); the
   * allowance is set and cleared inside `exec`, so it never outlives the invocation.
   */
  allowance_until: number;
  /** Blend pool. */
  pool: string;
  /** `submit(keeper, keeper, keeper, requests)`: fill + repay + withdraw-collateral. */
  requests: BlendRequest[];
  swaps: SwapLeg[];
}

const A = T.address;

/** The liquidator spec. */
export const LIQUIDATOR_SPEC = defineSpec({
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
      ["allowance_until", T.u32],
      ["pool", A],
      ["requests", T.vec(T.udt("Request"))],
      ["swaps", T.vec(T.udt("SwapLeg"))],
    ],
    Request: [["address", A], ["amount", T.i128], ["request_type", T.u32]],
    SwapLeg: [
      ["amount_in", T.i128],
      ["kind", T.u32],
      ["min_out", T.i128],
      ["path", T.vec(A)],
      ["router", A],
    ],
  },
  errors: VIGIL_SPEC_ERRORS,
});
