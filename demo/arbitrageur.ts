/**
 * The demo market's arbitrageur: keeps the DEX pairs' prices near the oracle, as arbitrageurs
 * trading against centralised exchanges keep Soroswap near the CEX price on the real network.
 *
 * Without it the pairs drift away from the oracle over a long run: every flash fill by a Vigil
 * keeper sells collateral into the pairs while the market driver walks the oracle on its own, so
 * after some minutes the DEX value of a lot falls below a flash's cost and the race bench measures
 * drift instead of racing.
 *
 * Once per closed ledger (checked every `tickMs`, default 500 ms), for every pair of the market's tokens on each
 * venue (the primary and the fallback Soroswap-ABI factory), it compares the pair's mid price
 * with the oracle's. Outside a band of {@link DEFAULT_BAND_BPS} (0.5 %: the pair's 0.3 % fee plus
 * a 0.2 % margin for the other leg of a CEX arbitrage) it buys the cheap token through the
 * venue's router, just enough to bring the price back to the band's edge: never inside the band,
 * never past the oracle. So the pairs stay within ±0.5 % of the oracle and a keeper still finds
 * the small edge a fresh shock or its own sale leaves, as on mainnet.
 *
 * It acts like the market driver: through the node's in-process API with mocked auth, as its own
 * account, whose inventory is topped up (the CEX side of its trades) whenever a swap needs more.
 * It draws nothing at random, so a seeded demo run stays replayable.
 *
 * @module
 */
import { Asset, Keypair } from "@stellar/stellar-sdk";
import type { Localnet } from "@vigil/localnet/node";
import type { Market } from "@vigil/localnet/scenarios/market";
import { seedTrustline } from "@vigil/localnet/dev_setup";
import { getAmountOut, sortTokens } from "@vigil/localnet/protocols/dex/math";
import { stellarAsset } from "@vigil/localnet/protocols/oracle/contract/spec";

const E7 = 10_000_000n;
const BPS = 10_000n;

/** The band around the oracle price inside which the arbitrageur leaves a pair alone (bps). */
export const DEFAULT_BAND_BPS = 50;

/** A Soroswap-ABI venue: the factory that knows its pairs and the router to swap through. */
export interface ArbVenue {
  name: string;
  factory: string;
  router: string;
}

/** Options of {@link startArbitrageur}. */
export interface ArbitrageurOptions {
  /** Milliseconds between two checks for a new ledger (default 500); one look per ledger. */
  tickMs?: number;
  /** Half-width of the band around the oracle price, in bps (default {@link DEFAULT_BAND_BPS}). */
  bandBps?: number;
  /** Venues to watch (default the market's primary and fallback venues). */
  venues?: ArbVenue[];
  /** Where it reports each arbitrage (one human line each). */
  log?: (line: string) => void;
  /**
   * Report only arbitrages that corrected a pair by at least this many bps (default 0: all).
   * The driver's walk keeps a pair at the band's edge, so small ones come about once a second.
   */
  logMinBps?: number;
}

/** A running arbitrageur. */
export interface Arbitrageur {
  /** Stops; resolves once the look in progress has finished. */
  stop(): Promise<void>;
  /** What it has done so far. */
  readonly stats: { looks: number; swaps: number; skipped: number; errors: number };
  /** Its account (the `to` of its swaps). */
  readonly account: string;
}

/**
 * The amount of the input token to swap into a pair so that the output token, cheap in the pair,
 * rises to the band's lower edge: the largest `x` such that afterwards
 * `rIn'·pIn ≤ rOut'·pOut·(1 − band)` (the pair still values the output token at or below the
 * oracle price less the band), with Soroswap's exact fee and rounding ({@link getAmountOut}).
 * 0 when the output token is not cheaper than the band, or when no swap would buy a single unit.
 * Prices are the oracle's (same decimals for both tokens); the tokens have the same decimals.
 */
export function arbitrageAmount(
  rIn: bigint,
  rOut: bigint,
  pIn: bigint,
  pOut: bigint,
  bandBps: number,
): bigint {
  if (rIn <= 0n || rOut <= 0n || pIn <= 0n || pOut <= 0n) return 0n;
  const edge = BPS - BigInt(bandBps);
  // Holds while the pair still values the output token at or below the band's lower edge.
  const atOrBelow = (x: bigint) => {
    const out = x === 0n ? 0n : getAmountOut(x, rIn, rOut);
    return (rIn + x) * pIn * BPS <= (rOut - out) * pOut * edge;
  };
  if (!atOrBelow(0n)) return 0n;
  // The condition turns false as x grows (more in, less left out): double, then bisect.
  let hi = 1n;
  while (atOrBelow(hi)) hi *= 2n;
  let lo = hi / 2n;
  while (hi - lo > 1n) {
    const mid = (lo + hi) / 2n;
    if (atOrBelow(mid)) lo = mid;
    else hi = mid;
  }
  return lo > 0n && getAmountOut(lo, rIn, rOut) > 0n ? lo : 0n;
}

