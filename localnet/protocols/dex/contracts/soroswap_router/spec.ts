/**
 * The Soroswap-ABI router: its Soroban interface, as soroswap/core `contracts/router` declares it
 * (`CombinedRouterError` 501–515), plus the stand-in's test fault switch (`set_fault`,
 * `get_fault`, codes 590–591), which the real router does not have.
 *
 * @module
 */
import type { xdr } from "@stellar/stellar-sdk";
import { defineSpec, T, type TypeDef } from "@vigil/soroban/spec_dsl";

/** `CombinedRouterError` codes, plus the stand-in fault codes 590–591. */
export const RouterError = {
  RouterNotInitialized: 501,
  RouterNegativeNotAllowed: 502,
  RouterDeadlineExpired: 503,
  RouterInitializeAlreadyInitialized: 504,
  RouterInsufficientAAmount: 505,
  RouterInsufficientBAmount: 506,
  RouterInsufficientOutputAmount: 507,
  RouterExcessiveInputAmount: 508,
  RouterPairDoesNotExist: 509,
  LibraryInsufficientAmount: 510,
  LibraryInsufficientLiquidity: 511,
  LibraryInsufficientInputAmount: 512,
  LibraryInsufficientOutputAmount: 513,
  LibraryInvalidPath: 514,
  LibrarySortIdenticalTokens: 515,
  /** Stand-in: the venue is (transiently) unavailable. */
  TransientVenueError: 590,
  /** Stand-in: `set_fault` got an invalid mode (skew must be below 10000). */
  InvalidFaultMode: 591,
} as const;

const LIQUIDITY_EVENT: [string, TypeDef][] = [
  ["amount_a", T.i128],
  ["amount_b", T.i128],
  ["liquidity", T.i128],
  ["pair", T.address],
  ["to", T.address],
  ["token_a", T.address],
  ["token_b", T.address],
];

const swapIn = (first: string, second: string): [string, TypeDef][] => [
  [first, T.i128],
  [second, T.i128],
  ["path", T.vec(T.address)],
  ["to", T.address],
  ["deadline", T.u64],
];

const MESSAGES: Record<string, string> = {
  RouterNotInitialized: "SoroswapRouter: not yet initialized",
  RouterNegativeNotAllowed: "SoroswapRouter: negative amount is not allowed",
  RouterDeadlineExpired: "SoroswapRouter: deadline expired",
  RouterInitializeAlreadyInitialized: "SoroswapRouter: already initialized",
  RouterInsufficientAAmount: "SoroswapRouter: insufficient a amount",
  RouterInsufficientBAmount: "SoroswapRouter: insufficient b amount",
  RouterInsufficientOutputAmount: "SoroswapRouter: insufficient output amount",
  RouterExcessiveInputAmount: "SoroswapRouter: excessive input amount",
  RouterPairDoesNotExist: "SoroswapRouter: pair does not exist",
  LibraryInsufficientAmount: "SoroswapLibrary: insufficient amount",
  LibraryInsufficientLiquidity: "SoroswapLibrary: insufficient liquidity",
  LibraryInsufficientInputAmount: "SoroswapLibrary: insufficient input amount",
  LibraryInsufficientOutputAmount: "SoroswapLibrary: insufficient output amount",
  LibraryInvalidPath: "SoroswapLibrary: invalid path",
  LibrarySortIdenticalTokens: "SoroswapLibrary: token_a and token_b are identical",
  TransientVenueError: "Stand-in fault: venue transiently unavailable (retry later)",
  InvalidFaultMode: "Stand-in fault: invalid fault mode",
};

/** The router's spec (every function returns `Result<_, CombinedRouterError>`, as the real one). */
export const SOROSWAP_ROUTER_SPEC: xdr.ScSpecEntry[] = defineSpec({
  errorEnumName: "CombinedRouterError",
  errors: Object.fromEntries(
    Object.entries(RouterError).map(([n, code]) => [n, [code, MESSAGES[n]]]),
  ) as Record<string, [number, string]>,
  functions: [
    { name: "initialize", inputs: [["factory", T.address]] },
    {
      name: "add_liquidity",
      doc: "Creates the pair if missing; pulls the optimal amounts from `to` (auth) into the pair.",
      inputs: [
        ["token_a", T.address],
        ["token_b", T.address],
        ["amount_a_desired", T.i128],
        ["amount_b_desired", T.i128],
        ["amount_a_min", T.i128],
        ["amount_b_min", T.i128],
        ["to", T.address],
        ["deadline", T.u64],
      ],
      output: T.tuple(T.i128, T.i128, T.i128),
    },
    {
      name: "remove_liquidity",
      inputs: [
        ["token_a", T.address],
        ["token_b", T.address],
        ["liquidity", T.i128],
        ["amount_a_min", T.i128],
        ["amount_b_min", T.i128],
        ["to", T.address],
        ["deadline", T.u64],
      ],
      output: T.tuple(T.i128, T.i128),
    },
    {
      name: "swap_exact_tokens_for_tokens",
      inputs: swapIn("amount_in", "amount_out_min"),
      output: T.vec(T.i128),
    },
    {
      name: "swap_tokens_for_exact_tokens",
      inputs: swapIn("amount_out", "amount_in_max"),
      output: T.vec(T.i128),
    },
    { name: "get_factory", output: T.address },
    {
      name: "router_pair_for",
      inputs: [["token_a", T.address], ["token_b", T.address]],
      output: T.address,
    },
    {
      name: "router_quote",
      inputs: [["amount_a", T.i128], ["reserve_a", T.i128], ["reserve_b", T.i128]],
      output: T.i128,
    },
    {
      name: "router_get_amount_out",
      inputs: [["amount_in", T.i128], ["reserve_in", T.i128], ["reserve_out", T.i128]],
      output: T.i128,
    },
    {
      name: "router_get_amount_in",
      inputs: [["amount_out", T.i128], ["reserve_in", T.i128], ["reserve_out", T.i128]],
      output: T.i128,
    },
    {
      name: "router_get_amounts_out",
      inputs: [["amount_in", T.i128], ["path", T.vec(T.address)]],
      output: T.vec(T.i128),
    },
    {
      name: "router_get_amounts_in",
      inputs: [["amount_out", T.i128], ["path", T.vec(T.address)]],
      output: T.vec(T.i128),
    },
    {
      name: "set_fault",
      doc:
        "Stand-in only, auth of the factory's fee_to_setter: None | Transient(ledgers, 0 = until cleared) | Skew(bps).",
      inputs: [["mode", T.udt("FaultMode")]],
    },
    { name: "get_fault", doc: "Stand-in only: the fault switch.", output: T.udt("FaultState") },
  ],
  unions: { FaultMode: [["None"], ["Transient", T.u32], ["Skew", T.u32]] },
  structs: {
    FaultState: [["active", T.bool], ["mode", T.udt("FaultMode")], ["set_ledger", T.u32]],
    InitializedEvent: [["factory", T.address]],
    AddLiquidityEvent: LIQUIDITY_EVENT,
    RemoveLiquidityEvent: LIQUIDITY_EVENT,
    SwapEvent: [["amounts", T.vec(T.i128)], ["path", T.vec(T.address)], ["to", T.address]],
  },
});
