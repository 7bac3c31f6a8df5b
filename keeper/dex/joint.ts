/**
 * Legs of one flash planned together. The liquidator runs a flash's swap legs one after the
 * other, so a leg whose path shares a pair with an earlier leg trades against the reserves that
 * leg left, not the ones its own on-chain quote saw. Quoting such a leg alone overstates it (an
 * XLM+WETH lot whose XLM leg routes XLM→WETH→USDC and whose WETH leg sells WETH→USDC: the second
 * swap met a WETH/USDC pair 1.4 WETH deeper and fell below its `min_out`, #507, in every cycle).
 * {@link quoteAfter} replays the earlier legs on the pairs' reserves with Soroswap's exact maths,
 * then quotes the candidate path on what they leave.
 *
 * Issue 24: a flash that repays non-USDC debt runs its buy legs (USDC → bid asset, exact output)
 * first, then its sell legs. Buys are passed as earlier legs with the USDC they cost as input, and
 * {@link quoteInAfter} quotes a later buy's exact output on the reserves the earlier buys leave.
 *
 * @module
 */
import type { ChainRpc } from "@vigil/soroban/rpc";

/** What {@link quoteAfter} needs of an earlier leg. */
export interface EarlierLeg {
  router: string;
  path: string[];
  amountIn: bigint;
}

/** Reads a pair's reserves of `tokenA` and `tokenB`, in that order. */
export type PairReserves = (
  chain: ChainRpc,
  tokenA: string,
  tokenB: string,
) => Promise<[bigint, bigint]>;

/**
 * Soroswap's `get_amount_out`: the 0.3 % fee rounded up (`ceil(in·3/1000)`), the output rounded
 * down — exactly what the pair's K check lets through.
 */
export function soroswapAmountOut(amountIn: bigint, reserveIn: bigint, reserveOut: bigint): bigint {
  if (amountIn <= 0n || reserveIn <= 0n || reserveOut <= 0n) return 0n;
  const fee = (amountIn * 3n + 999n) / 1000n;
  const inLessFee = amountIn - fee;
  return (inLessFee * reserveOut) / (reserveIn + inLessFee);
}

/**
 * Soroswap's `get_amount_in`: the input for exactly `amountOut`,
 * `ceil(reserveIn·out·1000 / ((reserveOut − out)·997)) + 1` — the router's `router_get_amounts_in`
 * per hop. Undefined when the pair cannot pay `amountOut`.
 */
export function soroswapAmountIn(
  amountOut: bigint,
  reserveIn: bigint,
  reserveOut: bigint,
): bigint | undefined {
  if (amountOut <= 0n || reserveIn <= 0n || reserveOut <= amountOut) return undefined;
  const num = reserveIn * amountOut * 1000n;
  const den = (reserveOut - amountOut) * 997n;
  return (num + den - 1n) / den + 1n;
}

/** The unordered pairs a path trades on. */
export function pairsOf(path: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i + 1 < path.length; i++) out.push(pairKey(path[i], path[i + 1]));
  return out;
}

function pairKey(a: string, b: string): string {
  return a < b ? `${a}|${b}` : `${b}|${a}`;
}

/** Whether `path` on `router` trades on a pair one of `earlier` traded on. */
export function sharesPair(
  router: string,
  path: readonly string[],
  earlier: EarlierLeg[],
): boolean {
  const used = new Set(earlier.filter((l) => l.router === router).flatMap((l) => pairsOf(l.path)));
  return pairsOf(path).some((p) => used.has(p));
}

/**
 * The output of `amountIn` along `path` on `router` once the `earlier` legs on the same router
 * have run: each pair's reserves are read once, every leg moves them (input added, output
 * removed), then the path is quoted on the result.
 */
export async function quoteAfter(
  chain: ChainRpc,
  router: string,
  reserves: PairReserves,
  earlier: EarlierLeg[],
  path: readonly string[],
  amountIn: bigint,
): Promise<bigint> {
  const sim = simulator(chain, reserves);
  for (const l of earlier) if (l.router === router) await sim.run(l.path, l.amountIn);
  return await sim.run(path, amountIn);
}

/**
 * The input an exact-output buy of `amountOut` along `path` on `router` needs once the `earlier`
 * legs on the same router have run (a buy leg runs before every sell leg, but after the buys
 * planned before it). Throws when a pair cannot pay the output.
 */
export async function quoteInAfter(
  chain: ChainRpc,
  router: string,
  reserves: PairReserves,
  earlier: EarlierLeg[],
  path: readonly string[],
  amountOut: bigint,
): Promise<bigint> {
  const sim = simulator(chain, reserves);
  for (const l of earlier) if (l.router === router) await sim.run(l.path, l.amountIn);
  let a = amountOut;
  for (let i = path.length - 1; i > 0; i--) {
    const s = await sim.pair(path[i - 1], path[i]);
    const need = soroswapAmountIn(a, s.get(path[i - 1])!, s.get(path[i])!);
    if (need === undefined) throw new Error(`pair ${path[i - 1]}/${path[i]} cannot pay ${a}`);
    a = need;
  }
  return a;
}

/** Pairs' reserves read once each and moved by every exact-input leg run on them. */
function simulator(chain: ChainRpc, reserves: PairReserves) {
  const state = new Map<string, Map<string, bigint>>();
  const pair = async (a: string, b: string): Promise<Map<string, bigint>> => {
    const key = pairKey(a, b);
    let s = state.get(key);
    if (!s) {
      const [ra, rb] = await reserves(chain, a, b);
      s = new Map([[a, ra], [b, rb]]);
      state.set(key, s);
    }
    return s;
  };
  const run = async (p: readonly string[], amount: bigint): Promise<bigint> => {
    let a = amount;
    for (let i = 0; i + 1 < p.length; i++) {
      const s = await pair(p[i], p[i + 1]);
      const out = soroswapAmountOut(a, s.get(p[i])!, s.get(p[i + 1])!);
      s.set(p[i], s.get(p[i])! + a);
      s.set(p[i + 1], s.get(p[i + 1])! - out);
      a = out;
    }
    return a;
  };
  return { pair, run };
}
