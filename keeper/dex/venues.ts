/**
 * DEX venues the swap client can use: Soroswap-ABI routers (the local market's primary and
 * fallback venues are two Soroswap-ABI deployments; the official Soroswap router speaks the same
 * ABI). Quote `router_get_amounts_out(amount_in, path)` (last element), swap
 * `swap_exact_tokens_for_tokens(amount_in, amount_out_min, path, to, deadline)`.
 *
 * A configured router's spec is read at start-up: a contract whose spec lacks
 * `router_get_amounts_out` is not a Soroswap-ABI router and becomes a venue of unknown kind (the
 * liquidator's flash never uses it; see `flashVenueProblem`).
 *
 * @module
 */
import type { Keypair } from "@stellar/stellar-sdk";
import { type AuthShape, is, sacTransfer } from "@vigil/soroban/auth_guard";
import type { ChainRpc } from "@vigil/soroban/rpc";
import { ledgerNow } from "@vigil/soroban/ledger";
import { big, native, sv } from "@vigil/soroban/scval";
import type { PairReserves } from "./joint.ts";
import {
  invokeContract,
  type InvokeOptions,
  type InvokeResult,
  simulateRead,
} from "@vigil/soroban/tx";

/** One swap venue. */
export interface Venue {
  /** Label for logs, e.g. "primary (soroswap)". */
  readonly name: string;
  readonly contractId: string;
  /** The router ABI, for swaps inside the liquidator's flash (absent: usable only directly). */
  readonly kind?: "soroswap";
  /** Expected output of swapping `amountIn` of `tokenIn` for `tokenOut` (read-only). */
  quote(chain: ChainRpc, tokenIn: string, tokenOut: string, amountIn: bigint): Promise<bigint>;
  /**
   * Expected output of swapping `amountIn` along `path` (first token in, last out; read-only).
   * Only venues that can route through intermediate tokens have it (Soroswap ABI).
   */
  quotePath?(chain: ChainRpc, path: string[], amountIn: bigint): Promise<bigint>;
  /**
   * Input needed for exactly `amountOut` of `path`'s last token (`router_get_amounts_in`, first
   * element; read-only). Soroswap-ABI venues only: the liquidator's buy legs use it too.
   */
  quoteIn?(chain: ChainRpc, path: string[], amountOut: bigint): Promise<bigint>;
  /** Reserves of the pair of two tokens, in the order asked (constant-product venues). */
  pairReserves?: PairReserves;
  /** Swaps exactly `amountIn`, failing on chain if the output is below `minOut`. */
  swap(
    chain: ChainRpc,
    keypair: Keypair,
    tokenIn: string,
    tokenOut: string,
    amountIn: bigint,
    minOut: bigint,
  ): Promise<InvokeResult>;
}

/** Seconds a swap's on-chain deadline lies ahead of the ledger clock. */
export const SWAP_DEADLINE_SEC = 120;

/**
 * What a Soroswap swap may have the keeper authorize beneath the router call: the pair pulling
 * exactly the input, `tokenIn.transfer(keeper, pair, amountIn)`.
 */
export function soroswapSwapAuth(
  keeper: string,
  tokenIn: string,
  pair: string,
  amountIn: bigint,
): AuthShape {
  return { subs: [sacTransfer(tokenIn, keeper, is.address(pair, "the pair"), amountIn)] };
}

/** A Soroswap-router venue. */
export function soroswapVenue(label: string, router: string, opts: InvokeOptions = {}): Venue {
  const pairs = new Map<string, Promise<string>>();
  // The pair a swap pulls its input into, from the router (one read per pair, cached).
  const pairFor = (chain: ChainRpc, a: string, b: string) => {
    const key = `${a}/${b}`;
    let p = pairs.get(key);
    if (!p) {
      p = simulateRead(chain, router, "router_pair_for", [sv.address(a), sv.address(b)])
        .then((r) => native<string>(r.retval));
      p.catch(() => pairs.delete(key));
      pairs.set(key, p);
    }
    return p;
  };
  const quotePath = async (chain: ChainRpc, path: string[], amountIn: bigint) => {
    const r = await simulateRead(chain, router, "router_get_amounts_out", [
      sv.i128(amountIn),
      sv.addresses(path),
    ]);
    const amounts = native<unknown[]>(r.retval);
    return big(amounts[amounts.length - 1]);
  };
  const quoteIn = async (chain: ChainRpc, path: string[], amountOut: bigint) => {
    const r = await simulateRead(chain, router, "router_get_amounts_in", [
      sv.i128(amountOut),
      sv.addresses(path),
    ]);
    return big(native<unknown[]>(r.retval)[0]);
  };
  const token0 = new Map<string, Promise<string>>();
  // Soroswap pairs hold (reserve0, reserve1) of their sorted tokens; token_0 says which is which.
  const pairReserves: PairReserves = async (chain, a, b) => {
    const pair = await pairFor(chain, a, b);
    let t0 = token0.get(pair);
    if (!t0) {
      t0 = simulateRead(chain, pair, "token_0").then((r) => native<string>(r.retval));
      t0.catch(() => token0.delete(pair));
      token0.set(pair, t0);
    }
    const [first, r] = await Promise.all([t0, simulateRead(chain, pair, "get_reserves")]);
    const [r0, r1] = native<unknown[]>(r.retval).map(big);
    return first === a ? [r0, r1] : [r1, r0];
  };
  return {
    name: `${label} (soroswap)`,
    contractId: router,
    kind: "soroswap",
    quote: (chain, tokenIn, tokenOut, amountIn) => quotePath(chain, [tokenIn, tokenOut], amountIn),
    quotePath,
    quoteIn,
    pairReserves,
    async swap(chain, keypair, tokenIn, tokenOut, amountIn, minOut) {
      const me = keypair.publicKey();
      const pair = await pairFor(chain, tokenIn, tokenOut);
      return invokeContract(chain, keypair, router, "swap_exact_tokens_for_tokens", [
        sv.i128(amountIn),
        sv.i128(minOut),
        sv.addresses([tokenIn, tokenOut]),
        sv.address(me),
        sv.u64(ledgerNow(chain) + SWAP_DEADLINE_SEC),
      ], { ...opts, auth: soroswapSwapAuth(me, tokenIn, pair, amountIn) });
    },
  };
}

/** The function whose presence in a router's spec marks the Soroswap ABI. */
const SOROSWAP_MARKER = "router_get_amounts_out";

/**
 * Builds the venue for a configured router from its contract spec (`getContractMethods`: the
 * instance and code entries, two reads at start-up). A router whose spec cannot be read is
 * assumed to speak the Soroswap ABI; one whose spec lacks {@link SOROSWAP_MARKER} keeps the
 * Soroswap calls (they will fail as venue errors) but no kind, so no flash uses it.
 */
export async function detectVenue(
  chain: ChainRpc,
  label: string,
  contractId: string,
  opts: InvokeOptions = {},
): Promise<Venue> {
  let names: string[] | undefined;
  try {
    const methods = await chain.server.getContractMethods(contractId, chain.networkPassphrase);
    names = methods.map((m) => m.name);
  } catch {
    // Unknown spec (e.g. a native or unreadable contract): assume the Soroswap ABI.
  }
  const venue = soroswapVenue(label, contractId, opts);
  if (names === undefined || names.includes(SOROSWAP_MARKER)) return venue;
  return { ...venue, name: `${label} (unknown ABI)`, kind: undefined };
}
