/**
 * The demo's keepers on a fresh node right after deployment: started in turn, each registers the
 * first time (no warning, no retry), on 1 s ledgers as on the realistic node.
 */
import assert from "node:assert/strict";
import { startVigil, USDC } from "@vigil/testing/contracts/vigil_fixture";
import { validEnv } from "@vigil/testing/keeper/keeper_process";
import { ChainRpc } from "@vigil/soroban/rpc";
import { RegistryContract } from "@vigil/keeper/vault_client";
import { type KeeperProcess, spawnKeepersInTurn } from "./keepers.ts";

Deno.test("why in turn: two registrations in one ledger conflict; in consecutive ledgers both land", async () => {
  // No ledger timer: a ledger closes 400 ms after the first transaction is queued, so the two
  // registrations sent together land in the same ledger.
  const f = await startVigil({}, { ledgerMs: 0, autoCloseMs: 400 });
  try {
    const chain = new ChainRpc(f.node.rpcUrl, { networkPassphrase: f.passphrase });
    const registry = new RegistryContract(chain, f.registry);
    const [a, b, c] = [
      await f.user(150n * USDC),
      await f.user(150n * USDC),
      await f.user(150n * USDC),
    ];
    const together = await Promise.allSettled([
      registry.register(a, "a"),
      registry.register(b, "b"),
    ]);
    const failed = together.filter((r) => r.status === "rejected");
    const landed = together.filter((r) => r.status === "fulfilled");
    assert.equal(landed.length, 1, "one of them lands");
    assert.equal(failed.length, 1, "the other one conflicts");
    // Both appended at index get_keeper_count(): the second one's footprint misses the slot.
    assert.match(
      String((failed[0] as PromiseRejectedResult).reason),
      /Error\(Storage, ExceededLimit\)/,
    );
    // Simulated after the first one landed, the next registration lands the first time.
    const [loser] = together[0].status === "rejected" ? [a] : [b];
    await registry.register(loser, "again");
    await registry.register(c, "c");
    assert.equal(Number(await f.node.view(f.registry, "get_keeper_count", {})), 3);
  } finally {
    await f.close();
  }
});

Deno.test("keepers started in turn on a fresh node: every one registers the first time, no warning", async () => {
  const f = await startVigil({}, { ledgerMs: 1000 });
  let keepers: KeeperProcess[] = [];
  const lines: [string, string][] = [];
  try {
    const users = [];
    for (let i = 0; i < 3; i++) users.push(await f.user(150n * USDC));
    const specs = users.map((kp, i) => ({
      name: `keeper-${i + 1}`,
      port: 0,
      env: {
        ...validEnv(kp.secret()),
        KEEPER_NAME: `keeper-${i + 1}`,
        REGISTRY_CONTRACT: f.registry,
        VAULT_CONTRACT: f.vault,
        SOROBAN_RPC: f.node.rpcUrl,
        NETWORK_PASSPHRASE: f.passphrase,
        LENDING_POOL: "",
        POLL_INTERVAL: "300", // only start-up is observed
      },
    }));
    keepers = await spawnKeepersInTurn(specs, (who, line) => lines.push([who, line]), 60_000);
    for (const [i, kp] of users.entries()) {
      const name = `keeper-${i + 1}`;
      const own = lines.filter(([who]) => who === name).map(([, l]) => l);
      const done = own.filter((l) => l.startsWith("registered in the keeper registry"));
      assert.equal(done.length, 1, own.join("\n"));
      assert.doesNotMatch(done[0], /attempt=/, "the first attempt");
      // No warning but the one these pool-less keepers must give (they only monitor).
      const warnings = own.filter((l) =>
        /^(WARN|ERROR) /.test(l) && !/will never liquidate/.test(l)
      );
      assert.deepEqual(warnings, [], own.join("\n"));
      const onChain = await f.node.view<Record<string, unknown>>(f.registry, "get_keeper", {
        operator: kp.publicKey(),
      });
      assert.equal(onChain.name, name);
    }
    assert.equal(
      Number(await f.node.view(f.registry, "get_keeper_count", {})),
      3,
    );
  } finally {
    const st = await Promise.all(keepers.map((k) => k.stop()));
    await f.close();
    for (const s of st) assert.equal(s.code, 0);
  }
});
