/**
 * The chain a newcomer's first run uses: the dev chain (XLM + USDC SACs, dev accounts), optionally
 * the liquidation market (Blend pools, oracle, DEXes, allocation vault, borrowers) with the
 * `localnet_shock` control method, and Vigil's vault, registry and liquidator (flash executor),
 * deployed after the market so the vault's flash policy can name its pools and primary router.
 *
 * Shared by `main.ts localnet [--scenario market]` and `main.ts demo`.
 *
 * @module
 */
import { type Localnet, startLocalnet } from "@vigil/localnet/node";
import { type DevAccount, type DevChain, setupDevChain } from "@vigil/localnet/dev_setup";
import { deployMarket, type Market, registerShock } from "@vigil/localnet/scenarios/market";
import type { DexWasm } from "@vigil/localnet/protocols/dex/deploy";
import {
  deployVigil,
  type VigilConfig,
  type VigilDeployment,
} from "@vigil/contracts/deploy/deploy_vigil";

/** What `localnet.json` holds (mode 0600: it has the dev accounts' secrets). */
export interface LocalnetOut {
  rpcUrl: string;
  networkPassphrase: string;
  friendbotUrl: string;
  contracts: Record<string, string>;
  accounts: Record<string, DevAccount>;
  /**
   * Names of the depositor dev accounts: the only ones the pages' development wallet may hold
   * (never a keeper's, the issuer's or an admin's key).
   */
  depositors: string[];
}

/** Depositor dev accounts of the default dev chain. */
export const DEFAULT_DEPOSITORS = ["alice", "bob"];

/** A started chain with everything deployed. */
export interface DevNetwork {
  net: Localnet;
  dev: DevChain;
  vigil: VigilDeployment;
  /** Present with the market scenario. */
  market?: Market;
  out: LocalnetOut;
}

/** Options of {@link startDevNetwork}. */
export interface DevNetworkOptions {
  port?: number;
  hostname?: string;
  ledgerMs?: number;
  /** Deploy the liquidation market (`--scenario market`). */
  market?: boolean;
  /** Blend pools of the market, 1–3 (`--pools`; default 1). Needs `market`. */
  pools?: number;
  /** Ledgers of history the node keeps (`--retention-ledgers`; default stellar-rpc's 7 days). */
  retentionLedgers?: number;
  /** Dev accounts to create besides the USDC issuer (default alice, bob, keeper1, keeper2). */
  accounts?: string[];
  /** Rebalance manager of the allocation vault (a keeper's account). */
  rebalanceManager?: string;
  /** Which of `accounts` are depositors (default: alice and bob, when created). */
  depositors?: string[];
  /** Vigil's configuration over the testnet limits (the demo: {@link DEMO_VIGIL_CONFIG}). */
  vigilConfig?: VigilConfig;
  /** The market's DEX Wasm (default Vigil's Soroswap-ABI contracts; `--protocol-wasm DIR`). */
  dexWasm?: DexWasm;
}

/**
 * The demo's vault configuration: the profit of a flash enters the share price over 300 s of
 * ledger time (the testnet default is 24 h) — about a minute of wall time at the demo's 200 ms
 * ledgers, which advance the ledger clock 1 s each (≈ 5× wall time) — so the share price
 * visibly rises while the demo runs. The withdraw cooldown is 300 s of ledger time (about a
 * minute of wall time), so a visitor can withdraw what they deposited within a couple of real
 * minutes. Queued admin changes wait 7200 s (the vault requires ≥ the cooldown + 3600 s).
 */
export const DEMO_VIGIL_CONFIG: VigilConfig = {
  profit_unlock_secs: 300n,
  withdraw_cooldown: 300n,
  policy_delay: 7200n,
};

/** Starts a node and deploys the dev chain, Vigil and (optionally) the market and its pools. */
export async function startDevNetwork(opts: DevNetworkOptions = {}): Promise<DevNetwork> {
  // Before the node starts: a bad combination costs nothing.
  if (opts.pools !== undefined && opts.pools !== 1 && !opts.market) {
    throw new Error("more than one pool needs the market scenario");
  }
  const net = await startLocalnet({
    port: opts.port,
    hostname: opts.hostname,
    ledgerMs: opts.ledgerMs,
    retentionLedgers: opts.retentionLedgers,
  });
  try {
    const dev = await setupDevChain(net, { accounts: opts.accounts });
    const accounts: Record<string, DevAccount> = { ...dev.accounts };
    let market: Market | undefined;
    if (opts.market) {
      // The market first: Vigil's flash policy names its lending pool and primary router.
      // keeper1 (when the dev chain has one) holds the allocation vault's rebalance role.
      const rebalanceManager = opts.rebalanceManager ?? dev.accounts.keeper1?.public;
      market = await deployMarket(net, dev, {
        rebalanceManager,
        dexWasm: opts.dexWasm,
        pools: opts.pools,
      });
      Object.assign(accounts, market.accounts);
      registerShock(net, market.contracts.oracle, market.accounts.market_admin.public);
    }
    const vigil = await deployVigil(net, {
      usdc: dev.contracts.usdc,
      config: opts.vigilConfig,
      policy: market ? marketPolicy(market) : undefined,
    });
    const contracts: Record<string, string> = {
      ...dev.contracts,
      vault: vigil.vault,
      registry: vigil.registry,
      liquidator: vigil.liquidator,
      ...market?.contracts,
    };
    await net.closeLedgers(1);
    const out: LocalnetOut = {
      rpcUrl: net.rpcUrl,
      networkPassphrase: net.networkPassphrase,
      friendbotUrl: net.friendbotUrl,
      contracts,
      accounts,
      depositors: (opts.depositors ?? DEFAULT_DEPOSITORS).filter((n) => n in dev.accounts),
    };
    return { net, dev, vigil, market, out };
  } catch (e) {
    await net.close();
    throw e;
  }
}

/**
 * The flash policy Vigil gets next to the market: its lending pools (all of them, `lending_pool`
 * first), its primary router (the
 * Soroswap ABI; the fallback router — a second Soroswap-ABI deployment — is not listed, see
 * keeper/README.md) and the
 * hop tokens a keeper's swap path may pass through: the market's reserve tokens other than USDC
 * (XLM and WETH, oracle-priced; the keeper routes a lot through one of them when that quotes
 * better than the direct pair). No token a keeper could issue itself is ever listed.
 */
export function marketPolicy(
  market: Market,
): { pools: string[]; routers: string[]; tokens: string[] } {
  const c = market.contracts;
  return {
    pools: market.pools.map((p) => p.id),
    routers: [c.primary_dex_router].filter((r): r is string => r !== undefined),
    tokens: [c.xlm, c.weth].filter((t): t is string => t !== undefined),
  };
}

/** Writes `localnet.json` with mode 0600 (it holds dev secrets; never printed). */
export async function writeOutFile(file: string, out: LocalnetOut): Promise<void> {
  await Deno.writeTextFile(file, JSON.stringify(out, null, 2) + "\n", { mode: 0o600 });
  // `mode` applies only on creation; an existing file keeps its old mode otherwise.
  await Deno.chmod(file, 0o600);
}
