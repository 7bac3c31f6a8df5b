/**
 * Test stack for the web frontend: a fresh local node with the dev chain (USDC, funded
 * accounts), the vault and registry deployed, some on-chain history (a deposit, a keeper
 * registration, a settled liquidation with profit, half of it still unlocking, and a flash
 * policy and a config change the admin queued), and the real keeper daemon (monitor mode)
 * serving its API with the web pages mounted, plus — optionally — a second web server whose
 * keeper API URL points at a dead port ("keeper API down").
 *
 * Ledgers close only on demand here, so the ledger clock barely moves while a test runs.
 *
 * @module
 */
import { Keypair } from "@stellar/stellar-sdk";
import { startTestNode, type TestNode } from "../localnet.ts";
import type { LocalnetOptions } from "@vigil/localnet/node";
import { setupDevChain } from "@vigil/localnet/dev_setup";
import { deployVigil, USDC } from "@vigil/contracts/deploy/deploy_vigil";
import type { FlashPolicy } from "@vigil/contracts/clients";
import { runKeeper } from "@vigil/keeper/daemon";
import { script } from "../scripted_executor.ts";
import { createApi } from "@vigil/keeper/api/server";
import { createWebApp, mountWeb } from "@vigil/web/server";
import { clearSpecCache } from "@vigil/soroban/client";
import { deployFixture } from "../contracts/mod.ts";

/** A running stack. */
export interface WebStack extends AsyncDisposable {
  node: TestNode;
  usdc: string;
  vault: string;
  registry: string;
  /** Dev accounts by name. */
  accounts: Record<string, Keypair>;
  /** The vault's admin (the node's mocked-auth `invoke` can act as it). */
  admin: string;
  /** The scripted executor the vault's policy lists (seeded stacks only), for more flashes. */
  executor: string | null;
  /** The keeper's server (API + pages). */
  url: string;
  /** Writes an info line into the keeper's log (it reaches /api/state and the SSE stream). */
  log(msg: string): void;
  /** A second web server whose keeper API is unreachable (only with `apiDown`). */
  downUrl: string | null;
  close(): Promise<void>;
}

/** Options of {@link startWebStack}. */
export interface WebStackOptions {
  /** Deposit cap in whole USDC (default 1,000,000). */
  depositCap?: bigint;
  /** Also serve the pages with a dead keeper API URL. */
  apiDown?: boolean;
  /** Seed history (deposit, registration, a liquidation). Default true. */
  seed?: boolean;
  /** The node's state-archival settings (short TTLs archive entries within a test). */
  network?: LocalnetOptions["network"];
}

function freePortUrl(): string {
  // A port that was free a moment ago and now has nothing listening: "API down".
  const l = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (l.addr as Deno.NetAddr).port;
  l.close();
  return `http://127.0.0.1:${port}`;
}

/** The stack's vault: profit unlocks over 600 s; queued changes wait the least allowed. */
export const STACK_UNLOCK_SECS = 600n;
/** The stack's policy delay: the default withdraw cooldown (3600 s) + 3600 s. */
export const STACK_POLICY_DELAY = 7200n;

/**
 * Adds `executor` to the vault's flash policy (`set_flash_policy` as the admin, whom the node's
 * mocked-auth `invoke` can act as): the vault lends only to listed executors. Listing one more
 * widens the policy, so the vault queues it (issue 20): the ledger clock is moved past its
 * `applies_at`.
 */
export async function allowExecutor(
  node: TestNode,
  vault: string,
  admin: string,
  policy: FlashPolicy,
  executor: string,
): Promise<void> {
  await node.invoke(vault, "set_flash_policy", {
    policy: { ...policy, executors: [...policy.executors, executor] },
  }, { source: admin });
  const pending = await node.view<{ applies_at: bigint } | null>(
    vault,
    "get_pending_flash_policy",
    [],
  );
  if (pending) {
    const { policy_delay } = await node.view<{ policy_delay: bigint }>(vault, "get_config", []);
    await node.advanceTime(Number(policy_delay));
  }
}

/** The lending pool the stack's queued flash policy adds. */
export const QUEUED_POOL = "CADAMBQGAYDAMBQGAYDAMBQGAYDAMBQGAYDAMBQGAYDAMBQGAYDAMSST";

