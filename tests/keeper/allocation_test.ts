/**
 * The allocation adapter against the market's allocation vault (DeFindex-style, target weights
 * 60/40, funds seeded idle), with the keeper as a child process and made the vault's rebalance
 * manager: drift below ALLOCATION_DRIFT_BPS → no rebalance; above → one rebalance to the
 * targets, after which drift is below the threshold and nothing more happens. No Vigil capital
 * is ever lent (no flash).
 */
import assert from "node:assert/strict";
import {
  events,
  keeperEnv,
  logLines,
  startKeeper,
  startWorld,
  stopKeeper,
  vaultState,
  waitLog,
} from "@vigil/testing/keeper/keeper_fixture";
import type { KeeperChild } from "@vigil/testing/keeper/keeper_process";

interface Funds {
  total_amount: bigint;
  idle_amount: bigint;
  strategy_allocations: { amount: bigint; strategy_address: string }[];
}

/** keeper_cycles_total from the keeper's /metrics. */
async function cycles(url: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const m = /^keeper_cycles_total(?:\{[^}]*\})? (\d+)/m.exec(text);
  return m ? Number(m[1]) : 0;
}

async function untilCycles(url: string, n: number): Promise<void> {
  const deadline = Date.now() + 30_000;
  while ((await cycles(url)) < n) {
    if (Date.now() > deadline) throw new Error(`fewer than ${n} cycles`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

Deno.test("allocation: drift above the threshold → one rebalance; below → none; no vault capital", async () => {
  const w = await startWorld({ ledgerMs: 250, keeperIsRebalanceManager: true, positions: false });
  const keeper = w.keepers[0];
  const av = w.market.contracts.allocation_vault;
  const funds = () => w.node.view<Funds[]>(av, "fetch_total_managed_funds", []);
  const rebalances = (k: KeeperChild) =>
    logLines(k).filter((l) => l.msg === "allocation vault rebalanced");
  let k: KeeperChild | undefined;
  try {
    const [f0] = await funds();
    assert.equal(f0.idle_amount, f0.total_amount, "seeded idle: drift 6000 bps against 60/40");
    const vaultBefore = await vaultState(w);

    // Threshold 7000 bps > drift 6000: no rebalance over several cycles.
    let url: string;
    ({ k, url } = await startKeeper(
      keeperEnv(w, keeper, { ALLOCATION_VAULT: av, ALLOCATION_DRIFT_BPS: "7000" }),
    ));
    await untilCycles(url, 3);
    assert.equal(rebalances(k).length, 0);
    const [f1] = await funds();
    assert.equal(f1.idle_amount, f0.idle_amount, "nothing moved");
    await stopKeeper(k);

    // Threshold 500 bps < drift 6000: one rebalance to 60/40, then drift ≈ 0 → no more.
    ({ k, url } = await startKeeper(
      keeperEnv(w, keeper, { ALLOCATION_VAULT: av, ALLOCATION_DRIFT_BPS: "500" }),
    ));
    const line = await waitLog(k, (l) => l.msg === "allocation vault rebalanced", 30_000);
    assert.equal(line.drift_bps, 6000);
    const [f2] = await funds();
    const amounts = f2.strategy_allocations.map((s) => s.amount);
    assert.equal(amounts[0], (f2.total_amount * 6000n) / 10_000n);
    assert.equal(amounts[1], (f2.total_amount * 4000n) / 10_000n);
    const c0 = await cycles(url);
    await untilCycles(url, c0 + 2);
    assert.equal(rebalances(k).length, 1, "no rebalance once drift is below the threshold");
    // Never drew Vigil capital.
    assert.equal((await events(w, w.vault, "flash")).length, 0);
    const vaultAfter = await vaultState(w);
    assert.equal(vaultAfter.total_usdc, vaultBefore.total_usdc);
    assert.equal(vaultAfter.active_liq, 0n);
  } catch (e) {
    if (k) {
      console.error(
        k.stderr().split("\n").filter((l) => !l.includes('"level":"debug"')).slice(-25).join("\n"),
      );
    }
    throw e;
  } finally {
    if (k) await stopKeeper(k);
    await w.close();
  }
});
