/**
 * Vault capital is USDC, so the keeper only bids USDC liabilities. A position whose debt is in
 * another asset is left alone — no auction created at a fee and then never filled, no error every
 * cycle — while a USDC-debt position pushed under at the same time is auctioned as usual.
 */
import assert from "node:assert/strict";
import {
  events,
  keeperEnv,
  logLines,
  shock,
  startKeeper,
  startWorld,
  stopKeeper,
  until,
} from "@vigil/testing/keeper/keeper_fixture";
import type { KeeperChild } from "@vigil/testing/keeper/keeper_process";

interface StateView {
  keeper: { last_cycle: { number: number } | null };
  positions: { user: string; health_factor: number | null }[];
}

async function state(url: string): Promise<StateView> {
  const res = await fetch(`${url}/api/state?positions=all`);
  return await res.json();
}

Deno.test("a position with non-USDC debt gets no auction and no error; a USDC-debt one does", async () => {
  const w = await startWorld({ ledgerMs: 250 });
  let k: KeeperChild | undefined;
  try {
    const xlmDebtor = w.market.borrowers.find((b) => b.name === "borrower_usdc_1")!.public;
    const usdcDebtor = w.market.borrowers.find((b) => b.name === "borrower_weth_1")!.public;
    // +10 % XLM sinks borrower_usdc_1 (USDC collateral, XLM debt, HF 1.05 → ≈ 0.95);
    // −10 % WETH sinks borrower_weth_1 (WETH collateral, USDC debt, HF 1.08 → ≈ 0.97).
    await shock(w, w.xlm, 1000);
    await shock(w, w.weth, -1000);
    let url: string;
    ({ k, url } = await startKeeper(keeperEnv(w, w.keepers[0], { POLL_INTERVAL: "3" })));

    // The keeper sees both positions underwater…
    const seen = await until(
      async () => {
        const s = await state(url);
        const hf = (u: string) => s.positions.find((p) => p.user === u)?.health_factor ?? null;
        const a = hf(xlmDebtor), b = hf(usdcDebtor);
        return a !== null && a < 1 && b !== null && b < 1 ? s : undefined;
      },
      60_000,
      "both positions underwater on /api/state",
    );
    // …auctions the USDC-debt one (the control: tasks do run)…
    await until(
      async () => {
        const e = await events(w, w.pool, "new_auction");
        return e.some((x) => String(x.topics[2]) === usdcDebtor) || undefined;
      },
      60_000,
      "auction of the USDC-debt position",
    );
    // …and after two more cycles has still not touched the XLM-debt one.
    const from = seen.keeper.last_cycle?.number ?? 0;
    await until(
      async () => ((await state(url)).keeper.last_cycle?.number ?? 0) >= from + 2 || undefined,
      30_000,
      "two more cycles",
    );
    const auctions = await events(w, w.pool, "new_auction");
    assert.ok(
      !auctions.some((x) => String(x.topics[2]) === xlmDebtor),
      "no auction for a position whose debt is not USDC",
    );
    const problems = logLines(k).filter((l) =>
      (l.level === "warn" || l.level === "error") && String(l.msg).includes("execute failed")
    );
    assert.deepEqual(problems.map((l) => l.msg), [], "no execute errors");
  } finally {
    if (k) await stopKeeper(k);
    await w.close();
  }
});
