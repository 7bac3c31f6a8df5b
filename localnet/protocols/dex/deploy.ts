/**
 * Deploys both DEX venues on a local node and seeds their liquidity.
 *
 * Uses only the in-process Localnet API (`deployContract`, `invoke` with mocked auth), so it is
 * fast enough for scenarios and benchmarks. Liquidity tokens are put straight into each pair/pool
 * contract (a SAC `mint` by the issuer when the token is mintable, else a `transfer` from
 * `admin`, e.g. for native XLM, which `admin` must hold), then booked as the admin's LP position
 * (`pair.deposit(admin)` — what `add_liquidity` does after its transfers — and the Phoenix pool's
 * stand-in `seed(admin)`).
 *
 * @module
 */
import type { DeployTarget } from "../deploy_target.ts";
import { soroswapFactory } from "./soroswap/factory.ts";
import { soroswapPair } from "./soroswap/pair.ts";
import { soroswapRouter } from "./soroswap/router.ts";
import { phoenixFactory } from "./phoenix/factory.ts";
import { phoenixMultihop } from "./phoenix/multihop.ts";
import { phoenixPool } from "./phoenix/pool.ts";
import { sortTokens } from "./math.ts";
import { register } from "../../host/registry.ts";

/** What the deploy helpers need from a Localnet: the shared {@link DeployTarget}. */
export type DexHost = DeployTarget;

/** Initial liquidity of one pair: token names (keys of `tokens`) or contract ids. */
export interface LiquiditySeed {
  a: string;
  b: string;
  amountA: bigint;
  amountB: bigint;
  /** Which venues get this pair (default both). */
  venues?: ("primary" | "fallback")[];
}

/** Options of {@link deployDexes}. */
export interface DexDeployOptions {
  /** Admin of both venues (fault switches, factory setter, LP owner); a G account. */
  admin: string;
  /** Token contract ids by name, e.g. `{usdc: "C…", xlm: "C…"}`. */
  tokens: Record<string, string>;
  liquidity: LiquiditySeed[];
  /** Phoenix pool swap fee (default 30 bps). */
  phoenixFeeBps?: number;
  /** Phoenix pool `max_allowed_spread_bps` (default 1000 = 10 % price impact). */
  phoenixMaxSpreadBps?: number;
  /**
   * Receiver of the Phoenix pools' swap fees (default: the Phoenix factory contract, which
   * needs no trustline; a G account must hold a trustline for every ask token).
   */
  phoenixFeeRecipient?: string;
}

/** Ids of everything {@link deployDexes} deployed. */
export interface DexDeployment {
  /** Soroswap router (the spec's PRIMARY_DEX_ROUTER). */
  primary_dex_router: string;
  /** Phoenix multihop (the spec's FALLBACK_DEX_ROUTER). */
  fallback_dex_router: string;
  soroswap_factory: string;
  phoenix_factory: string;
  /** Soroswap pairs by `"<a>/<b>"` (names as given in the seed). */
  soroswap_pairs: Record<string, string>;
  /** Phoenix pools by `"<a>/<b>"`. */
  phoenix_pools: Record<string, string>;
}

/** Puts `amount` of `token` into contract `to`: issuer mint if possible, else from `admin`. */
async function fund(host: DeployTarget, token: string, admin: string, to: string, amount: bigint) {
  try {
    await host.invoke(token, "mint", [to, amount]);
  } catch {
    await host.invoke(token, "transfer", [admin, to, amount], { source: admin });
  }
}

/** Deploys the Soroswap and Phoenix stand-ins and seeds the given liquidity. */
export async function deployDexes(
  host: DeployTarget,
  opts: DexDeployOptions,
): Promise<DexDeployment> {
  const { admin } = opts;
  const idOf = (t: string) => opts.tokens[t] ?? t;

  // Primary: Soroswap factory + router. The factory's pair code is the pair module's stub Wasm,
  // so its permissionless `create_pair` deploys real pairs (the code entry is on the ledger once
  // the first pair below is deployed).
  const soroswap_factory = await host.deployContract(soroswapFactory);
  await host.invoke(soroswap_factory, "initialize", {
    setter: admin,
    pair_wasm_hash: register(soroswapPair).hash,
  }, { source: admin });
  const primary = await host.deployContract(soroswapRouter, { admin });
  await host.invoke(primary, "initialize", { factory: soroswap_factory }, { source: admin });

  // Fallback: Phoenix factory + multihop.
  const phoenix_factory = await host.deployContract(phoenixFactory, { admin });
  const fallback = await host.deployContract(phoenixMultihop);
  await host.invoke(fallback, "initialize", { admin, factory: phoenix_factory }, { source: admin });
  await host.invoke(phoenix_factory, "set_multihop", { multihop: fallback }, { source: admin });

  const soroswap_pairs: Record<string, string> = {};
  const phoenix_pools: Record<string, string> = {};
  for (const seed of opts.liquidity) {
    const key = `${seed.a}/${seed.b}`;
    const [a, b] = [idOf(seed.a), idOf(seed.b)];
    const venues = seed.venues ?? ["primary", "fallback"];
    const [t0] = sortTokens(a, b);
    const [amt0, amt1] = a === t0 ? [seed.amountA, seed.amountB] : [seed.amountB, seed.amountA];
    const t1 = a === t0 ? b : a;

    if (venues.includes("primary")) {
      const pair = await host.deployContract(soroswapPair);
      await host.invoke(soroswap_factory, "register_pair", {
        token_a: a,
        token_b: b,
        pair,
      }, { source: admin });
      await fund(host, t0, admin, pair, amt0);
      await fund(host, t1, admin, pair, amt1);
      await host.invoke(pair, "deposit", { to: admin });
      soroswap_pairs[key] = pair;
    }

    if (venues.includes("fallback")) {
      const pool = await host.deployContract(phoenixPool);
      await host.invoke(pool, "initialize", {
        admin,
        factory_addr: phoenix_factory,
        token_a: t0,
        token_b: t1,
        swap_fee_bps: BigInt(opts.phoenixFeeBps ?? 30),
        fee_recipient: opts.phoenixFeeRecipient ?? phoenix_factory,
        max_allowed_slippage_bps: 500n,
        max_allowed_spread_bps: BigInt(opts.phoenixMaxSpreadBps ?? 1000),
        max_allowed_fee_bps: 1000n,
      }, { source: admin });
      await host.invoke(phoenix_factory, "register_pool", { pool }, { source: admin });
      await fund(host, t0, admin, pool, amt0);
      await fund(host, t1, admin, pool, amt1);
      await host.invoke(pool, "seed", { to: admin }, { source: admin });
      phoenix_pools[key] = pool;
    }
  }

  return {
    primary_dex_router: primary,
    fallback_dex_router: fallback,
    soroswap_factory,
    phoenix_factory,
    soroswap_pairs,
    phoenix_pools,
  };
}
