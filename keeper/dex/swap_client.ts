/**
 * DEX conversion of seized collateral to USDC (the spec's SwapToUSDC), exactly:
 *
 * 1. Venues in order: the primary router, then the fallback router (whichever are configured).
 * 2. Slippage floor: floor = refValue × (10000 − SLIPPAGE_BPS) / 10000, where refValue is the
 *    oracle-implied USDC value of the input. A quote below the floor is ErrSlippageExceeded and
 *    stops: no other venue is tried (the price is wrong, not the venue).
 * 3. A transient venue error — the quote failed, or the swap transaction was refused or FAILED
 *    (nothing moved) — tries the next venue. Every venue failing is ErrNoRoute.
 * 4. When the outcome of a sent swap is unknown (no confirmation before the poll deadline),
 *    no other venue is tried: funds may have moved. The error propagates.
 * 5. `amount_out_min` on chain = max(floor, quote × (10000 − SLIPPAGE_BPS) / 10000): execution
 *    can neither fall below the oracle floor nor slip more than SLIPPAGE_BPS from the quote.
 * 6. Proceeds are the keeper's measured USDC balance delta across the swap; a swap that was sent
 *    but did not raise the balance is an error (no profit can be booked from it).
 * 7. No automatic retries: a failure is retried, if at all, by the next cycle.
 *
 * @module
 */
import type { Keypair } from "@stellar/stellar-sdk";
import { describeError, ErrNoRoute, ErrSlippageExceeded, isAmbiguous } from "@vigil/soroban/errors";
import type { ChainRpc } from "@vigil/soroban/rpc";
import type { InvokeOptions } from "@vigil/soroban/tx";
import { tokenBalance } from "../token.ts";
import { detectVenue, type Venue } from "./venues.ts";
import { type EarlierLeg, quoteAfter, quoteInAfter, sharesPair } from "./joint.ts";

export { detectVenue, soroswapVenue, type Venue } from "./venues.ts";

/** A completed conversion. */
export interface SwapOutcome {
  /** Measured USDC balance delta. */
  proceeds: bigint;
  venue: string;
  txHash: string;
  quote: bigint;
  floor: bigint;
  minOut: bigint;
  /** Venues that failed before this one succeeded. */
  failures: { venue: string; error: string }[];
}

/** Options of {@link SwapClient}. */
export interface SwapClientOptions {
  usdc: string;
  /** Integer in [0, 10000]. */
  slippageBps: number;
  primary?: Venue;
  fallback?: Venue;
  /** Observer of venue failures (for logs/metrics). */
  onVenueError?: (venue: string, err: unknown) => void;
  /** Token balance reader (default: `balance` by simulation); injectable for tests. */
  balanceOf?: (chain: ChainRpc, token: string, holder: string) => Promise<bigint>;
}

/** One swap planned for the liquidator's flash (`SwapLeg` of contracts/liquidator). */
export interface PlannedLeg {
  router: string;
  /** The liquidator's `SwapKind`: always 0 (Soroswap router; kind 1 is refused on chain). */
  kind: number;
  path: string[];
  amountIn: bigint;
  /** max(oracle floor, quote less SLIPPAGE_BPS): enforced on chain by the router. */
  minOut: bigint;
  venue: string;
  quote: bigint;
  floor: bigint;
  /** Venues whose quote failed before this one. */
  failures: { venue: string; error: string }[];
}

/**
 * One exact-output buy planned for the liquidator's flash (`BuyLeg` of contracts/liquidator):
 * USDC → (a policy hop token) → the bid asset.
 */
export interface PlannedBuy {
  router: string;
  path: string[];
  amountOut: bigint;
  /** min(quote plus SLIPPAGE_BPS, ceiling): the most the liquidator may pay (it also checks). */
  maxIn: bigint;
  venue: string;
  /** The venue's USDC input for exactly `amountOut` (`router_get_amounts_in`, best path). */
  quote: bigint;
  /** The oracle value of `amountOut` plus the slippage bound: no buy above it is planned. */
  ceiling: bigint;
  /** The quote is above `ceiling`: the liquidator would refuse the buy (SwapAboveCeiling). */
  aboveCeiling: boolean;
  /** Venues whose quote failed before this one. */
  failures: { venue: string; error: string }[];
}

/**
 * Why `venue` cannot swap inside a flash under a policy whose routers are `routers`, or undefined
 * when it can. Vigil's liquidator swaps only on Soroswap-ABI routers the vault's flash policy
 * lists (its `SwapKind` 1, once Phoenix's multihop, is refused on chain).
 */
