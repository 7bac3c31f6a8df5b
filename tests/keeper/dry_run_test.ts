/**
 * DRY_RUN=true against the local node: the keeper finds the liquidation, sizes it, plans its
 * swaps and simulates its flash, logs `dry-run: would send flash on C…`, lists it in
 * `/api/state` — and sends nothing: its account's sequence number, the vault and the auction are
 * exactly as before.
 */
import assert from "node:assert/strict";
import { rpc } from "@stellar/stellar-sdk";
import {
  auctionOf,
  keeperEnv,
  shock,
  startKeeper,
  startWorld,
  stopKeeper,
  until,
  vaultState,
  waitLog,
} from "@vigil/testing/keeper/keeper_fixture";
import type { KeeperChild } from "@vigil/testing/keeper/keeper_process";

interface DryRunView {
  keeper: { dry_run: boolean };
  dry_run:
    | { actions: { call: string; pool: string | null; inclusion_fee: number | null }[] }
    | null;
}

Deno.test("DRY_RUN: the flash is planned and simulated, logged and listed, and nothing is sent", async () => {
  const w = await startWorld();
  let k: KeeperChild | undefined;
  try {
    const keeper = w.keepers[0];
    const borrower = w.market.borrowers.find((b) => b.name === "borrower_xlm_1")!.public;
    await shock(w, w.xlm, -1000); // XLM collateral −10 %: HF 1.03 → ≈ 0.93
    // A live keeper that never finds it profitable registers and opens the auction, then stops.
    ({ k } = await startKeeper(keeperEnv(w, keeper, { MIN_PROFIT: "1000" })));
    await until(() => auctionOf(w, borrower), 60_000, "the auction");
    await waitLog(k, (l) => String(l.msg).includes("registered in the keeper registry"));
    await stopKeeper(k);
    k = undefined;

    const server = new rpc.Server(w.node.rpcUrl, { allowHttp: true });
    const seqBefore = (await server.getAccount(keeper.publicKey())).sequenceNumber();
    const vaultBefore = await vaultState(w);
    const auctionBefore = await auctionOf(w, borrower);

    let url: string;
    ({ k, url } = await startKeeper(keeperEnv(w, keeper, { DRY_RUN: "true" })));
    // Close to the auction's first profitable block (the bid starts falling at 200 blocks).
    await w.node.closeLedgers(190);
    const line = await waitLog(
      k,
      (l) =>
        typeof l.msg === "string" && l.msg.startsWith(`dry-run: would send flash on ${w.vault}`),
      120_000,
    );
    assert.ok(Number(line.inclusion_fee) >= 100, JSON.stringify(line));
    const view: DryRunView = await (await fetch(`${url}/api/state`)).json();
    assert.equal(view.keeper.dry_run, true);
    const flash = view.dry_run?.actions.find((a) => a.call === `flash on ${w.vault}`);
    assert.ok(flash, JSON.stringify(view.dry_run));
    // The task ended as a dry-run skip naming the transaction.
    await waitLog(k, (l) => l.reason === `dry-run: would send flash on ${w.vault}`);
    await stopKeeper(k);
    k = undefined;

    assert.equal((await server.getAccount(keeper.publicKey())).sequenceNumber(), seqBefore);
    assert.deepEqual(await vaultState(w), vaultBefore);
    assert.deepEqual(await auctionOf(w, borrower), auctionBefore);
  } finally {
    if (k) await stopKeeper(k, "SIGKILL");
    await w.close();
  }
});
