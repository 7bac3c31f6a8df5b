/**
 * Soroswap's quote maths in TypeScript, for clients (the keeper's quotes) and as the bigint
 * reference the Wasm contracts (`localnet/protocols/dex/contracts/soroswap_*`) are tested against.
 *
 * - Soroswap (`soroswap/core` `library/src/quotes.rs`): the 0.3 % fee is `ceil(amount_in * 3 / 1000)`,
 *   taken from the input before the constant-product formula; the output floors. This differs by
 *   up to one unit from the UniswapV2 `* 997 / 1000` form that the JS `soroswap-router-sdk` uses,
 *   so a client that wants on-chain quotes to the unit must use {@link getAmountOut} here.
 *
 * All amounts are `bigint` in the token's smallest unit (7 decimals for SAC tokens).
 *
 * @module
 */
import { StrKey } from "@stellar/stellar-sdk";

/** Basis-point denominator. */
export const BPS = 10_000n;

/**
 * A Soroswap library failure, carrying the code the Soroswap router reports for it
 * (`CombinedRouterError`: 510 InsufficientAmount, 511 InsufficientLiquidity,
 * 512 InsufficientInputAmount, 513 InsufficientOutputAmount, 514 InvalidPath,
 * 515 SortIdenticalTokens).
 */
export class SoroswapLibraryError extends Error {
  constructor(readonly code: number, message: string) {
    super(message);
    this.name = "SoroswapLibraryError";
  }
}

/** `ceil(a / b)` for a >= 0, b > 0 (Soroswap's `checked_ceiling_div`). */
export function ceilDiv(a: bigint, b: bigint): bigint {
  const q = a / b;
  return a % b === 0n ? q : q + 1n;
}

/** Integer square root (floor), as `num_integer::Roots::sqrt` on i128. */
export function isqrt(n: bigint): bigint {
  if (n < 0n) throw new RangeError("isqrt of a negative number");
  if (n < 2n) return n;
  let x = BigInt(Math.floor(Math.sqrt(Number(n))));
  // Newton steps fix the float estimate for large values.
  while (x * x > n) x = (x + n / x) / 2n;
  while ((x + 1n) * (x + 1n) <= n) x += 1n;
  return x;
}

/** Soroswap `quote`: the amount of B equivalent to `amountA` at the reserves' ratio (floor). */
export function quote(amountA: bigint, reserveA: bigint, reserveB: bigint): bigint {
  if (amountA <= 0n) throw new SoroswapLibraryError(510, "insufficient amount");
  if (reserveA <= 0n || reserveB <= 0n) {
    throw new SoroswapLibraryError(511, "insufficient liquidity");
  }
  return (amountA * reserveB) / reserveA;
}

/** Soroswap's input fee for an input amount: `ceil(amountIn * 3 / 1000)`. */
export function soroswapFee(amountIn: bigint): bigint {
  return ceilDiv(amountIn * 3n, 1000n);
}

/**
 * Soroswap `get_amount_out`: the output of a swap of `amountIn` against the reserves, with the
 * 0.3 % fee rounded up and the output rounded down (exactly what the pair lets through).
 */
export function getAmountOut(amountIn: bigint, reserveIn: bigint, reserveOut: bigint): bigint {
  if (amountIn <= 0n) throw new SoroswapLibraryError(512, "insufficient input amount");
  if (reserveIn <= 0n || reserveOut <= 0n) {
    throw new SoroswapLibraryError(511, "insufficient liquidity");
  }
  const inLessFee = amountIn - soroswapFee(amountIn);
  return (inLessFee * reserveOut) / (reserveIn + inLessFee);
}

/**
 * Soroswap `get_amount_in`: the input needed for `amountOut`,
 * `ceil(reserveIn * amountOut * 1000 / ((reserveOut - amountOut) * 997)) + 1`.
 * An `amountOut` at or above the output reserve cannot be bought: 511 (the real library traps
 * on the zero/negative denominator; the stand-in reports it as insufficient liquidity).
 */
export function getAmountIn(amountOut: bigint, reserveIn: bigint, reserveOut: bigint): bigint {
  if (amountOut <= 0n) throw new SoroswapLibraryError(513, "insufficient output amount");
  if (reserveIn <= 0n || reserveOut <= 0n || amountOut >= reserveOut) {
    throw new SoroswapLibraryError(511, "insufficient liquidity");
  }
  return ceilDiv(reserveIn * amountOut * 1000n, (reserveOut - amountOut) * 997n) + 1n;
}

