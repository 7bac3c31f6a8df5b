/**
 * Phoenix XYK pool stand-in (`phoenix-contracts` `contracts/pool`), the fallback venue's pools.
 *
 * Real functions and shapes: `swap(sender, offer_asset, offer_amount, ask_asset_min_amount,
 * max_spread_bps, deadline, max_allowed_fee_bps) -> i128`, `simulate_swap(offer_asset,
 * offer_amount) -> SimulateSwapResponse`, `simulate_reverse_swap`, `provide_liquidity`,
 * `withdraw_liquidity`, `query_config`, `query_pool_info`, `query_pool_info_for_factory`,
 * `query_share`, `query_total_issued_lp`, `query_share_token_address`; the maths of
 * `compute_swap` (fee from the output, floor) and the pool's error codes (300–338).
 *
 * Stand-in differences: `initialize` takes plain parameters (no stake/token wasm hashes); the LP
 * share is tracked inside the pool (`query_share_token_address` is the pool itself, which answers
 * `balance`) and there is no stake contract (`auto_stake` true → 338 StakingDisabled); `seed`
 * (admin) books tokens already sent to the pool as liquidity (used by `deploy.ts`). The venue's
 * fault lives in the factory: a transient fault fails `swap`/`simulate_*` with 390, a skew
 * multiplies the return by `(10000 - bps) / 10000` (the withheld part stays in the pool).
 *
 * Storage (persistent): `Symbol(CONFIG)` → Config; u32 keys 0 TotalShares, 1 ReserveA,
 * 2 ReserveB, 3 Admin, 4 Initialized; `Vec[Symbol(StandInShares), Address]` → i128,
 * `Vec[Symbol(StandInFactory)]` → Address.
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
  u32,
  variant,
} from "../../../../contracts/sdk.ts";
import {
  big,
  getAddr,
  getBool,
  getI128,
  getTyped,
  opt,
  setAddr,
  setBool,
  setI128,
  setTyped,
  tokenBalance,
  tokenTransfer,
} from "../common.ts";
import {
  applySkew,
  compareAddresses,
  DECIMAL_ONE,
  decimalBps,
  decimalFromRatio,
  isqrt,
  mulDecimal,
  phoenixComputeOfferAmount,
  phoenixComputeSwap,
} from "../math.ts";
import { shareLedger } from "../shares.ts";
import { POOL_STRUCTS, venueFault } from "./types.ts";

const K = {
  config: sym("CONFIG"),
  totalShares: u32(0),
  reserveA: u32(1),
  reserveB: u32(2),
  admin: u32(3),
  initialized: u32(4),
  factory: variant("StandInFactory"),
};
const sharesKey = (a: string) => variant("StandInShares", addr(a));

const MINIMUM_LIQUIDITY = 1000n;

/** Phoenix pool errors used by the stand-in, plus the stand-in transient fault code. */
export const PHOENIX_POOL_ERRORS = {
  SpreadExceedsLimit: 300,
  ProvideLiquiditySlippageToleranceTooHigh: 301,
  ProvideLiquidityAtLeastOneTokenMustBeBiggerThenZero: 302,
  WithdrawLiquidityMinimumAmountOfAOrBIsNotSatisfied: 303,
  ValidateFeeBpsTotalFeesCantBeGreaterThan100: 305,
  GetDepositAmountsAmountABiggerThenDesiredA: 308,
  GetDepositAmountsAmountALessThenMinA: 309,
  GetDepositAmountsAmountBBiggerThenDesiredB: 310,
  GetDepositAmountsAmountBLessThenMinB: 311,
  TotalSharesEqualZero: 312,
  DesiredAmountsBelowOrEqualZero: 313,
  AssetNotInPool: 315,
  AlreadyInitialized: 316,
  TokenABiggerThanTokenB: 317,
  InvalidBps: 318,
  SwapMinReceivedBiggerThanReturn: 320,
  TransactionAfterTimestampDeadline: 321,
  UserDeclinesPoolFee: 323,
  SwapFeeBpsOverLimit: 324,
  AdminNotSet: 327,
  NegativeInputProvided: 329,
  StakingDisabled: 338,
  /** Stand-in: the venue is (transiently) unavailable. */
  TransientVenueError: 390,
} as const;
const E = PHOENIX_POOL_ERRORS;

