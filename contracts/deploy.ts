/**
 * Deploys Vigil's vault and keeper registry on the local node and wires them together.
 *
 * Wiring (the vault needs the registry's address and the registry needs the vault's):
 * 1. deploy the vault with `registry = None` (it answers NotInit to flash until wired);
 * 2. deploy the registry with the vault's address in its constructor;
 * 3. `vault.set_registry(registry)`: admin-only and one-time (AlreadyInitialized after that),
 *    so nobody can re-point a live vault at another registry.
 * 4. deploy the liquidator (Vigil's stateless flash executor: no constructor, no storage).
 * On a real network the deployer can instead precompute both contract ids from its address and
 * salts and pass the registry to the vault's constructor (the vault accepts it there too).
 *
 * @module
 */
import { Keypair } from "@stellar/stellar-sdk";
import type { DeployTarget } from "./deploy_target.ts";
import { type VaultConfig, vaultContract } from "./vault/mod.ts";
import { type RegistryConfig, registryContract } from "./registry/mod.ts";
import { liquidatorContract } from "./liquidator/mod.ts";

/** 1 USDC in 7-decimal units. */
export const USDC = 10_000_000n;

/** The spec's testnet limits. */
export const TESTNET_LIMITS = {
  min_stake: 100n * USDC,
  deposit_cap: 10_000_000n * USDC,
  withdraw_cooldown: 3600n,
  max_draw_per_keeper: 10_000n * USDC,
} as const;

/** Optional overrides of the deployed configuration. */
export interface VigilConfig {
  min_stake?: bigint;
  deposit_cap?: bigint;
  withdraw_cooldown?: bigint;
  max_draw_per_keeper?: bigint;
}

/** Deployed ids. */
export interface VigilDeployment {
  vault: string;
  registry: string;
  /** Vigil's flash executor (the keeper's `vault.flash` executor for Blend liquidations). */
  liquidator: string;
  /** The admin both contracts were deployed with. */
  admin: string;
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
      withdraw_cooldown: c.withdraw_cooldown,
    },
    registry: {
      min_stake: c.min_stake,
      usdc_token: usdc,
    },
  };
}

/**
 * Deploys registry and vault, wired to each other and to `usdc`, with the spec's testnet
 * limits (overridable through `config`). Without `admin`, a fresh random key is used and
 * discarded: the configuration is then frozen for good on a real network (the local node's
 * mocked-auth `invoke` can still act as any address in tests).
 */
export async function deployVigil(
  localnet: DeployTarget,
  opts: { usdc: string; admin?: string; config?: VigilConfig },
): Promise<VigilDeployment> {
  const admin = opts.admin ?? Keypair.random().publicKey();
  const cfg = vigilConfigs(opts.usdc, opts.config);
  const vault = await localnet.deployContract(vaultContract, {
    admin,
    usdc: opts.usdc,
    config: cfg.vault,
    registry: null,
  });
  const registry = await localnet.deployContract(registryContract, {
    admin,
    config: cfg.registry,
    vault,
  });
  await localnet.invoke(vault, "set_registry", { registry }, { source: admin });
  const liquidator = await localnet.deployContract(liquidatorContract, {});
  return { vault, registry, liquidator, admin };
}
