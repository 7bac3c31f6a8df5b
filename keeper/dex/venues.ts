/**
 * DEX venues the swap client can use, each speaking its real protocol's ABI:
 * - Soroswap router: quote `router_get_amounts_out(amount_in, path)` (last element),
 *   swap `swap_exact_tokens_for_tokens(amount_in, amount_out_min, path, to, deadline)`.
 * - Phoenix multihop: quote `simulate_swap(operations, amount, pool_type)` (`ask_amount`),
 *   swap `swap(recipient, operations, max_spread_bps, amount, pool_type, deadline,
 *   max_allowed_fee_bps)` (returns nothing: proceeds are a balance delta anyway).
 *
 * The kind of a configured router is detected from its contract spec (its function names), so
 * PRIMARY_DEX_ROUTER / FALLBACK_DEX_ROUTER can point at either.
 *
 * @module
 */
import { type Keypair, xdr } from "@stellar/stellar-sdk";
import { anyContract, argsOf, type AuthShape, call, is, sacTransfer } from "../chain/auth_guard.ts";
import type { ChainRpc } from "../chain/rpc.ts";
import { ledgerNow } from "../chain/ledger.ts";
import { big, native, sv } from "../chain/scval.ts";
import type { PairReserves } from "./joint.ts";
import {
  invokeContract,
  type InvokeOptions,
  type InvokeResult,
  simulateRead,
} from "../chain/tx.ts";

/** One swap venue. */
export interface Venue {
  /** Label for logs, e.g. "primary (soroswap)". */
  readonly name: string;
  readonly contractId: string;
  /** The router ABI, for swaps inside the liquidator's flash (absent: usable only directly). */
  readonly kind?: "soroswap" | "phoenix";
  /** Expected output of swapping `amountIn` of `tokenIn` for `tokenOut` (read-only). */
  quote(chain: ChainRpc, tokenIn: string, tokenOut: string, amountIn: bigint): Promise<bigint>;
  /**
   * Expected output of swapping `amountIn` along `path` (first token in, last out; read-only).
   * Only venues that can route through intermediate tokens have it (Soroswap).
   */
  quotePath?(chain: ChainRpc, path: string[], amountIn: bigint): Promise<bigint>;
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

/**
 * What a Phoenix multihop swap may have the keeper authorize beneath the multihop call: one
 * pool's `swap(keeper, tokenIn, amountIn, …)` (the keeper cannot name the pool the multihop
 * picks), and beneath it only that pool pulling the input, `tokenIn.transfer(keeper, pool, x)`
 * with x ≤ amountIn.
 */
export function phoenixSwapAuth(keeper: string, tokenIn: string, amountIn: bigint): AuthShape {
  const poolSwap = call(
    anyContract("the Phoenix pool of the pair"),
    "swap",
    argsOf(
      ["sender", is.address(keeper, "the keeper")],
      ["offer_asset", is.address(tokenIn, "the input token")],
      ["offer_amount", is.value(sv.i128(amountIn))],
      ["ask_asset_min_amount", is.any()],
      ["max_spread_bps", is.any()],
      ["deadline", is.any()],
      ["max_allowed_fee_bps", is.any()],
    ),
    { subs: [sacTransfer(tokenIn, keeper, is.parentContract(), amountIn)] },
  );
  return { subs: [poolSwap] };
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

/** A Phoenix-multihop venue (single hop, XYK pools). */
export function phoenixVenue(label: string, multihop: string, opts: InvokeOptions = {}): Venue {
  // `Swap { ask_asset, ask_asset_min_amount: Option<i128>, offer_asset }`, keys sorted.
  const ops = (tokenIn: string, tokenOut: string, minOut?: bigint) =>
    sv.vec([
      sv.struct({
        ask_asset: sv.address(tokenOut),
        ask_asset_min_amount: minOut === undefined ? none() : sv.i128(minOut),
        offer_asset: sv.address(tokenIn),
      }),
    ]);
  return {
    name: `${label} (phoenix)`,
    contractId: multihop,
    kind: "phoenix",
    async quote(chain, tokenIn, tokenOut, amountIn) {
      const r = await simulateRead(chain, multihop, "simulate_swap", [
        ops(tokenIn, tokenOut),
        sv.i128(amountIn),
        sv.u32(0),
      ]);
      const v = native<{ ask_amount: unknown }>(r.retval);
      return big(v.ask_amount);
    },
    swap(chain, keypair, tokenIn, tokenOut, amountIn, minOut) {
      const me = keypair.publicKey();
      return invokeContract(chain, keypair, multihop, "swap", [
        sv.address(me),
        ops(tokenIn, tokenOut, minOut),
        none(),
        sv.i128(amountIn),
        sv.u32(0),
        sv.u64(ledgerNow(chain) + SWAP_DEADLINE_SEC),
        none(),
      ], { ...opts, auth: phoenixSwapAuth(me, tokenIn, amountIn) });
    },
  };
}

/** `Option::None`. */
function none(): xdr.ScVal {
  return xdr.ScVal.scvVoid();
}

/** Function names that identify a venue kind. */
const KIND_BY_FUNCTION: [string, "soroswap" | "phoenix"][] = [
  ["router_get_amounts_out", "soroswap"],
  ["simulate_swap", "phoenix"],
];

/**
 * Builds the venue for a configured router, detecting its ABI from its contract spec
 * (`getContractMethods`: the instance and code entries, two reads at start-up).
 */
export async function detectVenue(
  chain: ChainRpc,
  label: string,
  contractId: string,
  opts: InvokeOptions = {},
): Promise<Venue> {
  let names: string[] = [];
  try {
    const methods = await chain.server.getContractMethods(contractId, chain.networkPassphrase);
    names = methods.map((m) => m.name);
  } catch {
    // Unknown spec (e.g. a native or unreadable contract): assume the Soroswap ABI.
  }
  const kind = KIND_BY_FUNCTION.find(([fn]) => names.includes(fn))?.[1] ?? "soroswap";
  return kind === "phoenix"
    ? phoenixVenue(label, contractId, opts)
    : soroswapVenue(label, contractId, opts);
}