const spec = defineSpec({
  errorEnumName: "ContractError",
  errors: {
    SpreadExceedsLimit: [300, "Pool: spread exceeds maximum allowed"],
    ProvideLiquiditySlippageToleranceTooHigh: [301, ""],
    ProvideLiquidityAtLeastOneTokenMustBeBiggerThenZero: [302, ""],
    WithdrawLiquidityMinimumAmountOfAOrBIsNotSatisfied: [303, ""],
    SplitDepositBothPoolsAndDepositMustBePositive: [304, ""],
    ValidateFeeBpsTotalFeesCantBeGreaterThan100: [305, ""],
    GetDepositAmountsMinABiggerThenDesiredA: [306, ""],
    GetDepositAmountsMinBBiggerThenDesiredB: [307, ""],
    GetDepositAmountsAmountABiggerThenDesiredA: [308, ""],
    GetDepositAmountsAmountALessThenMinA: [309, ""],
    GetDepositAmountsAmountBBiggerThenDesiredB: [310, ""],
    GetDepositAmountsAmountBLessThenMinB: [311, ""],
    TotalSharesEqualZero: [312, ""],
    DesiredAmountsBelowOrEqualZero: [313, ""],
    MinAmountsBelowZero: [314, ""],
    AssetNotInPool: [315, "Pool: token offered to swap not found in pool"],
    AlreadyInitialized: [316, ""],
    TokenABiggerThanTokenB: [317, ""],
    InvalidBps: [318, ""],
    SlippageInvalid: [319, ""],
    SwapMinReceivedBiggerThanReturn: [320, "Pool: return amount is smaller than expected minimum"],
    TransactionAfterTimestampDeadline: [321, "Pool: transaction executed after deadline"],
    CannotConvertU256ToI128: [322, ""],
    UserDeclinesPoolFee: [323, "Pool: user agrees to swap at a lower fee"],
    SwapFeeBpsOverLimit: [324, ""],
    NotEnoughSharesToBeMinted: [325, ""],
    NotEnoughLiquidityProvided: [326, ""],
    AdminNotSet: [327, ""],
    ContractMathError: [328, ""],
    NegativeInputProvided: [329, ""],
    StakingDisabled: [338, "Pool: no stake contract"],
    TransientVenueError: [390, "Stand-in fault: venue transiently unavailable (retry later)"],
  },
  enums: { PairType: [["Xyk", 0]] },
  structs: {
    ...POOL_STRUCTS,
    Config: [
      ["fee_recipient", T.address],
      ["max_allowed_slippage_bps", T.i64],
      ["max_allowed_spread_bps", T.i64],
      ["max_referral_bps", T.i64],
      ["pool_type", T.udt("PairType")],
      ["share_token", T.address],
      ["stake_contract", T.address],
      ["token_a", T.address],
      ["token_b", T.address],
      ["total_fee_bps", T.i64],
    ],
    SimulateSwapResponse: [
      ["ask_amount", T.i128],
      ["commission_amount", T.i128],
      ["spread_amount", T.i128],
      ["total_return", T.i128],
    ],
    SimulateReverseSwapResponse: [
      ["commission_amount", T.i128],
      ["offer_amount", T.i128],
      ["spread_amount", T.i128],
    ],
  },
  functions: [
    {
      name: "initialize",
      doc: "Stand-in signature (the real one deploys share-token and stake contracts).",
      inputs: [
        ["admin", T.address],
        ["factory_addr", T.address],
        ["token_a", T.address],
        ["token_b", T.address],
        ["swap_fee_bps", T.i64],
        ["fee_recipient", T.address],
        ["max_allowed_slippage_bps", T.i64],
        ["max_allowed_spread_bps", T.i64],
        ["max_allowed_fee_bps", T.i64],
      ],
    },
    {
      name: "provide_liquidity",
      inputs: [
        ["sender", T.address],
        ["desired_a", T.option(T.i128)],
        ["min_a", T.option(T.i128)],
        ["desired_b", T.option(T.i128)],
        ["min_b", T.option(T.i128)],
        ["custom_slippage_bps", T.option(T.i64)],
        ["deadline", T.option(T.u64)],
        ["auto_stake", T.bool],
      ],
    },
    {
      name: "seed",
      doc: "Stand-in (admin): books tokens already sent to the pool as liquidity of `to`.",
      inputs: [["to", T.address]],
      output: T.i128,
    },
    {
      name: "swap",
      inputs: [
        ["sender", T.address],
        ["offer_asset", T.address],
        ["offer_amount", T.i128],
        ["ask_asset_min_amount", T.option(T.i128)],
        ["max_spread_bps", T.option(T.i64)],
        ["deadline", T.option(T.u64)],
        ["max_allowed_fee_bps", T.option(T.i64)],
      ],
      output: T.i128,
    },
    {
      name: "withdraw_liquidity",
      inputs: [
        ["sender", T.address],
        ["share_amount", T.i128],
        ["min_a", T.i128],
        ["min_b", T.i128],
        ["deadline", T.option(T.u64)],
        ["auto_unstake", T.option(T.u64)],
      ],
      output: T.tuple(T.i128, T.i128),
    },
    { name: "query_config", output: T.udt("Config") },
    { name: "query_share_token_address", output: T.address },
    { name: "query_stake_contract_address", output: T.address },
    { name: "query_pool_info", output: T.udt("PoolResponse") },
    { name: "query_pool_info_for_factory", output: T.udt("LiquidityPoolInfo") },
    {
      name: "simulate_swap",
      inputs: [["offer_asset", T.address], ["offer_amount", T.i128]],
      output: T.udt("SimulateSwapResponse"),
    },
    {
      name: "simulate_reverse_swap",
      inputs: [["ask_asset", T.address], ["ask_amount", T.i128]],
      output: T.udt("SimulateReverseSwapResponse"),
    },
    {
      name: "query_share",
      inputs: [["amount", T.i128]],
      output: T.tuple(T.udt("Asset"), T.udt("Asset")),
    },
    { name: "query_total_issued_lp", output: T.i128 },
    {
      name: "balance",
      doc: "Stand-in LP share balance.",
      inputs: [["id", T.address]],
      output: T.i128,
    },
  ],
});

