/**
 * Soroswap router stand-in (`soroswap/core` `contracts/router`): the primary DEX venue.
 *
 * Same functions, argument order, return shapes, auth (`to.require_auth()`, input pulled from
 * `to` straight to the first pair), events (`("SoroswapRouter", init|add|remove|swap)`, the first
 * topic a String as Rust `&str` encodes) and `CombinedRouterError` codes (501–515).
 *
 * Differences from the real router (documented in `localnet/protocols/dex/README.md`):
 * - Pair addresses come from the factory's registry (`get_pair`) instead of a deterministic
 *   `deployer.with_address(factory, salt)` address, so a missing pair is the typed 509
 *   PairDoesNotExist (the real router traps calling a contract that is not there).
 * - Test-only fault switch (admin = constructor argument): `set_fault(Transient(n))` fails every
 *   swap and path quote with 590 TransientVenueError while the fault is active;
 *   `set_fault(Skew(bps))` multiplies each hop's output by `(10000 - bps) / 10000` in quotes and
 *   swaps alike (the pair pays out less, the surplus stays in the pair).
 *
 * @module
 */
import {
  type ContractModule,
  defineSpec,
  type Env,
  fail,
  str,
  sym,
  T,
  type TypeDef,
  variant,
} from "../../../../contracts/sdk.ts";
import {
  big,
  FAULT_MODE_UNION,
  FAULT_STATE_STRUCT,
  faultState,
  getAddr,
  parseFaultMode,
  readFault,
  setAddr,
  skewOf,
  tokenTransfer,
  transientActive,
  type UnionValue,
  writeFault,
} from "../common.ts";
import {
  applySkew,
  getAmountIn,
  getAmountOut,
  quote,
  SoroswapLibraryError,
  sortTokens,
  unskew,
} from "../math.ts";

const K = {
  factory: variant("Factory"),
  admin: variant("StandInAdmin"),
  fault: variant("StandInFault"),
};

/** Router error codes (`CombinedRouterError`), plus the stand-in fault codes. */
export const ROUTER_ERRORS = {
  NotInitialized: 501,
  NegativeNotAllowed: 502,
  DeadlineExpired: 503,
  InitializeAlreadyInitialized: 504,
  InsufficientAAmount: 505,
  InsufficientBAmount: 506,
  InsufficientOutputAmount: 507,
  ExcessiveInputAmount: 508,
  PairDoesNotExist: 509,
  LibraryInsufficientAmount: 510,
  LibraryInsufficientLiquidity: 511,
  LibraryInsufficientInputAmount: 512,
  LibraryInsufficientOutputAmount: 513,
  LibraryInvalidPath: 514,
  LibrarySortIdenticalTokens: 515,
  /** Stand-in: the venue is (transiently) unavailable; retry later or use another venue. */
  TransientVenueError: 590,
  /** Stand-in: `set_fault` got an invalid mode (skew must be in [0, 10000)). */
  InvalidFaultMode: 591,
} as const;
const E = ROUTER_ERRORS;

/** Fields of `AddLiquidityEvent` and `RemoveLiquidityEvent` (alike in the real router too). */
const LIQUIDITY_EVENT_FIELDS: [string, TypeDef][] = [
  ["amount_a", T.i128],
  ["amount_b", T.i128],
  ["liquidity", T.i128],
  ["pair", T.address],
  ["to", T.address],
  ["token_a", T.address],
  ["token_b", T.address],
];

