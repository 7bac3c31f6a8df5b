/**
 * Deploys the local market's two DEX venues — both Soroswap-ABI Wasm deployments (factory, router
 * and pairs each) — on a local node and seeds their liquidity.
 *
 * The Wasm is ours (`contracts/wasm/soroswap_{factory,pair,router}.wasm`, sources in
 * `localnet/protocols/dex/contracts/soroswap_*`) unless {@link DexDeployOptions.wasm} gives other files, e.g. the
 * official Soroswap Wasm loaded with {@link loadDexWasm} (`--protocol-wasm DIR`). Each venue is
 * set up as on the real network: the factory is `initialize(setter, pair_wasm_hash)`d with the
 * uploaded pair Wasm, the router `initialize(factory)`d, and every pair is created by the
 * factory's permissionless `create_pair` (so its address is the deterministic one routers
 * compute). Liquidity tokens are put straight into each pair (a SAC `mint` by the issuer when the
 * token is mintable, else a `transfer` from `admin`, which must hold it), then booked as the
 * admin's LP position with `pair.deposit(admin)` — what `add_liquidity` does after its transfers.
 *
 * Uses only the in-process Localnet API (`uploadWasm`, `deployWasm`, `invoke` with mocked auth).
 *
 * @module
 */
import { sortTokens } from "./math.ts";
import { WORLD_WASM_DIR } from "../world_contracts.ts";

/** What the deploy helpers need from a node (the in-process Localnet API fits). */
export interface DexHost {
  uploadWasm(wasm: Uint8Array): Promise<Uint8Array>;
  deployWasm(wasm: Uint8Array, args?: unknown[]): Promise<string>;
  invoke<R = unknown>(
    contractId: string,
    fn: string,
    args?: Record<string, unknown> | unknown[],
    opts?: { source?: string },
  ): Promise<R>;
}

/** The three Soroswap-ABI Wasm modules a venue is made of. */
export interface DexWasm {
  factory: Uint8Array;
  pair: Uint8Array;
  router: Uint8Array;
  /** Where they came from (for logs), e.g. "contracts/wasm" or the `--protocol-wasm` folder. */
  source: string;
}

/** File names looked up in a `--protocol-wasm` folder, and the exports each must have. */
export const DEX_WASM_FILES = {
  factory: {
    file: "soroswap_factory.wasm",
    exports: ["initialize", "create_pair", "get_pair", "pair_exists", "fee_to_setter"],
  },
  pair: {
    file: "soroswap_pair.wasm",
    exports: ["initialize", "deposit", "swap", "withdraw", "get_reserves", "balance", "transfer"],
  },
  router: {
    file: "soroswap_router.wasm",
    exports: [
      "initialize",
      "add_liquidity",
      "remove_liquidity",
      "swap_exact_tokens_for_tokens",
      "swap_tokens_for_exact_tokens",
      "router_get_amounts_out",
      "router_get_amounts_in",
      "router_pair_for",
    ],
  },
} as const;

const OUR_WASM = WORLD_WASM_DIR;

/**
 * Reads and checks the three Wasm files of `dir` (default: ours, `contracts/wasm/`). Throws an
 * error naming the file when one is missing, not Wasm, or lacks an export the market uses.
 */
export async function loadDexWasm(dir?: string): Promise<DexWasm> {
  let base = OUR_WASM;
  if (dir !== undefined) {
    try {
      base = new URL(`file://${Deno.realPathSync(dir)}/`);
    } catch (e) {
      throw new Error(`Soroswap Wasm folder ${dir}: cannot be read (${(e as Error).name})`);
    }
  }
  const out: Record<string, Uint8Array> = {};
  for (const [kind, { file, exports }] of Object.entries(DEX_WASM_FILES)) {
    const url = new URL(file, base);
    const path = decodeURIComponent(url.pathname);
    let bytes: Uint8Array;
    try {
      bytes = await Deno.readFile(url);
    } catch (e) {
      throw new Error(
        `Soroswap ${kind} Wasm ${path}: cannot be read (${
          (e as Error).name
        }); expected ${file} in the folder`,
      );
    }
    let mod: WebAssembly.Module;
    try {
      mod = await WebAssembly.compile(bytes as BufferSource);
    } catch (e) {
      throw new Error(`Soroswap ${kind} Wasm ${path}: not a Wasm module (${(e as Error).message})`);
    }
    const have = new Set(WebAssembly.Module.exports(mod).map((x) => x.name));
    const missing = exports.filter((x) => !have.has(x));
    if (missing.length > 0) {
      throw new Error(
        `Soroswap ${kind} Wasm ${path}: lacks the export(s) ${
          missing.join(", ")
        } — not a Soroswap ${kind}`,
      );
    }
    out[kind] = bytes;
  }
  return {
    factory: out.factory,
    pair: out.pair,
    router: out.router,
    source: dir ?? "contracts/wasm",
  };
}

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
  /** Admin of both venues (factory fee setter — also the fault-switch admin — and LP owner). */
  admin: string;
  /** Token contract ids by name, e.g. `{usdc: "C…", xlm: "C…"}`. */
  tokens: Record<string, string>;
  liquidity: LiquiditySeed[];
  /** The Wasm to deploy (default ours, {@link loadDexWasm}()). */
  wasm?: DexWasm;
}

