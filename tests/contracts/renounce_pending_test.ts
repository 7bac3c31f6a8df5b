/**
 * `renounce_admin` freezes the vault: a change the admin queued before it is dropped (with a
 * `pending_cancelled` event) instead of applying `policy_delay` later with nobody left to cancel it.
 * This test failed on the first issue-20 contracts (4221737), where a queued policy listing the
 * admin's own executor still came into force after the admin was gone.
 */
import assert from "node:assert/strict";
import { ok, send, TX_OPTS, withVigil } from "@vigil/testing/contracts/vigil_fixture";
import { deployFixture } from "@vigil/testing/contracts/mod";

const T = TX_OPTS;

Deno.test("vault: renounce_admin drops the changes still queued (nothing applies after the admin is gone)", async () => {
  await withVigil(async (f) => {
    const admin = await f.client(f.vault, f.admin);
    const p = await f.policy();
    const own = await deployFixture(f.node, "scripted_executor");
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