const spec = defineSpec({
  errorEnumName: "CombinedRouterError",
  errors: {
    RouterNotInitialized: [501, "SoroswapRouter: not yet initialized"],
    RouterNegativeNotAllowed: [502, "SoroswapRouter: negative amount is not allowed"],
    RouterDeadlineExpired: [503, "SoroswapRouter: deadline expired"],
    RouterInitializeAlreadyInitialized: [504, "SoroswapRouter: already initialized"],
    RouterInsufficientAAmount: [505, "SoroswapRouter: insufficient a amount"],
    RouterInsufficientBAmount: [506, "SoroswapRouter: insufficient b amount"],
    RouterInsufficientOutputAmount: [507, "SoroswapRouter: insufficient output amount"],
    RouterExcessiveInputAmount: [508, "SoroswapRouter: excessive input amount"],
    RouterPairDoesNotExist: [509, "SoroswapRouter: pair does not exist"],
    LibraryInsufficientAmount: [510, "SoroswapLibrary: insufficient amount"],
    LibraryInsufficientLiquidity: [511, "SoroswapLibrary: insufficient liquidity"],
    LibraryInsufficientInputAmount: [512, "SoroswapLibrary: insufficient input amount"],
    LibraryInsufficientOutputAmount: [513, "SoroswapLibrary: insufficient output amount"],
    LibraryInvalidPath: [514, "SoroswapLibrary: invalid path"],
    LibrarySortIdenticalTokens: [515, "SoroswapLibrary: token_a and token_b are identical"],
    TransientVenueError: [590, "Stand-in fault: venue transiently unavailable (retry later)"],
    InvalidFaultMode: [591, "Stand-in fault: invalid fault mode"],
  },
  unions: { FaultMode: FAULT_MODE_UNION },
  structs: {
    FaultState: FAULT_STATE_STRUCT,
    InitializedEvent: [["factory", T.address]],
    AddLiquidityEvent: LIQUIDITY_EVENT_FIELDS,
    RemoveLiquidityEvent: LIQUIDITY_EVENT_FIELDS,
    SwapEvent: [["amounts", T.vec(T.i128)], ["path", T.vec(T.address)], ["to", T.address]],
  },
  functions: [
    {
      name: "__constructor",
      doc: "Stand-in: sets the admin of the test fault switch.",
      inputs: [["admin", T.address]],
    },
    { name: "initialize", inputs: [["factory", T.address]] },
    {
      name: "add_liquidity",
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
      inputs: [
        ["amount_in", T.i128],
        ["amount_out_min", T.i128],
        ["path", T.vec(T.address)],
        ["to", T.address],
        ["deadline", T.u64],
      ],
      output: T.vec(T.i128),
    },
    {
      name: "swap_tokens_for_exact_tokens",
      inputs: [
        ["amount_out", T.i128],
        ["amount_in_max", T.i128],
        ["path", T.vec(T.address)],
        ["to", T.address],
        ["deadline", T.u64],
      ],
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
      doc: "Stand-in, admin only: None | Transient(ledgers, 0 = until cleared) | Skew(bps).",
      inputs: [["mode", T.udt("FaultMode")]],
    },
    { name: "get_fault", doc: "Stand-in: the current fault switch.", output: T.udt("FaultState") },
  ],
});

const TOPIC = str("SoroswapRouter");

/** Runs Soroswap library maths, turning its failures into the router's typed errors. */
function lib<R>(f: () => R): R {
  try {
    return f();
  } catch (e) {
    if (e instanceof SoroswapLibraryError) fail(e.code, e.message);
    throw e;
  }
}

function factoryOf(env: Env): string {
  return getAddr(env.storage.instance, K.factory) ?? fail(E.NotInitialized);
}

function nonNegative(...amounts: bigint[]): void {
  for (const a of amounts) if (a < 0n) fail(E.NegativeNotAllowed);
}

function ensureDeadline(env: Env, deadline: bigint): void {
  if (env.ledger.timestamp >= deadline) fail(E.DeadlineExpired);
}

/** Fails with the transient error while a transient fault is active; returns the skew bps. */
function faultGate(env: Env): number {
  const f = readFault(env.storage.instance, K.fault);
  if (transientActive(f, env.ledger.sequence)) fail(E.TransientVenueError);
  return skewOf(f);
}

/** The registered pair of two tokens (509 when none). */
function pairFor(env: Env, factory: string, a: string, b: string): string {
  lib(() => sortTokens(a, b));
  const r = env.tryCall<string>(factory, "get_pair", [a, b]);
  if (r.ok) return r.value;
  if (r.error.type === "Contract" && r.error.code === 205) fail(E.PairDoesNotExist);
  if (r.error.type === "Contract" && typeof r.error.code === "number") fail(r.error.code);
  throw new Error(`factory get_pair failed: ${r.error.message}`);
}

/** Reserves of the a/b pair in (a, b) order. */
function getReserves(env: Env, factory: string, a: string, b: string): [bigint, bigint] {
  const [t0] = lib(() => sortTokens(a, b));
  const pair = pairFor(env, factory, a, b);
  const [r0, r1] = env.call<[bigint, bigint]>(pair, "get_reserves");
  return a === t0 ? [big(r0), big(r1)] : [big(r1), big(r0)];
}

function amountsOut(env: Env, factory: string, amountIn: bigint, path: string[], skew: number) {
  if (path.length < 2) fail(E.LibraryInvalidPath);
  const amounts = [amountIn];
  for (let i = 0; i < path.length - 1; i++) {
    const [rIn, rOut] = getReserves(env, factory, path[i], path[i + 1]);
    amounts.push(applySkew(lib(() => getAmountOut(amounts[i], rIn, rOut)), skew));
  }
  return amounts;
}

function amountsIn(env: Env, factory: string, amountOut: bigint, path: string[], skew: number) {
  if (path.length < 2) fail(E.LibraryInvalidPath);
  const amounts = [amountOut];
  for (let i = path.length - 1; i > 0; i--) {
    const [rIn, rOut] = getReserves(env, factory, path[i - 1], path[i]);
    amounts.unshift(lib(() => getAmountIn(unskew(amounts[0], skew), rIn, rOut)));
  }
  return amounts;
}

