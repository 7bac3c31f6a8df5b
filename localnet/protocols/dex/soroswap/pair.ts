/**
 * Soroswap pair stand-in (`soroswap/core` `contracts/pair`): a constant-product pool with the
 * 0.3 % fee, which is also its own LP token ("Soroswap LP Token", `SOROSWAP-LP`, 7 decimals).
 *
 * Same functions, return shapes, events (`("SoroswapPair", swap|sync|deposit|withdraw|skim)`)
 * and `SoroswapPairError` codes (101–118) as the real pair. `swap` measures the input from the
 * pair's token balances and enforces `(bal0 - ceil(3*in0/1000)) * (bal1 - ceil(3*in1/1000)) >=
 * r0*r1`. Protocol fees (`fees_enabled`) are not implemented: `k_last` stays 0.
 *
 * Storage (instance): u32 keys 0 Token0, 1 Token1, 2 Reserve0, 3 Reserve1, 4 Factory,
 * 5 TotalShares, 9 KLast; LP balances persistent `Vec[Symbol(Balance), Address]` → i128.
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
  type TypeDef,
  u32,
  variant,
} from "../../../../contracts/sdk.ts";
import {
  big,
  errorCodes,
  type ErrorTable,
  getAddr,
  getI128,
  setAddr,
  setI128,
  tokenBalance,
  tokenTransfer,
} from "../common.ts";
import { ceilDiv, compareAddresses, isqrt } from "../math.ts";
import { SHARE_TOKEN_FUNCTIONS, shareLedger, transferShares } from "../shares.ts";

/** LP shares locked forever in the pair at the first deposit. */
export const MINIMUM_LIQUIDITY = 1000n;

const K = {
  token0: u32(0),
  token1: u32(1),
  reserve0: u32(2),
  reserve1: u32(3),
  factory: u32(4),
  totalShares: u32(5),
  kLast: u32(9),
};
const balanceKey = (a: string) => variant("Balance", addr(a));

/** Fields of `DepositEvent` and `WithdrawEvent` (two structs with the same fields, as in the real pair). */
const LIQUIDITY_EVENT_FIELDS: [string, TypeDef][] = [
  ["amount_0", T.i128],
  ["amount_1", T.i128],
  ["liquidity", T.i128],
  ["new_reserve_0", T.i128],
  ["new_reserve_1", T.i128],
  ["to", T.address],
];

/** `SoroswapPairError` (101–118). */
const ERRORS = {
  InitializeAlreadyInitialized: [101, "SoroswapPair: already initialized"],
  NotInitialized: [102, "SoroswapPair: not yet initialized"],
  InitializeTokenOrderInvalid: [103, "SoroswapPair: token_0 must be less than token_1"],
  DepositInsufficientAmountToken0: [104, "SoroswapPair: insufficient amount of token 0 sent"],
  DepositInsufficientAmountToken1: [105, "SoroswapPair: insufficient amount of token 1 sent"],
  DepositInsufficientFirstLiquidity: [106, "SoroswapPair: insufficient first liquidity minted"],
  DepositInsufficientLiquidityMinted: [107, "SoroswapPair: insufficient liquidity minted"],
  SwapInsufficientOutputAmount: [108, "SoroswapPair: insufficient output amount"],
  SwapNegativesOutNotSupported: [109, "SoroswapPair: negative amounts out not supported"],
  SwapInsufficientLiquidity: [110, "SoroswapPair: insufficient liquidity to do the swap"],
  SwapInvalidTo: [111, "SoroswapPair: invalid to"],
  SwapInsufficientInputAmount: [112, "SoroswapPair: insufficient input amount"],
  SwapNegativesInNotSupported: [113, "SoroswapPair: negative amounts in not supported"],
  SwapKConstantNotMet: [114, "SoroswapPair: K constant is not met"],
  WithdrawLiquidityNotInitialized: [115, "SoroswapPair: liquidity was not initialized yet"],
  WithdrawInsufficientSentShares: [116, "SoroswapPair: insufficient sent shares"],
  WithdrawInsufficientLiquidityBurned: [117, "SoroswapPair: insufficient liquidity burned"],
  UpdateOverflow: [118, "SoroswapPair: overflow while updating"],
} satisfies ErrorTable;
const E = errorCodes(ERRORS);