/** One deployed Soroswap-ABI venue. */
export interface DexVenue {
  router: string;
  factory: string;
  /** Pairs by `"<a>/<b>"` (names as given in the seed). */
  pairs: Record<string, string>;
}

/** Ids of everything {@link deployDexes} deployed. */
export interface DexDeployment {
  /** The primary venue's router (the spec's PRIMARY_DEX_ROUTER). */
  primary_dex_router: string;
  /** The fallback venue's router, a second Soroswap-ABI deployment (FALLBACK_DEX_ROUTER). */
  fallback_dex_router: string;
  /** The primary venue's factory. */
  soroswap_factory: string;
  /** The fallback venue's factory. */
  fallback_factory: string;
  /** Primary pairs by `"<a>/<b>"`. */
  soroswap_pairs: Record<string, string>;
  /** Fallback pairs by `"<a>/<b>"`. */
  fallback_pairs: Record<string, string>;
  /** Where the Wasm came from. */
  wasm_source: string;
}

/** Puts `amount` of `token` into contract `to`: issuer mint if possible, else from `admin`. */
async function fund(host: DexHost, token: string, admin: string, to: string, amount: bigint) {
  try {
    await host.invoke(token, "mint", [to, amount]);
  } catch {
    await host.invoke(token, "transfer", [admin, to, amount], { source: admin });
  }
}

/** Deploys one venue: factory (initialized with the uploaded pair Wasm) and router. */
export async function deployVenue(
  host: DexHost,
  admin: string,
  wasm: DexWasm,
): Promise<{ factory: string; router: string }> {
  const pairHash = await host.uploadWasm(wasm.pair);
  const factory = await host.deployWasm(wasm.factory);
  await host.invoke(factory, "initialize", { setter: admin, pair_wasm_hash: pairHash }, {
    source: admin,
  });
  const router = await host.deployWasm(wasm.router);
  await host.invoke(router, "initialize", { factory }, { source: admin });
  return { factory, router };
}

/** Creates the pair of `a`/`b` with the factory and seeds it; returns the pair. */
export async function seedPair(
  host: DexHost,
  factory: string,
  admin: string,
  a: string,
  b: string,
  amountA: bigint,
  amountB: bigint,
): Promise<string> {
  const [t0] = sortTokens(a, b);
  const [amt0, amt1] = a === t0 ? [amountA, amountB] : [amountB, amountA];
  const t1 = a === t0 ? b : a;
  const pair = await host.invoke<string>(factory, "create_pair", { token_a: a, token_b: b }, {
    source: admin,
  });
  await fund(host, t0, admin, pair, amt0);
  await fund(host, t1, admin, pair, amt1);
  await host.invoke(pair, "deposit", { to: admin });
  return pair;
}

/** Deploys both Soroswap-ABI venues and seeds the given liquidity. */
export async function deployDexes(
  host: DexHost,
  opts: DexDeployOptions,
): Promise<DexDeployment> {
  const { admin } = opts;
  const wasm = opts.wasm ?? await loadDexWasm();
  const idOf = (t: string) => opts.tokens[t] ?? t;
  const primary = await deployVenue(host, admin, wasm);
  const fallback = await deployVenue(host, admin, wasm);
  const soroswap_pairs: Record<string, string> = {};
  const fallback_pairs: Record<string, string> = {};
  for (const seed of opts.liquidity) {
    const key = `${seed.a}/${seed.b}`;
    const [a, b] = [idOf(seed.a), idOf(seed.b)];
    const venues = seed.venues ?? ["primary", "fallback"];
    if (venues.includes("primary")) {
      soroswap_pairs[key] = await seedPair(
        host,
        primary.factory,
        admin,
        a,
        b,
        seed.amountA,
        seed.amountB,
      );
    }
    if (venues.includes("fallback")) {
      fallback_pairs[key] = await seedPair(
        host,
        fallback.factory,
        admin,
        a,
        b,
        seed.amountA,
        seed.amountB,
      );
    }
  }
  return {
    primary_dex_router: primary.router,
    fallback_dex_router: fallback.router,
    soroswap_factory: primary.factory,
    fallback_factory: fallback.factory,
    soroswap_pairs,
    fallback_pairs,
    wasm_source: wasm.source,
  };
}