interface Config {
  fee_recipient: string;
  max_allowed_slippage_bps: bigint;
  max_allowed_spread_bps: bigint;
  max_referral_bps: bigint;
  pool_type: number;
  share_token: string;
  stake_contract: string;
  token_a: string;
  token_b: string;
  total_fee_bps: bigint;
}

function config(env: Env): Config {
  return getTyped<Config>(env, env.storage.persistent, K.config, T.udt("Config")) ??
    fail(E.AdminNotSet);
}

function poolBalances(env: Env): [bigint, bigint] {
  return [getI128(env.storage.persistent, K.reserveA), getI128(env.storage.persistent, K.reserveB)];
}

function savePoolBalances(env: Env, a: bigint, b: bigint): void {
  setI128(env.storage.persistent, K.reserveA, a);
  setI128(env.storage.persistent, K.reserveB, b);
}

/** The LP share books (balances and total both persistent). */
const lp = shareLedger({
  balanceKey: sharesKey,
  totalKey: K.totalShares,
  totalTier: "persistent",
  insufficient: () => {
    throw new Error("Pool: insufficient LP share balance");
  },
});

function checkDeadline(env: Env, deadline: bigint | null | undefined): void {
  if (deadline !== null && deadline !== undefined && env.ledger.timestamp > big(deadline)) {
    fail(E.TransactionAfterTimestampDeadline);
  }
}

