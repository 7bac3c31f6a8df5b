/**
 * Issue 20 removed the registry's keeper cap: `get_keepers(start, limit)` returns pages of at
 * most 100, `get_keeper_count` the total. Against a local node with 150 registered keepers, every
 * reader of the list pages it: the pages' ChainReader, the keeper's RegistryContract, and the
 * `/dashboard/keepers` page (one registry page at a time, the count from the registry).
 */
import assert from "node:assert/strict";
import { Keypair } from "@stellar/stellar-sdk";
import { startTestNode } from "@vigil/testing/localnet";
import { setupDevChain } from "@vigil/localnet/dev_setup";
import { deployVigil } from "@vigil/contracts/deploy/deploy_vigil";
import { ChainReader, KEEPERS_PAGE } from "@vigil/web/data/contract_reads";
import { clearSpecCache } from "@vigil/soroban/client";
import { ChainRpc } from "@vigil/soroban/rpc";
import { RegistryContract } from "@vigil/keeper/vault_client";
import { createWebApp } from "@vigil/web/server";

const N = 150;

Deno.test("150 keepers: paged by the pages' reader, the keeper and /dashboard/keepers", async () => {
  clearSpecCache();
  await using node = await startTestNode();
  const names = Array.from({ length: N }, (_, i) => `k${i}`);
  const dev = await setupDevChain(node, { accounts: names, usdc: 200n });
  const { vault, registry } = await deployVigil(node, { usdc: dev.contracts.usdc });
  const order: string[] = [];
  for (const name of names) {
    const op = Keypair.fromSecret(dev.accounts[name].secret).publicKey();
    await node.invoke(registry, "register", { operator: op, name }, { source: op });
    order.push(op);
  }
  await node.closeLedgers(1);

  // The registry itself: at most 100 per page, whatever the limit asked.
  assert.equal(await node.view<number>(registry, "get_keeper_count", []), N);
  assert.equal(
    (await node.view<string[]>(registry, "get_keepers", { start: 0, limit: 500 })).length,
    KEEPERS_PAGE,
  );

  const reader = new ChainReader(
    { rpcUrl: node.rpcUrl, passphrase: node.networkPassphrase },
    vault,
    registry,
  );
  const all = await reader.keeperAddresses();
  assert.equal(all.error, null);
  assert.deepEqual(all.value, { addresses: order, total: N });
  const first = await reader.keepers(KEEPERS_PAGE);
  assert.equal(first.total, N);
  assert.deepEqual(first.value?.map((k) => k.name), names.slice(0, KEEPERS_PAGE));
  assert.deepEqual((await reader.keeperCount()).value, N);

  const chain = new ChainRpc(node.rpcUrl, { networkPassphrase: node.networkPassphrase });
  try {
    const reg = new RegistryContract(chain, registry);
    assert.equal(await reg.getKeeperCount(), N);
    assert.deepEqual(await reg.getKeepers(100, 100), order.slice(100));
    assert.deepEqual(await reg.listKeepers(120), { addresses: order.slice(0, 120), total: N });

    // A deregistration swap-removes: the last keeper takes the leaver's index.
    await node.invoke(registry, "deregister", { operator: order[5] }, { source: order[5] });
    await node.closeLedgers(1);
    const after = await reg.listKeepers();
    assert.equal(after.total, N - 1);
    assert.deepEqual(new Set(after.addresses), new Set(order.filter((_, i) => i !== 5)));
    assert.equal(after.addresses[5], order[N - 1]);
  } finally {
    chain.close();
  }

  const app = createWebApp({
    env: {},
    vault,
    registry,
    rpcUrl: node.rpcUrl,
    networkPassphrase: node.networkPassphrase,
    apiUrl: "http://127.0.0.1:9",
    apiTimeoutMs: 100,
    warn: () => {},
    prebundle: false,
  });
  const page = async (path: string) => {
    const r = await app.request(path);
    assert.equal(r.status, 200, path);
    return await r.text();
  };
  const rows = (html: string) => [...html.matchAll(/data-keeper="(G[A-Z0-9]{55})"/g)].length;
  const p1 = await page("/dashboard/keepers?sort=name&dir=asc");
  assert.equal(rows(p1), KEEPERS_PAGE);
  assert.match(p1, /id="registered-value"[^>]*>\s*149\s*</);
  assert.match(p1, /Registry page 1 of 2/);
  assert.match(p1, /href="\?sort=name&amp;dir=asc&amp;page=2"/);
  const p2 = await page("/dashboard/keepers?page=2");
  assert.equal(rows(p2), N - 1 - KEEPERS_PAGE);
  assert.match(p2, /Registry page 2 of 2/);
  // The home page counts them all without reading every record.
  assert.match(await page("/"), /id="keepers-value"[^>]*>\s*149\s*</);
});
