/**
 * Keeper cycle benchmark on the local node: the market scenario plus N seeded borrowers
 * (default 1,000 and 10,000), then the keeper's real cycle (recovery, lending-pool adapter,
 * dashboard refresh) run in-process against the node over JSON-RPC. Prints, per N:
 * - the cold-start cycle (event backfill + every position read),
 * - steady-state cycles with no new pool events: wall time and RPC requests by method,
 * - a cycle after an oracle price move (health factors recomputed in memory).
 *
 * With `--pools P` (1–3) the market has P Blend pools, each seeded with N borrowers, and the
 * keeper watches all of them (`LENDING_POOLS`): the steady-state figure should be P times the
 * one-pool figure, not growing with N.
 *
 * Run: `deno run -A bench/keeper_bench.ts [--pools P] [N …]`. The node and the keeper share this
 * process (and the machine's cores), so times include the node's own work.
 */
import { parseArgs } from "node:util";
import { Keypair } from "@stellar/stellar-sdk";
import { startLocalnet } from "@vigil/localnet/node";
import { setupDevChain } from "@vigil/localnet/dev_setup";
import { deployVigil } from "@vigil/contracts/deploy/deploy_vigil";
import { marketPolicy } from "@vigil/demo/dev_network";
import { deployMarket, registerShock, seedBorrowers } from "@vigil/localnet/scenarios/market";
import { loadConfig } from "@vigil/keeper/config";
import { createKeeperContext } from "@vigil/keeper/context";
import { keeperCycle, prepareChain } from "@vigil/keeper/startup";

const { values, positionals } = parseArgs({
  args: Deno.args,
  options: { pools: { type: "string", default: "1" } },
  allowPositionals: true,
});
const POOLS = Number(values.pools);
if (!Number.isInteger(POOLS) || POOLS < 1 || POOLS > 3) throw new Error("--pools is 1, 2 or 3");
const sizes = positionals.length > 0 ? positionals.map(Number) : [1_000, 10_000];
const STEADY_CYCLES = 5;

function diff(a: Record<string, number>, b: Record<string, number>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [k, v] of Object.entries(b)) if (v - (a[k] ?? 0) > 0) out[k] = v - (a[k] ?? 0);
  return out;
}
const total = (r: Record<string, number>) => Object.values(r).reduce((x, y) => x + y, 0);

for (const n of sizes) {
  const node = await startLocalnet({ port: 0, ledgerMs: 1000, onError: () => {} });
  try {
    const t0 = performance.now();
    const dev = await setupDevChain(node);
    const market = await deployMarket(node, dev, { allocationVault: false, pools: POOLS });
    const { vault, registry } = await deployVigil(node, {
      usdc: dev.contracts.usdc,
      policy: marketPolicy(market),
    });
    registerShock(node, market.contracts.oracle, market.accounts.market_admin.public);
    const tSeed = performance.now();
    for (const [i, pool] of market.pools.entries()) {
      await seedBorrowers(node, market, n, { pool: pool.id, offset: i * n });
    }
    const seedMs = performance.now() - tSeed;
    const keeper = Keypair.fromSecret(dev.accounts.keeper1.secret);
    const config = loadConfig({
      KEEPER_SECRET: keeper.secret(),
      REGISTRY_CONTRACT: registry,
      VAULT_CONTRACT: vault,
      LENDING_POOLS: market.pools.map((p) => p.id).join(","),
      USDC_CONTRACT: dev.contracts.usdc,
      SOROBAN_RPC: node.rpcUrl,
      NETWORK_PASSPHRASE: node.networkPassphrase,
      // High enough that no seeded borrower's (eventual) auction would be filled here.
      MIN_PROFIT: "1000",
      POLL_INTERVAL: "10",
    });
    const ctx = createKeeperContext(config, { defaultMetrics: false, logOptions: { sink: null } });
    const rt = await prepareChain(ctx);
    const chain = rt.chain;
    console.log(
      `\n== ${POOLS} pool(s) × ${n} seeded borrowers (${market.borrowers.length} scenario borrowers in the first) — setup ${
        Math.round(tSeed - t0)
      } ms, seeding ${Math.round(seedMs)} ms`,
    );

    const cycle = async (label: string) => {
      const before = chain.counts();
      const s = performance.now();
      const r = await keeperCycle(rt, ctx);
      const ms = performance.now() - s;
      const reqs = diff(before, chain.counts());
      return { label, ms, reqs, errors: r.errors };
    };

    const cold = await cycle("cold start");
    const tracked = rt.lending.reduce((t, l) => t + l.positions().length, 0);
    console.log(
      `cold-start cycle: ${cold.ms.toFixed(0)} ms, ${total(cold.reqs)} RPC requests ${
        JSON.stringify(cold.reqs)
      }; positions with debt tracked: ${tracked}; sync ${
        JSON.stringify(rt.lending.map((l) => l.lastSync))
      }`,
    );
    const steady = [];
    for (let i = 0; i < STEADY_CYCLES; i++) steady.push(await cycle("steady"));
    const ms = steady.map((c) => c.ms).sort((a, b) => a - b);
    const reqs = steady.map((c) => total(c.reqs));
    console.log(
      `steady-state cycle (no new events), ${STEADY_CYCLES} runs: median ${
        ms[Math.floor(ms.length / 2)].toFixed(0)
      } ms (min ${ms[0].toFixed(0)}, max ${ms.at(-1)!.toFixed(0)}); RPC requests per cycle ${
        [...new Set(reqs)].join("/")
      } ${JSON.stringify(steady.at(-1)!.reqs)}; errors ${steady.reduce((t, c) => t + c.errors, 0)}`,
    );
    // A price move: +1 % XLM (every seeded borrower gets healthier; nothing to liquidate).
    await fetch(node.rpcUrl, {
      method: "POST",
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "localnet_shock",
        params: { asset: market.contracts.xlm, bps: 100 },
      }),
    }).then((r) => r.json());
    const moved = await cycle("price moved");
    console.log(
      `cycle after a price move (HFs recomputed in memory): ${moved.ms.toFixed(0)} ms, ${
        total(moved.reqs)
      } RPC requests ${JSON.stringify(moved.reqs)}`,
    );
    chain.close();
  } finally {
    await node.close();
  }
}