function validBps(...values: bigint[]): void {
  for (const v of values) if (v < 0n || v > 10_000n) fail(E.InvalidBps);
}

function fault(env: Env) {
  const factory = getAddr(env.storage.persistent, K.factory)!;
  return venueFault(env, factory);
}

function sides(env: Env, c: Config, offer: string): [bigint, bigint, boolean] {
  const [a, b] = poolBalances(env);
  if (offer === c.token_a) return [a, b, true];
  if (offer === c.token_b) return [b, a, false];
  return fail(E.AssetNotInPool);
}

function poolResponse(env: Env) {
  const c = config(env);
  const [a, b] = poolBalances(env);
  return {
    asset_a: { address: c.token_a, amount: a },
    asset_b: { address: c.token_b, amount: b },
    asset_lp_share: {
      address: c.share_token,
      amount: lp.total(env),
    },
    stake_address: c.stake_contract,
  };
}

/** Shares for a deposit that brought the pool's token balances to (balA, balB). */
function sharesFor(env: Env, poolA: bigint, poolB: bigint, balA: bigint, balB: bigint): bigint {
  const total = lp.total(env);
  if (poolA > 0n && poolB > 0n) {
    const sa = (balA * total) / poolA;
    const sb = (balB * total) / poolB;
    return (sa < sb ? sa : sb) - total;
  }
  const s = isqrt(balA * balB);
  if (MINIMUM_LIQUIDITY >= s) fail(E.TotalSharesEqualZero);
  return s;
}

function emit(env: Env, action: string, name: string, value: unknown, type: string) {
  env.emit([str(action), str(name)], env.toScVal(value, type));
}