export function flashVenueProblem(
  venue: Venue,
  routers?: ReadonlySet<string>,
): string | undefined {
  if (venue.kind !== "soroswap") {
    return `${venue.kind ?? "unknown"} ABI: not usable inside a flash (Soroswap-ABI routers only)`;
  }
  if (routers && !routers.has(venue.contractId)) {
    return "router not in the vault's flash policy";
  }
  return undefined;
}

/**
 * The swap paths a flash may use from `tokenIn` to `usdc`: the direct pair, then one path through
 * each listed hop token (never `tokenIn` or `usdc` themselves: the liquidator refuses a token
 * twice in a path). Any other intermediate token is refused on chain (NotAllowed), so the keeper
 * never plans one.
 */
export function flashPaths(
  tokenIn: string,
  usdc: string,
  tokens: readonly string[] = [],
): string[][] {
  const hops = [...new Set(tokens)].filter((t) => t !== tokenIn && t !== usdc);
  return [[tokenIn, usdc], ...hops.map((t) => [tokenIn, t, usdc])];
}

/**
 * The buy paths a flash may use from `usdc` to `tokenOut`: the direct pair, then one path through
 * each listed hop token (never `tokenOut` or USDC themselves), as {@link flashPaths} on the sell
 * side.
 */
export function flashBuyPaths(
  tokenOut: string,
  usdc: string,
  tokens: readonly string[] = [],
): string[][] {
  return flashPaths(tokenOut, usdc, tokens).map((p) => [...p].reverse());
}

/** ceiling = refValue × (10000 + bps) / 10000, rounded down (never above the liquidator's). */
export function slippageCeiling(refValue: bigint, bps: number): bigint {
  return (refValue * BigInt(10_000 + bps)) / 10_000n;
}

/** floor = refValue × (10000 − bps) / 10000, rounded down. */
export function slippageFloor(refValue: bigint, bps: number): bigint {
  return (refValue * BigInt(10_000 - bps)) / 10_000n;
}

/** What of the vault's flash policy (and of the flash's other legs) a planned swap must respect. */
export interface FlashSwapPolicy {
  /** Routers the policy lists: only Soroswap-ABI venues among them are used inside a flash. */
  routers?: ReadonlySet<string>;
  maxSlippageBps?: number;
  /** The policy's hop tokens: a path is direct or passes through one of these. */
  tokens?: readonly string[];
  /**
   * Legs the same flash runs before this one: a candidate path sharing a pair with one of them
   * is quoted on the reserves they leave (`joint.ts`), not on today's.
   */
  earlier?: EarlierLeg[];
}

/** The keeper's DEX client: exists only when at least one router is configured. */
export class SwapClient {
  readonly usdc: string;
  readonly slippageBps: number;
  readonly venues: Venue[];
  #onVenueError?: (venue: string, err: unknown) => void;
  #balanceOf: (chain: ChainRpc, token: string, holder: string) => Promise<bigint>;

  constructor(opts: SwapClientOptions) {
    if (!Number.isInteger(opts.slippageBps) || opts.slippageBps < 0 || opts.slippageBps > 10_000) {
      throw new RangeError("slippageBps must be an integer in [0, 10000]");
    }
    this.usdc = opts.usdc;
    this.slippageBps = opts.slippageBps;
    this.venues = [opts.primary, opts.fallback].filter((v): v is Venue => v !== undefined);
    this.#onVenueError = opts.onVenueError;
    this.#balanceOf = opts.balanceOf ?? tokenBalance;
  }

  /** Builds the client from router addresses (either may be null), detecting each ABI. */
  static async create(
    chain: ChainRpc,
    opts: {
      usdc: string;
      slippageBps: number;
      primaryRouter: string | null;
      fallbackRouter: string | null;
      invoke?: InvokeOptions;
      onVenueError?: (venue: string, err: unknown) => void;
    },
  ): Promise<SwapClient> {
    const [primary, fallback] = await Promise.all([
      opts.primaryRouter
        ? detectVenue(chain, "primary", opts.primaryRouter, opts.invoke)
        : undefined,
      opts.fallbackRouter
        ? detectVenue(chain, "fallback", opts.fallbackRouter, opts.invoke)
        : undefined,
    ]);
    return new SwapClient({ ...opts, primary, fallback });
  }