/** Runs the hops; the input is already in the first pair. */
function runHops(env: Env, factory: string, amounts: bigint[], path: string[], to: string) {
  for (let i = 0; i < path.length - 1; i++) {
    const input = path[i];
    const output = path[i + 1];
    const [t0] = lib(() => sortTokens(input, output));
    const out = amounts[i + 1];
    const [out0, out1] = input === t0 ? [0n, out] : [out, 0n];
    const next = i < path.length - 2 ? pairFor(env, factory, output, path[i + 2]) : to;
    env.call(pairFor(env, factory, input, output), "swap", [out0, out1, next]);
  }
}

/** Pulls `amounts[0]` from `to` into the first pair, runs the hops and emits `swap`. */
function executeSwap(env: Env, factory: string, amounts: bigint[], path: string[], to: string) {
  const pair = pairFor(env, factory, path[0], path[1]);
  tokenTransfer(env, path[0], to, pair, amounts[0]);
  runHops(env, factory, amounts, path, to);
  env.emit([TOPIC, sym("swap")], env.toScVal({ amounts, path, to }, T.udt("SwapEvent")));
  return amounts;
}

interface SwapArgs {
  path: string[];
  to: string;
  deadline: bigint;
}

/** The Soroswap router stand-in (primary venue). */
export const soroswapRouter: ContractModule = {
  name: "soroswap_router",
  spec,
  functions: {
    __constructor(env, { admin }: { admin: string }) {
      setAddr(env.storage.instance, K.admin, admin);
    },

    initialize(env, { factory }: { factory: string }) {
      if (env.storage.instance.has(K.factory)) fail(E.InitializeAlreadyInitialized);
      setAddr(env.storage.instance, K.factory, factory);
      env.emit([TOPIC, sym("init")], env.toScVal({ factory }, T.udt("InitializedEvent")));
    },

    add_liquidity(
      env,
      a: {
        token_a: string;
        token_b: string;
        amount_a_desired: bigint;
        amount_b_desired: bigint;
        amount_a_min: bigint;
        amount_b_min: bigint;
        to: string;
        deadline: bigint;
      },
    ) {
      const factory = factoryOf(env);
      const [aDesired, bDesired, aMin, bMin] = [
        big(a.amount_a_desired),
        big(a.amount_b_desired),
        big(a.amount_a_min),
        big(a.amount_b_min),
      ];
      nonNegative(aDesired, bDesired, aMin, bMin);
      env.requireAuth(a.to);
      ensureDeadline(env, big(a.deadline));
      if (!env.call<boolean>(factory, "pair_exists", [a.token_a, a.token_b])) {
        env.call(factory, "create_pair", [a.token_a, a.token_b]);
      }
      const [rA, rB] = getReserves(env, factory, a.token_a, a.token_b);
      let amountA: bigint;
      let amountB: bigint;
      if (rA === 0n && rB === 0n) {
        [amountA, amountB] = [aDesired, bDesired];
      } else {
        const bOptimal = lib(() => quote(aDesired, rA, rB));
        if (bOptimal <= bDesired) {
          if (bOptimal < bMin) fail(E.InsufficientBAmount);
          [amountA, amountB] = [aDesired, bOptimal];
        } else {
          const aOptimal = lib(() => quote(bDesired, rB, rA));
          if (aOptimal > aDesired) throw new Error("assertion failed: amount_a_optimal <= desired");
          if (aOptimal < aMin) fail(E.InsufficientAAmount);
          [amountA, amountB] = [aOptimal, bDesired];
        }
      }
      const pair = pairFor(env, factory, a.token_a, a.token_b);
      tokenTransfer(env, a.token_a, a.to, pair, amountA);
      tokenTransfer(env, a.token_b, a.to, pair, amountB);
      const liquidity = big(env.call(pair, "deposit", [a.to]));
      env.emit(
        [TOPIC, sym("add")],
        env.toScVal(
          {
            amount_a: amountA,
            amount_b: amountB,
            liquidity,
            pair,
            to: a.to,
            token_a: a.token_a,
            token_b: a.token_b,
          },
          T.udt("AddLiquidityEvent"),
        ),
      );
      return [amountA, amountB, liquidity];
    },

    remove_liquidity(
      env,
      a: {
        token_a: string;
        token_b: string;
        liquidity: bigint;
        amount_a_min: bigint;
        amount_b_min: bigint;
        to: string;
        deadline: bigint;
      },
    ) {
      const factory = factoryOf(env);
      const liquidity = big(a.liquidity);
      const [aMin, bMin] = [big(a.amount_a_min), big(a.amount_b_min)];
      nonNegative(liquidity, aMin, bMin);
      env.requireAuth(a.to);
      ensureDeadline(env, big(a.deadline));
      if (!env.call<boolean>(factory, "pair_exists", [a.token_a, a.token_b])) {
        throw new Error("SoroswapRouter: pair does not exist");
      }
      const pair = pairFor(env, factory, a.token_a, a.token_b);
      env.call(pair, "transfer", [a.to, pair, liquidity]);
      const [o0, o1] = env.call<[bigint, bigint]>(pair, "withdraw", [a.to]);
      const [t0] = lib(() => sortTokens(a.token_a, a.token_b));
      const [amountA, amountB] = a.token_a === t0 ? [big(o0), big(o1)] : [big(o1), big(o0)];
      if (amountA < aMin) fail(E.InsufficientAAmount);
      if (amountB < bMin) fail(E.InsufficientBAmount);
      env.emit(
        [TOPIC, sym("remove")],
        env.toScVal(
          {
            amount_a: amountA,
            amount_b: amountB,
            liquidity,
            pair,
            to: a.to,
            token_a: a.token_a,
            token_b: a.token_b,
          },
          T.udt("RemoveLiquidityEvent"),
        ),
      );
      return [amountA, amountB];
    },

    swap_exact_tokens_for_tokens(
      env,
      a: SwapArgs & { amount_in: bigint; amount_out_min: bigint },
    ) {
      const factory = factoryOf(env);
      const amountIn = big(a.amount_in);
      const minOut = big(a.amount_out_min);
      nonNegative(amountIn, minOut);
      env.requireAuth(a.to);
      ensureDeadline(env, big(a.deadline));
      const skew = faultGate(env);
      const amounts = amountsOut(env, factory, amountIn, a.path, skew);
      if (amounts[amounts.length - 1] < minOut) fail(E.InsufficientOutputAmount);
      return executeSwap(env, factory, amounts, a.path, a.to);
    },

    swap_tokens_for_exact_tokens(
      env,
      a: SwapArgs & { amount_out: bigint; amount_in_max: bigint },
    ) {
      const factory = factoryOf(env);
      const amountOut = big(a.amount_out);
      const maxIn = big(a.amount_in_max);
      nonNegative(amountOut, maxIn);
      env.requireAuth(a.to);
      ensureDeadline(env, big(a.deadline));
      const skew = faultGate(env);
      const amounts = amountsIn(env, factory, amountOut, a.path, skew);
      if (amounts[0] > maxIn) fail(E.ExcessiveInputAmount);
      // With a skew fault the input was sized for the unskewed output; each pair still pays
      // out exactly amounts[i + 1], so the surplus stays in the pair.
      return executeSwap(env, factory, amounts, a.path, a.to);
    },

    get_factory: (env) => factoryOf(env),

    router_pair_for(env, { token_a, token_b }: { token_a: string; token_b: string }) {
      return pairFor(env, factoryOf(env), token_a, token_b);
    },

    router_quote: (_env, a: { amount_a: bigint; reserve_a: bigint; reserve_b: bigint }) =>
      lib(() => quote(big(a.amount_a), big(a.reserve_a), big(a.reserve_b))),

    router_get_amount_out: (
      _env,
      a: { amount_in: bigint; reserve_in: bigint; reserve_out: bigint },
    ) => lib(() => getAmountOut(big(a.amount_in), big(a.reserve_in), big(a.reserve_out))),

    router_get_amount_in: (
      _env,
      a: { amount_out: bigint; reserve_in: bigint; reserve_out: bigint },
    ) => lib(() => getAmountIn(big(a.amount_out), big(a.reserve_in), big(a.reserve_out))),

    router_get_amounts_out(env, { amount_in, path }: { amount_in: bigint; path: string[] }) {
      const factory = factoryOf(env);
      const skew = faultGate(env);
      return amountsOut(env, factory, big(amount_in), path, skew);
    },

    router_get_amounts_in(env, { amount_out, path }: { amount_out: bigint; path: string[] }) {
      const factory = factoryOf(env);
      const skew = faultGate(env);
      return amountsIn(env, factory, big(amount_out), path, skew);
    },

    set_fault(env, { mode }: { mode: UnionValue }) {
      const admin = getAddr(env.storage.instance, K.admin);
      if (admin === undefined) throw new Error("stand-in admin not set");
      env.requireAuth(admin);
      const rec = parseFaultMode(mode, env.ledger.sequence) ?? fail(E.InvalidFaultMode);
      writeFault(env.storage.instance, K.fault, rec);
    },

    get_fault(env) {
      return faultState(readFault(env.storage.instance, K.fault), env.ledger.sequence);
    },
  },
};
