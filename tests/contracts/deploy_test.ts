/**
 * The deployment as `main.ts localnet` performs it (`startDevNetwork`, the function behind the
 * command and `localnet.json`): `vault`, `registry` and `liquidator` are in the out file's
 * contracts, the first two wired to each other and to the dev USDC with the spec's testnet
 * limits, the flash policy listing the liquidator as the only executor, the liquidator exposing
 * `exec`, all three running the committed Wasm. Read over
 * JSON-RPC with
 * `contract.Client`, so what is checked is what a keeper or the frontend would see.
 */
import assert from "node:assert/strict";
import { contract, rpc } from "@stellar/stellar-sdk";
import { wasmPath } from "@vigil/contracts/wasm_path";
import { startDevNetwork } from "@vigil/demo/dev_network";
import { TESTNET_LIMITS } from "@vigil/contracts/deploy/deploy_vigil";
import { ok } from "@vigil/testing/contracts/vigil_fixture";

// deno-lint-ignore no-explicit-any
type AnyClient = contract.Client & Record<string, any>;

Deno.test("deployment: localnet.json names a wired vault, registry and the liquidator with the testnet limits", async () => {
  const { net, out } = await startDevNetwork({ port: 0, accounts: [] });
  try {
    const { vault, registry, usdc, liquidator } = out.contracts;
    assert.match(vault, /^C[A-Z2-7]{55}$/);
    assert.match(registry, /^C[A-Z2-7]{55}$/);
    assert.match(liquidator, /^C[A-Z2-7]{55}$/);
    assert.equal(new Set([vault, registry, liquidator]).size, 3);
    const client = (contractId: string) =>
      contract.Client.from({
        contractId,
        rpcUrl: out.rpcUrl,
        networkPassphrase: out.networkPassphrase,
        allowHttp: true,
      }) as Promise<AnyClient>;
    const v = await client(vault);
    const r = await client(registry);

    // The committed Wasm runs there (the same code path as `main.ts deploy`).
    const server = new rpc.Server(out.rpcUrl, { allowHttp: true });
    for (
      const [name, id] of [["vault", vault], ["registry", registry], [
        "liquidator",
        liquidator,
      ]] as const
    ) {
      const code = new Uint8Array(await server.getContractWasmByContractId(id));
      assert.deepEqual([...code], [...(await Deno.readFile(wasmPath(name)))], `${name} code`);
    }

    // Wired to each other and to the same USDC.
    assert.equal(ok(await v.get_registry()), registry);
    assert.equal(ok(await r.get_vault()), vault);
    assert.equal(ok(await v.get_usdc()), usdc);

    // The spec's testnet limits, exactly (and the spec's unit arithmetic, not only the constant).
    const USDC = 10_000_000n;
    assert.deepEqual(ok(await v.get_config()), {
      deposit_cap: 10_000_000n * USDC,
      withdraw_cooldown: 3600n,
      max_draw_per_keeper: 10_000n * USDC,
      // Issue 20: 1 USDC for a counted fill, 72 h for a queued change, 24 h profit unlock.
      min_fill_profit: 1n * USDC,
      policy_delay: 72n * 3600n,
      profit_unlock_secs: 24n * 3600n,
    });
    assert.deepEqual(ok(await r.get_config()), { min_stake: 1_000_000_000n, usdc_token: usdc });
    // The liquidator serves its spec (exec only) to clients, as a dapp would read it.
    const l = await client(liquidator);
    assert.equal(typeof l.exec, "function");
    assert.equal(l.deposit, undefined);
    assert.equal(l.flash, undefined);
    assert.equal(TESTNET_LIMITS.min_stake, 100n * USDC);

    // The flash policy: only Vigil's liquidator may be lent to, the default oracle slippage
    // bound; a pool/router only where the market was deployed first (not in this plain chain).
    const policy = ok<
      {
        executors: string[];
        max_slippage_bps: number;
        pools: string[];
        routers: string[];
        tokens: string[];
      }
    >(await v.get_flash_policy());
    assert.deepEqual(policy.executors, [liquidator]);
    assert.equal(policy.max_slippage_bps, 300);
    const pool = (out.contracts as Record<string, string | undefined>).lending_pool;
    assert.deepEqual(policy.pools, pool ? [pool] : []);
    assert.deepEqual(policy.tokens, []);
    assert.equal(ok(await v.get_pending_flash_policy()), null);

    // A fresh pair: empty books, no keepers.
    assert.deepEqual(ok(await v.get_state()), {
      active_liq: 0n,
      locked_profit: 0n,
      total_profit: 0n,
      total_shares: 0n,
      total_usdc: 0n,
      unlock_end: 0n,
    });
    assert.deepEqual(ok(await r.get_keepers({ start: 0, limit: 100 })), []);
    assert.equal(ok(await r.get_keeper_count()), 0);
  } finally {
    await net.close();
  }
});

Deno.test("deployment with the market (`main.ts localnet --scenario market`): the flash policy names the market's lending pool, primary router and hop tokens, not the fallback router", async () => {
  const { net, out } = await startDevNetwork({ port: 0, accounts: [], market: true });
  try {
    const c = out.contracts as Record<string, string>;
    const v = await contract.Client.from({
      contractId: c.vault,
      rpcUrl: out.rpcUrl,
      networkPassphrase: out.networkPassphrase,
      allowHttp: true,
    }) as AnyClient;
    assert.deepEqual(ok(await v.get_flash_policy()), {
      executors: [c.liquidator],
      max_slippage_bps: 300,
      pools: [c.lending_pool],
      routers: [c.primary_dex_router],
      // The market's reserve tokens other than USDC: a swap path may pass through them.
      tokens: [c.xlm, c.weth],
    });
    assert.notEqual(c.fallback_dex_router, c.primary_dex_router);
  } finally {
    await net.close();
  }
});
