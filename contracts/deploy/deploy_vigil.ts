/**
 * Deploys Vigil's Wasm contracts (registry, vault, liquidator) on a node through the same code as
 * `main.ts deploy` ({@link deployToNetwork} over JSON-RPC): a fresh funded deployer uploads the
 * Wasm and creates the contracts at ids derived from its address, each constructor getting the
 * other contract's id (the vault is wired from its first ledger; `set_registry` stays for a vault
 * created without one).
 *
 * @module
 */
import { Keypair } from "@stellar/stellar-sdk";
import { deployToNetwork, type FlashPolicy, type FlashPolicyOptions } from "./net.ts";
import type { VaultConfig } from "../clients/vault.ts";
import type { RegistryConfig } from "../clients/registry.ts";

/** What {@link deployVigil} needs from a node: its JSON-RPC URL and a way to fund an account. */
export interface VigilNode {
  readonly rpcUrl: string;
  fund(publicKey: string, xlm?: bigint): Promise<void>;
}

/** 1 USDC in 7-decimal units. */
export const USDC = 10_000_000n;

/** The spec's testnet limits. */
export const TESTNET_LIMITS = {
  min_stake: 100n * USDC,
  deposit_cap: 10_000_000n * USDC,
  withdraw_cooldown: 3600n,
  max_draw_per_keeper: 10_000n * USDC,
  min_fill_profit: 1n * USDC,
  policy_delay: 72n * 3600n,
  profit_unlock_secs: 24n * 3600n,
} as const;

/** Optional overrides of the deployed configuration. */
export interface VigilConfig {
  min_stake?: bigint;
  deposit_cap?: bigint;
  withdraw_cooldown?: bigint;
  max_draw_per_keeper?: bigint;
  min_fill_profit?: bigint;
  policy_delay?: bigint;
  profit_unlock_secs?: bigint;
}

/** Deployed ids. */
export interface VigilDeployment {
  vault: string;
  registry: string;
  /** Vigil's flash executor (the keeper's `vault.flash` executor for Blend liquidations). */
  liquidator: string;
  /** The admin both contracts were deployed with. */
  admin: string;
  /** The vault's flash policy as deployed (executors: the liquidator). */
  policy: FlashPolicy;
}

/** Splits a {@link VigilConfig} (over the testnet limits) into the two contracts' configs. */
export function vigilConfigs(
  usdc: string,
  config: VigilConfig = {},
): { vault: VaultConfig; registry: RegistryConfig } {
  const c = { ...TESTNET_LIMITS, ...config };
  return {
    vault: {
      deposit_cap: c.deposit_cap,
      max_draw_per_keeper: c.max_draw_per_keeper,
      min_fill_profit: c.min_fill_profit,
      policy_delay: c.policy_delay,
      profit_unlock_secs: c.profit_unlock_secs,
      withdraw_cooldown: c.withdraw_cooldown,
    },
    registry: {
      min_stake: c.min_stake,
      usdc_token: usdc,
    },
  };
}

/**
 * Deploys registry, vault and liquidator, wired to each other and to `usdc`, with the spec's
 * testnet limits (overridable through `config`). The vault's flash policy lists the liquidator as
 * its executor and `policy`'s pools and routers: where a market exists, deploy it FIRST and pass
 * `{ pools: [lending_pool, …every other pool], routers: [primary_dex_router] }` (the local
 * market's: `demo/dev_network.ts` `marketPolicy`; without them no liquidation is
 * allowed). Without `admin`, a fresh random key is used and
 * discarded: the configuration is then frozen (the local node's mocked-auth `invoke` can still act
 * as any address in tests). The deployer is a fresh account funded on `localnet` unless given.
 */
export async function deployVigil(
  localnet: VigilNode,
  opts: {
    usdc: string;
    admin?: string;
    config?: VigilConfig;
    deployer?: Keypair;
    policy?: FlashPolicyOptions;
  },
): Promise<VigilDeployment> {
  const admin = opts.admin ?? Keypair.random().publicKey();
  const deployer = opts.deployer ?? Keypair.random();
  if (!opts.deployer) await localnet.fund(deployer.publicKey());
  const { deployment } = await deployToNetwork({
    rpcUrl: localnet.rpcUrl,
    usdc: opts.usdc,
    admin,
    secret: deployer.secret(),
    config: { ...TESTNET_LIMITS, ...opts.config },
    policy: opts.policy,
  });
  const c = deployment.contracts;
  return {
    vault: c.vault,
    registry: c.registry,
    liquidator: c.liquidator,
    admin,
    policy: deployment.policy,
  };
}