  /** The venues usable inside a flash under a policy listing `routers` ({@link flashVenueProblem}). */
  flashVenues(routers?: ReadonlySet<string>): Venue[] {
    return this.venues.filter((v) => flashVenueProblem(v, routers) === undefined);
  }

  /**
   * Plans a swap of `amountIn` of `tokenIn` to USDC to run inside the liquidator's flash (one
   * transaction), with this module's venue rules: venues in order, the next one only after a
   * transient quote failure, a quote below the oracle floor stops (ErrSlippageExceeded), no
   * venue → ErrNoRoute. Only Soroswap-ABI venues whose router is in `policy.routers` (the vault's
   * flash policy; every Soroswap venue when absent) are used: the others are listed in
   * ErrNoRoute's failures without being asked. The slippage used is the tighter of SLIPPAGE_BPS
   * and `policy.maxSlippageBps` (the liquidator's own oracle floor), so a quote the liquidator
   * would refuse stops here instead of failing the flash's simulation.
   *
   * Paths (issue 20): the direct pair [tokenIn, USDC], and [tokenIn, t, USDC] for each hop token
   * t of `policy.tokens` (the liquidator refuses a path through any other token: NotAllowed).
   * A venue's candidates are quoted together and the best quote wins; a venue fails over to the
   * next only when every candidate's quote failed.
   */
  async planLeg(
    chain: ChainRpc,
    tokenIn: string,
    amountIn: bigint,
    refValue: bigint,
    policy: FlashSwapPolicy = {},
  ): Promise<PlannedLeg> {
    if (tokenIn === this.usdc) throw new Error("planLeg: input is already USDC");
    if (amountIn <= 0n) throw new RangeError("planLeg: amount must be positive");
    const routers = policy.routers;
    const bps = Math.min(this.slippageBps, policy.maxSlippageBps ?? this.slippageBps);
    const floor = slippageFloor(refValue, bps);
    const failures: { venue: string; error: string }[] = [];
    for (const venue of this.venues) {
      const problem = flashVenueProblem(venue, routers);
      if (problem) {
        failures.push({ venue: venue.name, error: problem });
        continue;
      }
      let best: { quote: bigint; path: string[] } | undefined;
      let firstErr: unknown;
      const paths = flashPaths(tokenIn, this.usdc, venue.quotePath ? policy.tokens : undefined);
      const earlier = policy.earlier ?? [];
      const quotes = await Promise.allSettled(
        paths.map((p) =>
          venue.pairReserves && sharesPair(venue.contractId, p, earlier)
            ? quoteAfter(chain, venue.contractId, venue.pairReserves, earlier, p, amountIn)
            : p.length === 2
            ? venue.quote(chain, tokenIn, this.usdc, amountIn)
            : venue.quotePath!(chain, p, amountIn)
        ),
      );
      for (const [i, q] of quotes.entries()) {
        if (q.status === "rejected") firstErr ??= q.reason;
        else if (!best || q.value > best.quote) best = { quote: q.value, path: paths[i] };
      }
      if (!best) {
        this.#failed(failures, venue, firstErr);
        continue;
      }
      const quote = best.quote;
      if (quote < floor) throw new ErrSlippageExceeded(venue.name, quote, floor);
      const fromQuote = slippageFloor(quote, bps);
      return {
        router: venue.contractId,
        kind: 0,
        path: best.path,
        amountIn,
        minOut: fromQuote > floor ? fromQuote : floor,
        venue: venue.name,
        quote,
        floor,
        failures,
      };
    }
    throw new ErrNoRoute(failures);
  }

