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
import { defineSpec, T } from "../sdk.ts";
import { VIGIL_SPEC_ERRORS } from "../registry/errors.ts";

/** Blend v2 `Request { address, amount, request_type }`. */
export interface BlendRequest {
  address: string;
  amount: bigint;
  request_type: number;
}

/** Swap venue kinds of a {@link SwapLeg}. */
export const SwapKind = {
  /** Soroswap router `swap_exact_tokens_for_tokens(amount_in, min_out, path, to, now + 1)`. */
  Soroswap: 0,
  /** Phoenix multihop `swap(recipient, operations, None, amount, Xyk, None, None)`. */
  Phoenix: 1,
} as const;

/** One swap of seized collateral towards USDC, sent to the keeper. */
export interface SwapLeg {
  /** Exact input (units of `path[0]`). */
  amount_in: bigint;
  /** {@link SwapKind}. */
  kind: number;
  /** The keeper's oracle-based slippage floor: the swap fails below it. */
  min_out: bigint;
  /** Token path, at least 2 entries; the last is normally USDC. */
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
        "Keeper auth. Flash executor: submits the plan's Blend requests for the keeper, runs its swaps to the keeper, then moves amount + (USDC the liquidation produced) from the keeper to vault with transfer_from under a keeper allowance that it sets and clears itself. LiquidationShortfall if that is negative. Returns the amount repaid.",
      inputs: [
        ["keeper", A],
        ["vault", A],
        ["usdc", A],
        ["amount", T.i128],
        ["data", T.udt("LiquidationPlan")],
      ],
      output: T.i128,
    },
  ],
  structs: {
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
