/**
 * `bad_debt` hygiene (issue 24) on the real Blend v2 pool: a position with liabilities and no
 * collateral gets ONE `pool.bad_debt(user)` from a keeper process, which moves the debt to the
 * backstop; a dry-run adapter sends nothing; a stale call is refused by the pool and typed so.
 *
 * Making such a position: Blend v2 moves a user's leftover debt to the backstop itself when an
 * auction is filled in full (`fill_user_liq_auction` → `check_and_handle_user_bad_debt`), even a
 * late fill whose bid was scaled down, and a partial fill always leaves some collateral. So the
 * pool's own calls never leave this state behind; a test writes it: the borrower's `Positions`
 * entry without its collateral (the debt stays counted in the reserve's dTokens, as it would be).
 */
import assert from "node:assert/strict";
import { Address, xdr } from "@stellar/stellar-sdk";
import { LendingPoolAdapter } from "@vigil/keeper/adapters/lending_pool/lending_pool_adapter";
import { ChainRpc } from "@vigil/soroban/rpc";
import {
  events,
  keeperEnv,
  logLines,
  startKeeper,
  startWorld,
  stopKeeper,
  until,
  waitLog,
  type World,
} from "@vigil/testing/keeper/keeper_fixture";

/** The base64 ledger key of `user`'s Blend positions (`DataKey::Positions(user)`). */
function positionsKey(pool: string, user: string): string {
  return xdr.LedgerKey.contractData(
    new xdr.LedgerKeyContractData({
      contract: Address.fromString(pool).toScAddress(),
      key: xdr.ScVal.scvVec([xdr.ScVal.scvSymbol("Positions"), new Address(user).toScVal()]),
      durability: xdr.ContractDataDurability.persistent,
    }),
  ).toXDR("base64");
}

/** Rewrites `user`'s positions with an empty collateral map, straight into the node's ledger. */
function dropCollateral(w: World, user: string): void {
  const key = positionsKey(w.pool, user);
  const entry = w.node.chain.store.get(key);
  assert.ok(entry?.data.type === "contractData", "the borrower has positions");
  const cd = entry.data.contractData;
  assert.equal(cd.val.type, "scvMap");
  const val = xdr.ScVal.scvMap(
    (cd.val.map ?? []).map((e) =>
      e.key.type === "scvSymbol" && String(e.key.sym) === "collateral"
        ? new xdr.ScMapEntry({ key: e.key, val: xdr.ScVal.scvMap([]) })
        : e
    ),
  );
  const changed = new xdr.LedgerEntry({
    lastModifiedLedgerSeq: entry.lastModifiedLedgerSeq,
    data: xdr.LedgerEntryData.contractData(new xdr.ContractDataEntry({ ...cd, val })),
    ext: entry.ext,
  });
  w.node.chain.applyDirect(new Map([[key, changed]]));
}

type Native = { collateral: Map<number, bigint>; liabilities: Map<number, bigint> };

async function positions(w: World, user: string): Promise<Native> {
  const raw = await w.node.view<Record<string, unknown>>(w.pool, "get_positions", {
    address: user,
  });
  const asMap = (v: unknown) => v instanceof Map ? v : new Map(Object.entries(v ?? {}));
  return { collateral: asMap(raw.collateral), liabilities: asMap(raw.liabilities) };
}

Deno.test("bad_debt: a position with debt and no collateral gets one bad_debt call (debt to the backstop); dry-run sends nothing; a stale call is refused, typed", async () => {
  const w = await startWorld();
  const chain = new ChainRpc(w.node.rpcUrl, { networkPassphrase: w.node.networkPassphrase });
  try {
    const user = w.market.borrowers.find((b) => b.name === "borrower_xlm_2")!.public;
    dropCollateral(w, user);
    await w.node.closeLedgers(1);
    const before = await positions(w, user);
    assert.equal(before.collateral.size, 0);
    assert.ok(before.liabilities.size > 0);
    const backstop = w.market.contracts.backstop;

    // A dry-run adapter: the call is simulated and checked, not sent — and not retried.
    const opts = {
      poolId: w.pool,
      keeper: w.keepers[1].publicKey(),
      usdc: w.usdc,
      minProfit: 1.02,
      pollIntervalSec: 3,
    };
    const dry = new LendingPoolAdapter({ ...opts, invoke: { dryRun: () => {} } });
    const tasks = await dry.getTasks(chain);
    assert.deepEqual(tasks.map((t) => [t.label, "kind" in t.data && t.data.kind]), [
      [user, "bad_debt"],
    ]);
    assert.equal(dry.estimateCapital(tasks[0]), 0n);
    // deno-lint-ignore no-explicit-any
    const vault = {} as any; // bad_debt never touches the vault
    const d = await dry.execute(chain, w.keepers[1], tasks[0], vault);
    assert.deepEqual(d.outcome, {
      status: "skipped",
      user,
      reason: { kind: "dry_run", action: `bad_debt on ${w.pool}` },
    });
    assert.deepEqual(await positions(w, user), before, "nothing sent");
    assert.deepEqual(await dry.getTasks(chain), [], "tried once: not again for the same position");

    // A task taken now and executed after the keeper below moved the debt: a stale call.
    const late = new LendingPoolAdapter(opts);
    const stale = (await late.getTasks(chain))[0];
    assert.ok(stale && "kind" in stale.data);

    // The keeper process calls bad_debt once, logged with its transaction.
    const { k, url } = await startKeeper(keeperEnv(w, w.keepers[0]));
    try {
      const line = await waitLog(
        k,
        (l) => l.msg === `bad_debt called for ${user}: its debt moved to the backstop`,
        30_000,
      );
      assert.match(String(line.tx_hash), /^[0-9a-f]{64}$/);
      assert.equal(line.pool, w.pool);
      const after = await positions(w, user);
      assert.equal(after.liabilities.size, 0, "the user's debt left the pool's books for them");
      const moved = await events(w, w.pool, "bad_debt");
      assert.ok(moved.some((e) => e.topics[1] === user && e.txHash === line.tx_hash));
      assert.ok((await positions(w, backstop)).liabilities.size > 0, "the backstop holds it");
      // Two more cycles: no second call.
      const cycles = async () =>
        (await (await fetch(`${url}/api/state?positions=0&events=0`)).json()).keeper.last_cycle
          ?.number ?? 0;
      const seen = await cycles();
      await until(async () => (await cycles()) >= seen + 2, 20_000, "two more cycles");
      assert.equal(
        logLines(k).filter((l) => String(l.msg).startsWith("bad_debt called")).length,
        1,
      );
    } finally {
      await stopKeeper(k);
    }

    const r = await late.execute(chain, w.keepers[1], stale, vault);
    assert.equal(r.outcome.status, "skipped");
    assert.equal(
      r.outcome.status === "skipped" && r.outcome.reason.kind,
      "bad_debt_refused",
      JSON.stringify(r.outcome, (_, v) => typeof v === "bigint" ? String(v) : v),
    );
    assert.deepEqual(await late.getTasks(chain), [], "re-read: no debt left, no task");
  } finally {
    chain.close();
    await w.close();
  }
});