  /**
   * Plans an exact-output buy of `amountOut` of `tokenOut` with USDC, to run inside the
   * liquidator's flash before its `submit` (issue 24). The venue rules of {@link planLeg}: venues
   * in order, Soroswap-ABI routers the policy lists only, the next venue only after every
   * candidate's quote failed (ErrNoRoute when none answered). Candidates: `[USDC, tokenOut]` and
   * `[USDC, t, tokenOut]` for each policy hop token; the cheapest `router_get_amounts_in` wins (on
   * the reserves the `earlier` buys leave when a path shares their pairs). `refCost` is the oracle
   * value of `amountOut` in USDC; the ceiling is `refCost` plus the tighter of SLIPPAGE_BPS and
   * the policy's `max_slippage_bps`, and `maxIn` = min(quote plus SLIPPAGE_BPS, ceiling). A quote
   * above the ceiling is returned flagged (`aboveCeiling`), not thrown: the caller prices the
   * whole liquidation first and says which limit refused it.
   */
  async planBuy(
    chain: ChainRpc,
    tokenOut: string,
    amountOut: bigint,
    refCost: bigint,
    policy: FlashSwapPolicy = {},
  ): Promise<PlannedBuy> {
    if (tokenOut === this.usdc) throw new Error("planBuy: output is USDC");
    if (amountOut <= 0n) throw new RangeError("planBuy: amount must be positive");
    const bps = Math.min(this.slippageBps, policy.maxSlippageBps ?? this.slippageBps);
    const ceiling = slippageCeiling(refCost, bps);
    const failures: { venue: string; error: string }[] = [];
    const earlier = policy.earlier ?? [];
    for (const venue of this.venues) {
      const problem = flashVenueProblem(venue, policy.routers);
      if (problem || !venue.quoteIn) {
        failures.push({ venue: venue.name, error: problem ?? "no exact-output quote" });
        continue;
      }
      const paths = flashBuyPaths(tokenOut, this.usdc, policy.tokens);
      const quotes = await Promise.allSettled(
        paths.map((p) =>
          venue.pairReserves && sharesPair(venue.contractId, p, earlier)
            ? quoteInAfter(chain, venue.contractId, venue.pairReserves, earlier, p, amountOut)
            : venue.quoteIn!(chain, p, amountOut)
        ),
      );
      let best: { quote: bigint; path: string[] } | undefined;
      let firstErr: unknown;
      for (const [i, q] of quotes.entries()) {
        if (q.status === "rejected") firstErr ??= q.reason;
        else if (q.value > 0n && (!best || q.value < best.quote)) {
          best = { quote: q.value, path: paths[i] };
        }
      }
      if (!best) {
        this.#failed(failures, venue, firstErr ?? new Error("no positive quote"));
        continue;
      }
      const withSlippage = (best.quote * BigInt(10_000 + this.slippageBps)) / 10_000n;
      return {
        router: venue.contractId,
        path: best.path,
        amountOut,
        maxIn: withSlippage < ceiling ? withSlippage : ceiling,
        venue: venue.name,
        quote: best.quote,
        ceiling,
        aboveCeiling: best.quote > ceiling,
        failures,
      };
    }
    throw new ErrNoRoute(failures);
  }

  /**
   * Swaps `amountIn` of `tokenIn` to USDC for the keeper, per the rules in this module's doc.
   * `refValue` is the oracle-implied USDC value of `amountIn` (USDC units).
   */
  async swapToUSDC(
    chain: ChainRpc,
    keypair: Keypair,
    tokenIn: string,
    amountIn: bigint,
    refValue: bigint,
  ): Promise<SwapOutcome> {
    if (tokenIn === this.usdc) throw new Error("swapToUSDC: input is already USDC");
    if (amountIn <= 0n) throw new RangeError("swapToUSDC: amount must be positive");
    const floor = slippageFloor(refValue, this.slippageBps);
    const failures: { venue: string; error: string }[] = [];
    const me = keypair.publicKey();
    for (const venue of this.venues) {
      let quote: bigint;
      try {
        quote = await venue.quote(chain, tokenIn, this.usdc, amountIn);
      } catch (err) {
        this.#failed(failures, venue, err);
        continue;
      }
      if (quote < floor) throw new ErrSlippageExceeded(venue.name, quote, floor);
      const fromQuote = slippageFloor(quote, this.slippageBps);
      const minOut = fromQuote > floor ? fromQuote : floor;
      const before = await this.#balanceOf(chain, this.usdc, me);
      let txHash: string;
      try {
        txHash = (await venue.swap(chain, keypair, tokenIn, this.usdc, amountIn, minOut)).hash;
      } catch (err) {
        if (isAmbiguous(err)) throw err; // may have landed: never try a second venue
        this.#failed(failures, venue, err);
        continue;
      }
      const after = await this.#balanceOf(chain, this.usdc, me);
      const proceeds = after - before;
      if (proceeds <= 0n) {
        throw new Error(
          `swap ${
            txHash.slice(0, 12)
          }… on ${venue.name} confirmed but the USDC balance did not increase`,
        );
      }
      return { proceeds, venue: venue.name, txHash, quote, floor, minOut, failures };
    }
    throw new ErrNoRoute(failures);
  }

  #failed(failures: { venue: string; error: string }[], venue: Venue, err: unknown): void {
    failures.push({ venue: venue.name, error: describeError(err) });
    this.#onVenueError?.(venue.name, err);
  }
}