/** The Phoenix XYK pool stand-in. */
export const phoenixPool: ContractModule = {
  name: "phoenix_pool",
  spec,
  functions: {
    initialize(
      env,
      a: {
        admin: string;
        factory_addr: string;
        token_a: string;
        token_b: string;
        swap_fee_bps: bigint;
        fee_recipient: string;
        max_allowed_slippage_bps: bigint;
        max_allowed_spread_bps: bigint;
        max_allowed_fee_bps: bigint;
      },
    ) {
      if (getBool(env.storage.persistent, K.initialized)) fail(E.AlreadyInitialized);
      const fee = big(a.swap_fee_bps);
      validBps(
        fee,
        big(a.max_allowed_slippage_bps),
        big(a.max_allowed_spread_bps),
        big(a.max_allowed_fee_bps),
      );
      if (fee > big(a.max_allowed_fee_bps)) fail(E.SwapFeeBpsOverLimit);
      if (compareAddresses(a.token_a, a.token_b) >= 0) fail(E.TokenABiggerThanTokenB);
      setBool(env.storage.persistent, K.initialized, true);
      const cfg: Config = {
        fee_recipient: a.fee_recipient,
        max_allowed_slippage_bps: big(a.max_allowed_slippage_bps),
        max_allowed_spread_bps: big(a.max_allowed_spread_bps),
        max_referral_bps: 0n,
        pool_type: 0,
        share_token: env.currentContract,
        stake_contract: env.currentContract,
        token_a: a.token_a,
        token_b: a.token_b,
        total_fee_bps: fee,
      };
      setTyped(env, env.storage.persistent, K.config, cfg, T.udt("Config"));
      setAddr(env.storage.persistent, K.admin, a.admin);
      setAddr(env.storage.persistent, K.factory, a.factory_addr);
      setI128(env.storage.persistent, K.totalShares, 0n);
      savePoolBalances(env, 0n, 0n);
      emit(env, "initialize", "XYK LP token_a", a.token_a, T.address);
      emit(env, "initialize", "XYK LP token_b", a.token_b, T.address);
    },

    provide_liquidity(
      env,
      a: {
        sender: string;
        desired_a: bigint | null;
        min_a: bigint | null;
        desired_b: bigint | null;
        min_b: bigint | null;
        custom_slippage_bps: bigint | null;
        deadline: bigint | null;
        auto_stake: boolean;
      },
    ) {
      checkDeadline(env, a.deadline);
      if (a.auto_stake) fail(E.StakingDisabled);
      for (const v of [a.desired_a, a.min_a, a.desired_b, a.min_b]) {
        if (v !== null && v !== undefined && big(v) < 0n) fail(E.NegativeInputProvided);
      }
      env.requireAuth(a.sender);
      const c = config(env);
      const desA = opt(a.desired_a);
      const desB = opt(a.desired_b);
      if (desA === undefined || desB === undefined || big(desA) <= 0n || big(desB) <= 0n) {
        fail(E.ProvideLiquidityAtLeastOneTokenMustBeBiggerThenZero);
      }
      if (
        opt(a.custom_slippage_bps) !== undefined &&
        big(a.custom_slippage_bps!) > c.max_allowed_slippage_bps
      ) {
        fail(E.ProvideLiquiditySlippageToleranceTooHigh);
      }
      const [poolA, poolB] = poolBalances(env);
      let [amtA, amtB] = [big(desA), big(desB)];
      if (poolA > 0n || poolB > 0n) {
        // Phoenix get_deposit_amounts: keep the pool ratio, within the allowed slippage.
        const slip = decimalBps(opt(a.custom_slippage_bps) ?? c.max_allowed_slippage_bps);
        let needA = (amtB * poolA) / poolB;
        if (needA > amtA) {
          if (decimalFromRatio(needA, amtA) - DECIMAL_ONE <= slip) needA = amtA;
          else fail(E.GetDepositAmountsAmountABiggerThenDesiredA);
        }
        let needB = (amtA * poolB) / poolA;
        if (needB > amtB) {
          if (decimalFromRatio(needB, amtB) - DECIMAL_ONE <= slip) needB = amtB;
          else fail(E.GetDepositAmountsAmountBBiggerThenDesiredB);
        }
        if (opt(a.min_a) !== undefined && needA < big(a.min_a!)) {
          fail(E.GetDepositAmountsAmountALessThenMinA);
        }
        if (opt(a.min_b) !== undefined && needB < big(a.min_b!)) {
          fail(E.GetDepositAmountsAmountBLessThenMinB);
        }
        [amtA, amtB] = [needA, needB];
      }
      tokenTransfer(env, c.token_a, a.sender, env.currentContract, amtA);
      tokenTransfer(env, c.token_b, a.sender, env.currentContract, amtB);
      const balA = tokenBalance(env, c.token_a, env.currentContract);
      const balB = tokenBalance(env, c.token_b, env.currentContract);
      const minted = sharesFor(env, poolA, poolB, balA, balB);
      if (lp.total(env) === 0n) {
        lp.mint(env, env.currentContract, MINIMUM_LIQUIDITY);
        lp.mint(env, a.sender, minted - MINIMUM_LIQUIDITY);
      } else {
        lp.mint(env, a.sender, minted);
      }
      savePoolBalances(env, balA, balB);
      emit(env, "provide_liquidity", "sender", a.sender, T.address);
      emit(env, "provide_liquidity", "token_a", c.token_a, T.address);
      emit(env, "provide_liquidity", "token_a-amount", amtA, T.i128);
      emit(env, "provide_liquidity", "token_b", c.token_b, T.address);
      emit(env, "provide_liquidity", "token_b-amount", amtB, T.i128);
    },

    seed(env, { to }: { to: string }) {
      env.requireAuth(getAddr(env.storage.persistent, K.admin)!);
      const c = config(env);
      const [poolA, poolB] = poolBalances(env);
      const balA = tokenBalance(env, c.token_a, env.currentContract);
      const balB = tokenBalance(env, c.token_b, env.currentContract);
      if (balA <= poolA || balB <= poolB) fail(E.DesiredAmountsBelowOrEqualZero);
      const minted = sharesFor(env, poolA, poolB, balA, balB);
      const first = lp.total(env) === 0n;
      if (first) lp.mint(env, env.currentContract, MINIMUM_LIQUIDITY);
      const mine = first ? minted - MINIMUM_LIQUIDITY : minted;
      lp.mint(env, to, mine);
      savePoolBalances(env, balA, balB);
      return mine;
    },

    swap(
      env,
      a: {
        sender: string;
        offer_asset: string;
        offer_amount: bigint;
        ask_asset_min_amount: bigint | null;
        max_spread_bps: bigint | null;
        deadline: bigint | null;
        max_allowed_fee_bps: bigint | null;
      },
    ) {
      checkDeadline(env, a.deadline);
      const offerAmount = big(a.offer_amount);
      if (offerAmount < 0n) fail(E.NegativeInputProvided);
      env.requireAuth(a.sender);
      const c = config(env);
      const f = fault(env);
      if (f.transient) fail(E.TransientVenueError);
      const maxFee = opt(a.max_allowed_fee_bps);
      if (maxFee !== undefined && big(maxFee) < c.total_fee_bps) fail(E.UserDeclinesPoolFee);
      const maxSpreadIn = opt(a.max_spread_bps);
      if (
        maxSpreadIn !== undefined &&
        (big(maxSpreadIn) < 0n || big(maxSpreadIn) > c.max_allowed_spread_bps)
      ) {
        fail(E.InvalidBps);
      }
      const maxSpread = decimalBps(
        maxSpreadIn !== undefined ? big(maxSpreadIn) : c.max_allowed_spread_bps,
      );
      const [offerPool, askPool, offerIsA] = sides(env, c, a.offer_asset);
      const cs = phoenixComputeSwap(offerPool, askPool, offerAmount, c.total_fee_bps);
      const returned = applySkew(cs.returnAmount, f.skewBps);
      const minOut = opt(a.ask_asset_min_amount);
      if (minOut !== undefined && big(minOut) > returned) fail(E.SwapMinReceivedBiggerThanReturn);
      const totalReturn = cs.returnAmount + cs.commissionAmount;
      if (totalReturn === 0n || decimalFromRatio(cs.spreadAmount, totalReturn) > maxSpread) {
        fail(E.SpreadExceedsLimit);
      }
      const [sell, buy] = offerIsA ? [c.token_a, c.token_b] : [c.token_b, c.token_a];
      const before = tokenBalance(env, sell, env.currentContract);
      tokenTransfer(env, sell, a.sender, env.currentContract, offerAmount);
      const received = tokenBalance(env, sell, env.currentContract) - before;
      tokenTransfer(env, buy, env.currentContract, a.sender, returned);
      if (cs.commissionAmount > 0n) {
        tokenTransfer(env, buy, env.currentContract, c.fee_recipient, cs.commissionAmount);
      }
      const [pa, pb] = poolBalances(env);
      const paid = cs.commissionAmount + returned;
      if (offerIsA) savePoolBalances(env, pa + received, pb - paid);
      else savePoolBalances(env, pa - paid, pb + received);
      emit(env, "swap", "sender", a.sender, T.address);
      emit(env, "swap", "sell_token", sell, T.address);
      emit(env, "swap", "offer_amount", offerAmount, T.i128);
      emit(env, "swap", "actual received amount", received, T.i128);
      emit(env, "swap", "buy_token", buy, T.address);
      emit(env, "swap", "return_amount", returned, T.i128);
      emit(env, "swap", "spread_amount", cs.spreadAmount, T.i128);
      emit(env, "swap", "referral_fee_amount", 0n, T.i128);
      return returned;
    },

    withdraw_liquidity(
      env,
      a: {
        sender: string;
        share_amount: bigint;
        min_a: bigint;
        min_b: bigint;
        deadline: bigint | null;
        auto_unstake: bigint | null;
      },
    ) {
      checkDeadline(env, a.deadline);
      if (opt(a.auto_unstake) !== undefined) fail(E.StakingDisabled);
      const share = big(a.share_amount);
      const [minA, minB] = [big(a.min_a), big(a.min_b)];
      if (share < 0n || minA < 0n || minB < 0n) fail(E.NegativeInputProvided);
      env.requireAuth(a.sender);
      const c = config(env);
      const [pa, pb] = poolBalances(env);
      const total = lp.total(env);
      if (total === 0n) fail(E.TotalSharesEqualZero);
      const ratio = decimalFromRatio(share, total);
      const outA = mulDecimal(pa, ratio);
      const outB = mulDecimal(pb, ratio);
      if (outA < minA || outB < minB) fail(E.WithdrawLiquidityMinimumAmountOfAOrBIsNotSatisfied);
      lp.burn(env, a.sender, share);
      tokenTransfer(env, c.token_a, env.currentContract, a.sender, outA);
      tokenTransfer(env, c.token_b, env.currentContract, a.sender, outB);
      savePoolBalances(env, pa - outA, pb - outB);
      emit(env, "withdraw_liquidity", "sender", a.sender, T.address);
      emit(env, "withdraw_liquidity", "shares_amount", share, T.i128);
      emit(env, "withdraw_liquidity", "return_amount_a", outA, T.i128);
      emit(env, "withdraw_liquidity", "return_amount_b", outB, T.i128);
      return [outA, outB];
    },

    query_config: (env) => config(env),
    query_share_token_address: (env) => config(env).share_token,
    query_stake_contract_address: (env) => config(env).stake_contract,
    query_pool_info: (env) => poolResponse(env),
    query_pool_info_for_factory: (env) => ({
      pool_address: env.currentContract,
      pool_response: poolResponse(env),
      total_fee_bps: config(env).total_fee_bps,
    }),

    simulate_swap(env, a: { offer_asset: string; offer_amount: bigint }) {
      const c = config(env);
      const f = fault(env);
      if (f.transient) fail(E.TransientVenueError);
      const [offerPool, askPool] = sides(env, c, a.offer_asset);
      const cs = phoenixComputeSwap(offerPool, askPool, big(a.offer_amount), c.total_fee_bps);
      const ask = applySkew(cs.returnAmount, f.skewBps);
      return {
        ask_amount: ask,
        commission_amount: cs.commissionAmount,
        spread_amount: cs.spreadAmount,
        total_return: cs.returnAmount + cs.commissionAmount + cs.spreadAmount,
      };
    },

    simulate_reverse_swap(env, a: { ask_asset: string; ask_amount: bigint }) {
      const c = config(env);
      const f = fault(env);
      if (f.transient) fail(E.TransientVenueError);
      const [pa, pb] = poolBalances(env);
      let offerPool: bigint;
      let askPool: bigint;
      if (a.ask_asset === c.token_b) [offerPool, askPool] = [pa, pb];
      else if (a.ask_asset === c.token_a) [offerPool, askPool] = [pb, pa];
      else return fail(E.AssetNotInPool);
      const r = phoenixComputeOfferAmount(offerPool, askPool, big(a.ask_amount), c.total_fee_bps);
      return {
        commission_amount: r.commissionAmount,
        offer_amount: r.offerAmount,
        spread_amount: r.spreadAmount,
      };
    },

    query_share(env, { amount }: { amount: bigint }) {
      const p = poolResponse(env);
      const total = p.asset_lp_share.amount;
      const ratio = total === 0n ? 0n : decimalFromRatio(big(amount), total);
      return [
        { address: p.asset_a.address, amount: mulDecimal(p.asset_a.amount, ratio) },
        { address: p.asset_b.address, amount: mulDecimal(p.asset_b.amount, ratio) },
      ];
    },
    query_total_issued_lp: (env) => lp.total(env),
    balance: (env, { id }: { id: string }) => lp.balance(env, id),
  },
};