const spec = defineSpec({
  errorEnumName: "SoroswapPairError",
  errors: ERRORS,
  structs: {
    SwapEvent: [
      ["amount_0_in", T.i128],
      ["amount_0_out", T.i128],
      ["amount_1_in", T.i128],
      ["amount_1_out", T.i128],
      ["to", T.address],
    ],
    SyncEvent: [["new_reserve_0", T.i128], ["new_reserve_1", T.i128]],
    DepositEvent: LIQUIDITY_EVENT_FIELDS,
    WithdrawEvent: LIQUIDITY_EVENT_FIELDS,
    SkimEvent: [["skimmed_0", T.i128], ["skimmed_1", T.i128]],
  },
  functions: [
    {
      name: "initialize_pair",
      inputs: [["factory", T.address], ["token_0", T.address], ["token_1", T.address]],
    },
    { name: "deposit", inputs: [["to", T.address]], output: T.i128 },
    {
      name: "swap",
      inputs: [["amount_0_out", T.i128], ["amount_1_out", T.i128], ["to", T.address]],
    },
    { name: "withdraw", inputs: [["to", T.address]], output: T.tuple(T.i128, T.i128) },
    { name: "skim", inputs: [["to", T.address]] },
    { name: "sync" },
    { name: "token_0", output: T.address },
    { name: "token_1", output: T.address },
    { name: "factory", output: T.address },
    { name: "k_last", output: T.i128 },
    { name: "get_reserves", output: T.tuple(T.i128, T.i128) },
    { name: "my_balance", inputs: [["id", T.address]], output: T.i128 },
    { name: "total_shares", output: T.i128 },
    // LP token (SEP-41 subset)
    ...SHARE_TOKEN_FUNCTIONS,
  ],
});

const TOPIC = str("SoroswapPair");

function requireInit(env: Env): void {
  if (!env.storage.instance.has(K.token0)) fail(E.NotInitialized);
}

function tokens(env: Env): [string, string] {
  return [getAddr(env.storage.instance, K.token0)!, getAddr(env.storage.instance, K.token1)!];
}

function reserves(env: Env): [bigint, bigint] {
  return [getI128(env.storage.instance, K.reserve0), getI128(env.storage.instance, K.reserve1)];
}

function balances(env: Env): [bigint, bigint] {
  const [t0, t1] = tokens(env);
  return [
    tokenBalance(env, t0, env.currentContract),
    tokenBalance(env, t1, env.currentContract),
  ];
}

/** Sets reserves to the balances and emits `sync`. */
function update(env: Env, b0: bigint, b1: bigint): void {
  setI128(env.storage.instance, K.reserve0, b0);
  setI128(env.storage.instance, K.reserve1, b1);
  env.emit(
    [TOPIC, sym("sync")],
    env.toScVal({ new_reserve_0: b0, new_reserve_1: b1 }, T.udt("SyncEvent")),
  );
}

/** The LP token's books (LP balances persistent, total in the instance). */
const lp = shareLedger({
  balanceKey,
  totalKey: K.totalShares,
  totalTier: "instance",
  insufficient: () => {
    throw new Error("insufficient balance");
  },
});