/** Starts the stack. */
export async function startWebStack(opts: WebStackOptions = {}): Promise<WebStack> {
  clearSpecCache();
  const node = await startTestNode({ network: opts.network });
  const cleanups: (() => Promise<void>)[] = [() => node.close()];
  const close = async () => {
    for (const c of cleanups.reverse()) await c().catch(() => {});
    cleanups.length = 0;
  };
  try {
    const dev = await setupDevChain(node, { accounts: ["alice", "bob", "keeper1", "keeper2"] });
    const usdc = dev.contracts.usdc;
    const accounts: Record<string, Keypair> = {};
    for (const [name, a] of Object.entries(dev.accounts)) {
      accounts[name] = Keypair.fromSecret(a.secret);
    }
    const depositCap = (opts.depositCap ?? 1_000_000n) * USDC;
    const { vault, registry, admin, policy } = await deployVigil(node, {
      usdc,
      config: {
        deposit_cap: depositCap,
        profit_unlock_secs: STACK_UNLOCK_SECS,
        policy_delay: STACK_POLICY_DELAY,
      },
    });

    let executor: string | null = null;
    if (opts.seed !== false) {
      const alice = accounts.alice.publicKey(), k1 = accounts.keeper1.publicKey();
      await node.invoke(vault, "deposit", { depositor: alice, amount: 1000n * USDC }, {
        source: alice,
      });
      await node.advanceTime(600);
      await node.invoke(registry, "register", { operator: k1, name: "keeper-one" }, { source: k1 });
      // A settled liquidation: one flash of 200 USDC repaid with 10 USDC profit (the scripted
      // test executor stands in for the liquidator).
      executor = await deployFixture(node, "scripted_executor");
      await allowExecutor(node, vault, admin, policy, executor);
      await node.advanceTime(30);
      await node.invoke(vault, "flash", {
        keeper: k1,
        executor,
        amount: 200n * USDC,
        data: script({ op: "pay", to: vault, amount: 210n * USDC }),
        response_time_ms: 1500n,
      }, { source: k1 });
      // Half the unlock time: 5 of the 10 USDC profit are in the share price, 5 still locked.
      await node.advanceTime(Number(STACK_UNLOCK_SECS / 2n));
      // Changes a depositor must see coming: a new pool in the flash policy and a higher
      // deposit cap (both widen: queued for the policy delay).
      const current = await node.view<FlashPolicy>(vault, "get_flash_policy", []);
      await node.invoke(vault, "set_flash_policy", {
        policy: { ...current, pools: [...current.pools, QUEUED_POOL] },
      }, { source: admin });
      const config = await node.view<Record<string, bigint>>(vault, "get_config", []);
      await node.invoke(vault, "set_config", {
        config: { ...config, deposit_cap: depositCap * 2n },
      }, { source: admin });
      await node.closeLedgers(1);
    }

    // The depositors only: the development wallet never holds a keeper's key.
    const devAccounts = ["alice", "bob"].map((name) => ({
      name,
      secret: accounts[name].secret(),
    }));
    const abort = new AbortController();
    let ready!: (url: string) => void;
    const readyP = new Promise<string>((r) => (ready = r));
    let log: (msg: string) => void = () => {};
    const exit = runKeeper({
      env: {
        KEEPER_SECRET: accounts.keeper2.secret(),
        KEEPER_NAME: "keeper-two",
        VAULT_CONTRACT: vault,
        REGISTRY_CONTRACT: registry,
        USDC_CONTRACT: usdc,
        SOROBAN_RPC: node.rpcUrl,
        NETWORK_PASSPHRASE: node.networkPassphrase,
        API_PORT: "0",
        API_HOST: "127.0.0.1",
        POLL_INTERVAL: "3",
      },
      signal: abort.signal,
      handleSignals: false,
      defaultMetrics: false,
      shutdownTimeoutMs: 5000,
      logOptions: { sink: null },
      app: (ctx, _env, listen) =>
        mountWeb(createApi(ctx), ctx.config, { devAccounts, listen, warn: () => {} }),
      onReady: (r) => {
        log = (msg) => r.ctx.log.info(msg);
        ready(r.url);
      },
    });
    const url = await Promise.race([
      readyP,
      exit.then((code) => {
        throw new Error(`keeper exited with ${code} before serving`);
      }),
    ]);
    cleanups.push(async () => {
      abort.abort();
      await exit;
    });

    let downUrl: string | null = null;
    if (opts.apiDown) {
      let port = 0;
      const app = createWebApp({
        vault,
        registry,
        rpcUrl: node.rpcUrl,
        networkPassphrase: node.networkPassphrase,
        apiUrl: freePortUrl(),
        apiTimeoutMs: 500,
        devAccounts,
        listen: { hostname: "127.0.0.1", port: () => port },
        env: {},
        warn: () => {},
      });
      const server = Deno.serve({ port: 0, hostname: "127.0.0.1", onListen: () => {} }, app.fetch);
      port = (server.addr as Deno.NetAddr).port;
      downUrl = `http://127.0.0.1:${port}`;
      cleanups.push(() => server.shutdown());
    }

    return {
      node,
      usdc,
      vault,
      registry,
      accounts,
      admin,
      executor,
      url,
      log: (msg) => log(msg),
      downUrl,
      close,
      [Symbol.asyncDispose]: close,
    };
  } catch (e) {
    await close();
    throw e;
  }
}
