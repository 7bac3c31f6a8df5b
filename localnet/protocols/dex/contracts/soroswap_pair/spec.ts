/**
 * The Soroswap-ABI pair: its Soroban interface (functions, event structs, errors), as soroswap/core
 * `contracts/pair` (the Wasm deployed on mainnet in 2024-03) declares it: the pool functions and a
 * SEP-41 LP token.
 *
 * Struct fields are listed in byte order of their names (how `#[contracttype]` structs appear on
 * the wire).
 *
 * @module
 */
import type { xdr } from "@stellar/stellar-sdk";
import { defineSpec, T, type TypeDef } from "@vigil/soroban/spec_dsl";

/** `SoroswapPairError` codes. */
export const SoroswapPairError = {
  InitializeAlreadyInitialized: 101,
  NotInitialized: 102,
  InitializeTokenOrderInvalid: 103,
  DepositInsufficientAmountToken0: 104,
  DepositInsufficientAmountToken1: 105,
  DepositInsufficientFirstLiquidity: 106,
  DepositInsufficientLiquidityMinted: 107,
  SwapInsufficientOutputAmount: 108,
  SwapNegativesOutNotSupported: 109,
  SwapInsufficientLiquidity: 110,
  SwapInvalidTo: 111,
  SwapInsufficientInputAmount: 112,
  SwapNegativesInNotSupported: 113,
  SwapKConstantNotMet: 114,
  WithdrawLiquidityNotInitialized: 115,
  WithdrawInsufficientSentShares: 116,
  WithdrawInsufficientLiquidityBurned: 117,
  UpdateOverflow: 118,
} as const;

/** LP shares locked forever in the pair at the first deposit. */
export const MINIMUM_LIQUIDITY = 1000n;

const LIQUIDITY_EVENT: [string, TypeDef][] = [
  ["amount_0", T.i128],
  ["amount_1", T.i128],
  ["liquidity", T.i128],
  ["new_reserve_0", T.i128],
  ["new_reserve_1", T.i128],
  ["to", T.address],
];

const MESSAGES: Record<string, string> = {
  InitializeAlreadyInitialized: "SoroswapPair: already initialized",
  NotInitialized: "SoroswapPair: not yet initialized",
  InitializeTokenOrderInvalid: "SoroswapPair: token_0 must be less than token_1",
  DepositInsufficientAmountToken0: "SoroswapPair: insufficient amount of token 0 sent",
  DepositInsufficientAmountToken1: "SoroswapPair: insufficient amount of token 1 sent",
  DepositInsufficientFirstLiquidity: "SoroswapPair: insufficient first liquidity minted",
  DepositInsufficientLiquidityMinted: "SoroswapPair: insufficient liquidity minted",
  SwapInsufficientOutputAmount: "SoroswapPair: insufficient output amount",
  SwapNegativesOutNotSupported: "SoroswapPair: negative amounts out not supported",
  SwapInsufficientLiquidity: "SoroswapPair: insufficient liquidity to do the swap",
  SwapInvalidTo: "SoroswapPair: invalid to",
  SwapInsufficientInputAmount: "SoroswapPair: insufficient input amount",
  SwapNegativesInNotSupported: "SoroswapPair: negative amounts in not supported",
  SwapKConstantNotMet: "SoroswapPair: K constant is not met",
  WithdrawLiquidityNotInitialized: "SoroswapPair: liquidity was not initialized yet",
  WithdrawInsufficientSentShares: "SoroswapPair: insufficient sent shares",
  WithdrawInsufficientLiquidityBurned: "SoroswapPair: insufficient liquidity burned",
  UpdateOverflow: "SoroswapPair: overflow while updating",
};

// The pool's state-changing functions return `Result<_, SoroswapPairError>`; the getters and the
// SEP-41 token functions return plain values (as in the real pair's spec).
const withResult = defineSpec({
  errorEnumName: "SoroswapPairError",
  errors: Object.fromEntries(
    Object.entries(SoroswapPairError).map(([n, code]) => [n, [code, MESSAGES[n]]]),
  ) as Record<string, [number, string]>,
  functions: [
    {
      name: "initialize",
      doc:
        "Called by the factory once: stores the factory and the sorted tokens (token_0 < token_1).",
      inputs: [["factory", T.address], ["token_0", T.address], ["token_1", T.address]],
    },
    {
      name: "deposit",
      doc: "Mints LP shares to `to` for the tokens sent since the last sync.",
      inputs: [["to", T.address]],
      output: T.i128,
    },
    {
      name: "swap",
      doc:
        "Pays out the amounts to `to`; the input must already be in the pair (0.3 % fee, K check).",
      inputs: [["amount_0_out", T.i128], ["amount_1_out", T.i128], ["to", T.address]],
    },
    {
      name: "withdraw",
      doc: "Burns the LP shares sent to the pair; pays both tokens to `to`.",
      inputs: [["to", T.address]],
      output: T.tuple(T.i128, T.i128),
    },
  ],
});

const plain = defineSpec({
  functions: [
    {
      name: "skim",
      doc: "Sends balances above the reserves to `to`.",
      inputs: [["to", T.address]],
    },
    { name: "sync", doc: "Sets the reserves to the balances." },
    { name: "token_0", output: T.address },
    { name: "token_1", output: T.address },
    { name: "factory", output: T.address },
    { name: "k_last", output: T.i128 },
    { name: "get_reserves", output: T.tuple(T.i128, T.i128) },
    { name: "total_supply", output: T.i128 },
    { name: "allowance", inputs: [["from", T.address], ["spender", T.address]], output: T.i128 },
    {
      name: "approve",
      inputs: [
        ["from", T.address],
        ["spender", T.address],
        ["amount", T.i128],
        ["expiration_ledger", T.u32],
      ],
    },
    { name: "balance", inputs: [["id", T.address]], output: T.i128 },
    { name: "transfer", inputs: [["from", T.address], ["to", T.address], ["amount", T.i128]] },
    {
      name: "transfer_from",
      inputs: [["spender", T.address], ["from", T.address], ["to", T.address], ["amount", T.i128]],
    },
    { name: "burn", inputs: [["from", T.address], ["amount", T.i128]] },
    {
      name: "burn_from",
      inputs: [["spender", T.address], ["from", T.address], ["amount", T.i128]],
    },
    { name: "decimals", output: T.u32 },
    { name: "name", output: T.string },
    { name: "symbol", output: T.string },
  ],
  structs: {
    SwapEvent: [
      ["amount_0_in", T.i128],
      ["amount_0_out", T.i128],
      ["amount_1_in", T.i128],
      ["amount_1_out", T.i128],
      ["to", T.address],
    ],
    SyncEvent: [["new_reserve_0", T.i128], ["new_reserve_1", T.i128]],
    DepositEvent: LIQUIDITY_EVENT,
    WithdrawEvent: LIQUIDITY_EVENT,
    SkimEvent: [["skimmed_0", T.i128], ["skimmed_1", T.i128]],
  },
});

/** The pair's spec. */
export const SOROSWAP_PAIR_SPEC: xdr.ScSpecEntry[] = [...withResult, ...plain];