/** The Soroswap pair stand-in. */
export const soroswapPair: ContractModule = {
  name: "soroswap_pair",
  spec,
  functions: {
    initialize_pair(
      env,
      { factory, token_0, token_1 }: { factory: string; token_0: string; token_1: string },
    ) {
      if (env.storage.instance.has(K.token0)) fail(E.InitializeAlreadyInitialized);
      if (compareAddresses(token_0, token_1) >= 0) fail(E.InitializeTokenOrderInvalid);
      setAddr(env.storage.instance, K.factory, factory);
      setAddr(env.storage.instance, K.token0, token_0);
      setAddr(env.storage.instance, K.token1, token_1);
      setI128(env.storage.instance, K.totalShares, 0n);
      setI128(env.storage.instance, K.reserve0, 0n);
      setI128(env.storage.instance, K.reserve1, 0n);
    },

    deposit(env, { to }: { to: string }) {
      requireInit(env);
      const [r0, r1] = reserves(env);
      const [b0, b1] = balances(env);
      const a0 = b0 - r0;
      const a1 = b1 - r1;
      if (a0 <= 0n) fail(E.DepositInsufficientAmountToken0);
      if (a1 <= 0n) fail(E.DepositInsufficientAmountToken1);
      const total = lp.total(env);
      let liquidity: bigint;
      if (total === 0n) {
        const first = isqrt(a0 * a1);
        if (first <= MINIMUM_LIQUIDITY) fail(E.DepositInsufficientFirstLiquidity);
        lp.mint(env, env.currentContract, MINIMUM_LIQUIDITY);
        liquidity = first - MINIMUM_LIQUIDITY;
      } else {
        const s0 = (a0 * total) / r0;
        const s1 = (a1 * total) / r1;
        liquidity = s0 < s1 ? s0 : s1;
      }
      if (liquidity <= 0n) fail(E.DepositInsufficientLiquidityMinted);
      lp.mint(env, to, liquidity);
      update(env, b0, b1);
      env.emit(
        [TOPIC, sym("deposit")],
        env.toScVal(
          {
            amount_0: a0,
            amount_1: a1,
            liquidity,
            new_reserve_0: b0,
            new_reserve_1: b1,
            to,
          },
          T.udt("DepositEvent"),
        ),
      );
      return liquidity;
    },

    swap(
      env,
      args: { amount_0_out: bigint; amount_1_out: bigint; to: string },
    ) {
      requireInit(env);
      const out0 = big(args.amount_0_out);
      const out1 = big(args.amount_1_out);
      const to = args.to;
      const [r0, r1] = reserves(env);
      if (out0 === 0n && out1 === 0n) fail(E.SwapInsufficientOutputAmount);
      if (out0 < 0n || out1 < 0n) fail(E.SwapNegativesOutNotSupported);
      if (out0 >= r0 || out1 >= r1) fail(E.SwapInsufficientLiquidity);
      const [t0, t1] = tokens(env);
      if (to === t0 || to === t1) fail(E.SwapInvalidTo);
      if (out0 > 0n) tokenTransfer(env, t0, env.currentContract, to, out0);
      if (out1 > 0n) tokenTransfer(env, t1, env.currentContract, to, out1);
      const [b0, b1] = balances(env);
      const in0 = b0 > r0 - out0 ? b0 - (r0 - out0) : 0n;
      const in1 = b1 > r1 - out1 ? b1 - (r1 - out1) : 0n;
      if (in0 === 0n && in1 === 0n) fail(E.SwapInsufficientInputAmount);
      if (in0 < 0n || in1 < 0n) fail(E.SwapNegativesInNotSupported);
      const adj0 = b0 - ceilDiv(in0 * 3n, 1000n);
      const adj1 = b1 - ceilDiv(in1 * 3n, 1000n);
      if (adj0 * adj1 < r0 * r1) fail(E.SwapKConstantNotMet);
      update(env, b0, b1);
      env.emit(
        [TOPIC, sym("swap")],
        env.toScVal(
          { amount_0_in: in0, amount_0_out: out0, amount_1_in: in1, amount_1_out: out1, to },
          T.udt("SwapEvent"),
        ),
      );
    },

    withdraw(env, { to }: { to: string }) {
      requireInit(env);
      const sent = lp.balance(env, env.currentContract);
      if (sent === 0n) fail(E.WithdrawLiquidityNotInitialized);
      let [b0, b1] = balances(env);
      const userShares = sent - MINIMUM_LIQUIDITY;
      if (userShares <= 0n) fail(E.WithdrawInsufficientSentShares);
      const total = lp.total(env);
      const a0 = (b0 * userShares) / total;
      const a1 = (b1 * userShares) / total;
      if (a0 <= 0n || a1 <= 0n) fail(E.WithdrawInsufficientLiquidityBurned);
      lp.burn(env, env.currentContract, userShares);
      const [t0, t1] = tokens(env);
      tokenTransfer(env, t0, env.currentContract, to, a0);
      tokenTransfer(env, t1, env.currentContract, to, a1);
      [b0, b1] = balances(env);
      update(env, b0, b1);
      env.emit(
        [TOPIC, sym("withdraw")],
        env.toScVal(
          {
            amount_0: a0,
            amount_1: a1,
            liquidity: userShares,
            new_reserve_0: b0,
            new_reserve_1: b1,
            to,
          },
          T.udt("WithdrawEvent"),
        ),
      );
      return [a0, a1];
    },

    skim(env, { to }: { to: string }) {
      requireInit(env);
      const [b0, b1] = balances(env);
      const [r0, r1] = reserves(env);
      const [t0, t1] = tokens(env);
      const s0 = b0 - r0;
      const s1 = b1 - r1;
      if (s0 > 0n) tokenTransfer(env, t0, env.currentContract, to, s0);
      if (s1 > 0n) tokenTransfer(env, t1, env.currentContract, to, s1);
      env.emit(
        [TOPIC, sym("skim")],
        env.toScVal({ skimmed_0: s0, skimmed_1: s1 }, T.udt("SkimEvent")),
      );
    },

    sync(env) {
      requireInit(env);
      const [b0, b1] = balances(env);
      update(env, b0, b1);
    },

    token_0: (env) => tokens(env)[0],
    token_1: (env) => tokens(env)[1],
    factory: (env) => getAddr(env.storage.instance, K.factory),
    k_last: (env) => getI128(env.storage.instance, K.kLast),
    get_reserves: (env) => reserves(env),
    my_balance: (env, { id }: { id: string }) => lp.balance(env, id),
    total_shares: (env) => lp.total(env),

    balance: (env, { id }: { id: string }) => lp.balance(env, id),
    transfer: (env, args: { from: string; to: string; amount: bigint }) =>
      transferShares(env, args, (from, to, amount) => lp.move(env, from, to, amount)),
    decimals: () => 7,
    name: () => "Soroswap LP Token",
    symbol: () => "SOROSWAP-LP",
  },
};