/**
 * How far the pair's price of `b` (in `a`) is from the oracle's, in bps: positive when the pair
 * values `b` above the oracle.
 */
export function deviationBps(ra: bigint, rb: bigint, pa: bigint, pb: bigint): number {
  return Number(((ra * pa - rb * pb) * BPS * 100n) / (rb * pb)) / 100;
}

/** One pair the arbitrageur watches. */
interface WatchedPair {
  venue: string;
  pair: string;
  /** Token names (keys of the market's contracts), in the pair's token_0, token_1 order. */
  names: [string, string];
  tokens: [string, string];
}

/** Starts the arbitrageur on `market`'s DEX venues (nothing to do without them). */
export function startArbitrageur(
  net: Localnet,
  market: Market,
  opts: ArbitrageurOptions = {},
): Arbitrageur {
  const tickMs = opts.tickMs ?? 500;
  const band = opts.bandBps ?? DEFAULT_BAND_BPS;
  const log = opts.log ?? (() => {});
  const c = market.contracts;
  const venues = opts.venues ?? [
    { name: "primary", factory: c.soroswap_factory, router: c.primary_dex_router },
    { name: "fallback", factory: c.fallback_factory, router: c.fallback_dex_router },
  ].filter((v) => v.factory !== undefined && v.router !== undefined);
  const names = Object.keys(market.prices).filter((n) => c[n] !== undefined);
  const account = Keypair.random().publicKey();
  const stats = { looks: 0, swaps: 0, skipped: 0, errors: 0 };
  // Pairs reported once as too small to trade (not again every ledger).
  const quiet = new Set<string>();
  let pairs: WatchedPair[] | undefined;
  let lastLedger = -1;
  let stopped = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let running: Promise<void> = Promise.resolve();

  async function setup(): Promise<WatchedPair[]> {
    await net.fund(account, 1_000n);
    const found: WatchedPair[] = [];
    for (const v of venues) {
      for (let i = 0; i < names.length; i++) {
        for (let j = i + 1; j < names.length; j++) {
          const [a, b] = [c[names[i]], c[names[j]]];
          const args = { token_a: a, token_b: b };
          if (!await net.view<boolean>(v.factory, "pair_exists", args)) continue;
          const pair = await net.view<string>(v.factory, "get_pair", args);
          const [t0, t1] = sortTokens(a, b);
          const n0 = t0 === a ? names[i] : names[j];
          const n1 = t0 === a ? names[j] : names[i];
          found.push({ venue: v.name, pair, names: [n0, n1], tokens: [t0, t1] });
        }
      }
    }
    // Trustlines for the classic assets it will receive (native XLM needs none).
    for (const name of names) {
      const asset = await classicAsset(c[name]);
      if (asset && !asset.isNative()) seedTrustline(net, account, asset, 0n);
    }
    return found;
  }

  async function classicAsset(token: string): Promise<Asset | undefined> {
    // A Stellar Asset Contract names its asset "native" or "CODE:ISSUER".
    const name = await net.view<string>(token, "name", []).catch(() => undefined);
    if (name === undefined) return undefined;
    if (name === "native") return Asset.native();
    const [code, issuer] = name.split(":");
    return issuer ? new Asset(code, issuer) : undefined;
  }

  /** Tops its balance of `token` up to at least `need` (the CEX side of the arbitrage). */
  async function ensureBalance(token: string, need: bigint): Promise<void> {
    const have = await net.view<bigint>(token, "balance", { id: account });
    if (have >= need) return;
    const asset = await classicAsset(token);
    if (!asset) throw new Error(`cannot top up ${token}: not a Stellar asset`);
    // Twice the shortfall: fewer top-ups; native XLM is credited in whole units.
    const more = (need - have) * 2n;
    if (asset.isNative()) await net.fund(account, more / E7 + 1n);
    else seedTrustline(net, account, asset, more);
  }

  async function oraclePrices(): Promise<Record<string, bigint>> {
    const out: Record<string, bigint> = {};
    for (const name of names) {
      const p = await net.view<{ price: bigint } | undefined>(c.oracle, "lastprice", {
        asset: stellarAsset(c[name]),
      });
      if (p) out[name] = BigInt(p.price);
    }
    return out;
  }

  async function arbitrage(w: WatchedPair, prices: Record<string, bigint>): Promise<void> {
    const [p0, p1] = [prices[w.names[0]], prices[w.names[1]]];
    if (p0 === undefined || p1 === undefined) return;
    const [r0, r1] = await net.view<[bigint, bigint]>(w.pair, "get_reserves", []);
    const key = `${w.venue}:${w.pair}`;
    const label = `${w.venue} ${w.names[0].toUpperCase()}/${w.names[1].toUpperCase()}`;
    if (r0 <= 0n || r1 <= 0n) {
      // An emptied pair has no price to correct.
      if (!quiet.has(key)) log(`arbitrage: ${label} has no liquidity; leaving it`);
      quiet.add(key);
      return;
    }
    // At most one direction is outside the band.
    let side = 0;
    let amountIn = arbitrageAmount(r0, r1, p0, p1, band); // token_1 cheap: pay token_0
    if (amountIn === 0n) {
      side = 1;
      amountIn = arbitrageAmount(r1, r0, p1, p0, band); // token_0 cheap: pay token_1
    }
    const [iIn, iOut] = side === 0 ? [0, 1] : [1, 0];
    const [rIn, rOut] = side === 0 ? [r0, r1] : [r1, r0];
    const [pIn, pOut] = side === 0 ? [p0, p1] : [p1, p0];
    if (amountIn === 0n) {
      // How much cheaper than the oracle the pair values its cheaper token. A pair just traded
      // sits at the band's edge (within a unit's rounding): only a bp beyond it is news.
      const dev = -Math.min(deviationBps(r0, r1, p0, p1), deviationBps(r1, r0, p1, p0));
      if (dev > band + 1 && !quiet.has(key)) {
        quiet.add(key);
        stats.skipped++;
        log(
          `arbitrage: ${label} is ${(dev / 100).toFixed(2)}% off the oracle ` +
            `but too small to trade (reserves ${r0}/${r1}); leaving it`,
        );
      }
      return;
    }
    quiet.delete(key);
    const out = getAmountOut(amountIn, rIn, rOut);
    const before = deviationBps(rIn, rOut, pIn, pOut);
    await ensureBalance(w.tokens[iIn], amountIn);
    const venue = venues.find((v) => v.name === w.venue)!;
    // amount_out_min = the quote: if the reserves moved toward the oracle meanwhile, the swap
    // fails (and the next ledger looks again) rather than pushing the price past the oracle.
    await net.invoke(venue.router, "swap_exact_tokens_for_tokens", {
      amount_in: amountIn,
      amount_out_min: out,
      path: [w.tokens[iIn], w.tokens[iOut]],
      to: account,
      deadline: net.latestLedger().closeTime + 3600n,
    }, { source: account });
    stats.swaps++;
    const after = deviationBps(rIn + amountIn, rOut - out, pIn, pOut);
    const bought = w.names[iOut].toUpperCase();
    if (after - before < (opts.logMinBps ?? 0)) return;
    log(
      `arbitrage: ${label} valued ${bought} ${fmtBps(before)} vs the oracle → paid ` +
        `${fmt7(amountIn)} ${w.names[iIn].toUpperCase()} for ${fmt7(out)} ${bought}, ` +
        `now ${fmtBps(after)}`,
    );
  }

  async function look(): Promise<void> {
    const seq = net.latestLedger().sequence;
    if (seq === lastLedger) return;
    lastLedger = seq;
    stats.looks++;
    pairs ??= await setup();
    if (pairs.length === 0) return;
    const prices = await oraclePrices();
    for (const w of pairs) {
      if (stopped) return;
      try {
        await arbitrage(w, prices);
      } catch (e) {
        stats.errors++;
        log(
          `arbitrage: ${w.venue} ${w.names.join("/").toUpperCase()} failed: ${
            e instanceof Error ? e.message.split("\n")[0] : e
          }`,
        );
      }
    }
  }

  const loop = () => {
    if (stopped) return;
    running = look().catch((e) => {
      stats.errors++;
      log(`arbitrageur error: ${e instanceof Error ? e.message.split("\n")[0] : e}`);
    }).finally(() => {
      if (!stopped) timer = setTimeout(loop, tickMs);
    });
  };
  timer = setTimeout(loop, 0);

  return {
    stats,
    account,
    async stop() {
      stopped = true;
      if (timer !== undefined) clearTimeout(timer);
      await running;
    },
  };
}

function fmtBps(bps: number): string {
  return `${bps >= 0 ? "+" : ""}${(bps / 100).toFixed(2)}%`;
}

/** 7-decimal amount as a short decimal string. */
function fmt7(v: bigint): string {
  const whole = v / E7;
  const frac = (v % E7).toString().padStart(7, "0").slice(0, 4);
  return `${whole}.${frac}`;
}
