/**
 * FAILS on the issue-20 contracts (commit 4221737): a change the admin queued still applies after
 * `renounce_admin`, and nobody can cancel it any more. `get_admin() == None` reads as "the
 * configuration is frozen", yet the queued flash policy (here: listing an executor the admin
 * controls) comes into force `policy_delay` later. Depositors can still see it
 * (`get_pending_flash_policy`) and leave, so the timelock's guarantee holds, but renouncing no
 * longer means what it says, and a mistaken queued change can no longer be withdrawn.
 *
 * Proposed fix (contracts/vault/assembly/index.ts, `renounce_admin`): settle both pending keys,
 * then delete `PendingPolicy` and `PendingConfig` (emitting `pending_cancelled` if any was
 * dropped) before `renounceAdmin()` — i.e. renouncing also cancels what is still queued.
 */
import assert from "node:assert/strict";
import { scriptedExecutor } from "../fixtures/scripted_executor.ts";
import { ok, send, TX_OPTS, withVigil } from "./vigil_fixture.ts";

const T = TX_OPTS;

Deno.test("vault: renounce_admin drops the changes still queued (nothing applies after the admin is gone)", async () => {
  await withVigil(async (f) => {
    const admin = await f.client(f.vault, f.admin);
    const p = await f.policy();
    const own = await f.node.deployContract(scriptedExecutor, {});
    const grab = { ...p, executors: [...p.executors, own] };
    await send(await admin.set_flash_policy({ policy: grab }, T));
    const cfg = ok<Record<string, bigint>>(await admin.get_config(T));
    await send(await admin.set_config({ config: { ...cfg, min_fill_profit: 0n } }, T));
    await send(await admin.renounce_admin(T));
    assert.equal(ok(await admin.get_admin(T)) ?? null, null);
    await f.advanceTime(Number(cfg.policy_delay) + 10);
    assert.deepEqual(await f.policy(), p, "a queued policy must not apply after renounce");
    assert.deepEqual(ok(await admin.get_config(T)), cfg, "nor a queued config");
  });
});