/**
 * Chained {@link getAmountOut} over `reserves[i] = [reserveIn, reserveOut]` of each hop; returns
 * `[amountIn, hop1Out, …, finalOut]` like `router_get_amounts_out`. `skewBps` (the stand-in's
 * price-skew fault, 0 normally) scales each hop's output by `(10000 - skewBps) / 10000`.
 */
export function getAmountsOut(
  amountIn: bigint,
  reserves: [bigint, bigint][],
  skewBps = 0,
): bigint[] {
  if (reserves.length < 1) throw new SoroswapLibraryError(514, "invalid path");
  const amounts = [amountIn];
  for (const [rIn, rOut] of reserves) {
    amounts.push(applySkew(getAmountOut(amounts[amounts.length - 1], rIn, rOut), skewBps));
  }
  return amounts;
}

/**
 * Chained {@link getAmountIn}, last hop first; returns `[neededIn, …, amountOut]` like
 * `router_get_amounts_in`. With a skew, each hop must produce enough pre-skew output that the
 * skewed output still covers the amount asked for.
 */
export function getAmountsIn(
  amountOut: bigint,
  reserves: [bigint, bigint][],
  skewBps = 0,
): bigint[] {
  if (reserves.length < 1) throw new SoroswapLibraryError(514, "invalid path");
  const amounts = [amountOut];
  for (let i = reserves.length - 1; i >= 0; i--) {
    const [rIn, rOut] = reserves[i];
    amounts.unshift(getAmountIn(unskew(amounts[0], skewBps), rIn, rOut));
  }
  return amounts;
}

/** Scales an output by the stand-in skew fault: `floor(amount * (10000 - skewBps) / 10000)`. */
export function applySkew(amount: bigint, skewBps: number): bigint {
  if (skewBps <= 0) return amount;
  return (amount * (BPS - BigInt(skewBps))) / BPS;
}

/** The smallest pre-skew amount whose skewed value is at least `amount`. */
export function unskew(amount: bigint, skewBps: number): bigint {
  if (skewBps <= 0) return amount;
  return ceilDiv(amount * BPS, BPS - BigInt(skewBps));
}

/**
 * The oracle-anchored slippage floor of the spec: a quote below
 * `refValue * (10000 - slippageBps) / 10000` is rejected (ErrSlippageExceeded).
 */
export function slippageFloor(refValue: bigint, slippageBps: number): bigint {
  if (!Number.isInteger(slippageBps) || slippageBps < 0 || slippageBps > 10_000) {
    throw new RangeError(`slippageBps out of [0, 10000]: ${slippageBps}`);
  }
  return (refValue * (BPS - BigInt(slippageBps))) / BPS;
}

// ---------------------------------------------------------------------------------------------
// Address ordering (Soroban `Address` Ord, used to sort pair tokens)
// ---------------------------------------------------------------------------------------------

function addressKey(a: string): [number, Uint8Array] {
  if (StrKey.isValidContract(a)) return [1, StrKey.decodeContract(a)];
  if (StrKey.isValidEd25519PublicKey(a)) return [0, StrKey.decodeEd25519PublicKey(a)];
  throw new TypeError(`not a G… or C… address: ${a}`);
}

/**
 * Compares two addresses the way the Soroban host orders `Address` values: by ScAddress arm
 * (account before contract), then by the raw 32 bytes. Strkey strings do not sort the same way.
 */
export function compareAddresses(a: string, b: string): number {
  const [ta, ba] = addressKey(a);
  const [tb, bb] = addressKey(b);
  if (ta !== tb) return ta - tb;
  for (let i = 0; i < 32; i++) {
    if (ba[i] !== bb[i]) return ba[i] - bb[i];
  }
  return 0;
}

/** Soroswap `sort_tokens`: `[token0, token1]`, or 515 for identical tokens. */
export function sortTokens(a: string, b: string): [string, string] {
  const c = compareAddresses(a, b);
  if (c === 0) throw new SoroswapLibraryError(515, "identical tokens");
  return c < 0 ? [a, b] : [b, a];
}
