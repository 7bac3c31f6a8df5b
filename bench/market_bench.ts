/**
 * Benchmark of the market scenario: deploy time, seeding N borrowers (default 10,000) into the
 * lending pool through the in-process node, and the Blend SDK's pool + oracle load over JSON-RPC
 * afterwards. Run: `deno run -A bench/market_bench.ts [n]`.
 */
import { PoolV2 } from "@blend-capital/blend-sdk";
import { startLocalnet } from "@vigil/localnet/node";
import { setupDevChain } from "@vigil/localnet/dev_setup";
import { deployMarket, seedBorrowers } from "@vigil/localnet/scenarios/market";

const n = Number(Deno.args[0] ?? 10_000);
const net = await startLocalnet({ port: 0, ledgerMs: 0 });
try {
  let t = performance.now();
  const base = await setupDevChain(net);
  const market = await deployMarket(net, base);
  const deployMs = performance.now() - t;

  t = performance.now();
  const seeded = await seedBorrowers(net, market, n);
  const seedMs = performance.now() - t;

  const network = { rpc: net.rpcUrl, passphrase: net.networkPassphrase, opts: { allowHttp: true } };
  t = performance.now();
  const pool = await PoolV2.load(network, market.contracts.lending_pool);
  await pool.loadOracle();
  await pool.loadUser(seeded[seeded.length - 1]);
  const loadMs = performance.now() - t;

  console.log(`market deploy:            ${deployMs.toFixed(0)} ms`);
  console.log(
    `seed ${seeded.length} borrowers:    ${(seedMs / 1000).toFixed(1)} s ` +
      `(${(seeded.length / (seedMs / 1000)).toFixed(0)} borrowers/s, ` +
      `${(seedMs / seeded.length).toFixed(2)} ms each)`,
  );
  console.log(`SDK pool+oracle+user load: ${loadMs.toFixed(0)} ms`);
} finally {
  await net.close();
}
