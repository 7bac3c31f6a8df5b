/**
 * Registration retry: a keeper whose start-up registration failed keeps trying (with back-off)
 * before its cycles, first asking the registry with a read, and stops once registered. And
 * start-up registration against the real registry, with the keeper as a child process.
 */
import assert from "node:assert/strict";
import { Keypair } from "@stellar/stellar-sdk";
import {
  ensureRegistered,
  MAX_BACKOFF_MS,
  newRegistrationState,
  registrationBackoffMs,
} from "@vigil/keeper/registration";
import type { RegistrationDeps } from "@vigil/keeper/registration";
import { send, startVigil, TX_OPTS, USDC } from "@vigil/testing/contracts/vigil_fixture";
import { logLines, startKeeper, stopKeeper, waitLog } from "@vigil/testing/keeper/keeper_fixture";
import { type KeeperChild, validEnv } from "@vigil/testing/keeper/keeper_process";

/** A registry that fails `register` `failRegisters` times, then succeeds. */
function scriptedRegistry(failRegisters: number, onChain = false) {
  const calls: string[] = [];
  let registered = onChain;
  let failuresLeft = failRegisters;
  const registry = {
    id: "CREGISTRY",
    getKeeper(_operator: string) {
      calls.push("get_keeper");
      return registered
        ? Promise.resolve({ name: "k" })
        : Promise.reject(new Error("Error(Contract, #104)"));
    },
    register(_kp: Keypair, _name: string) {
      calls.push("register");
      if (failuresLeft > 0) {
        failuresLeft--;
        return Promise.reject(new Error("Error(Budget, ExceededLimit)"));
      }
      registered = true;
      return Promise.resolve({ hash: "ab".repeat(32) });
    },
  };
  return { registry, calls };
}

function deps(registry: unknown, clock: { t: number }) {
  const warnings: string[] = [];
  const infos: string[] = [];
  const d = {
    chain: {} as RegistrationDeps["chain"],
    registry: registry as RegistrationDeps["registry"],
    keypair: Keypair.random(),
    name: "keeper-x",
    now: () => clock.t,
    ctx: {
      log: { info: (m: string) => infos.push(m) },
      recordError: (_kind: string, _err: unknown, o?: { msg?: string }) =>
        warnings.push(o?.msg ?? ""),
    },
  } as unknown as RegistrationDeps;
  return { d, warnings, infos };
}

Deno.test("registration: a failed start-up attempt is retried after the back-off, then stops", async () => {
  const clock = { t: 1_000_000 };
  const { registry, calls } = scriptedRegistry(1);
  const { d, warnings, infos } = deps(registry, clock);
  const state = newRegistrationState();

  await ensureRegistered(state, d, true);
  assert.equal(state.registered, false);
  assert.equal(state.failures, 1);
  assert.deepEqual(calls, ["register"]);
  assert.match(warnings[0], /registration failed .*continuing unregistered, retrying in 5 s/);

  // Before the back-off has elapsed: nothing is sent.
  clock.t += 4_000;
  await ensureRegistered(state, d);
  assert.deepEqual(calls, ["register"]);

  // After it: a read first (still absent), then register succeeds.
  clock.t += 1_000;
  await ensureRegistered(state, d);
  assert.equal(state.registered, true);
  assert.deepEqual(calls, ["register", "get_keeper", "register"]);
  assert.ok(infos.some((m) => /registered in the keeper registry/.test(m)));

  // Registered: later cycles send nothing.
  clock.t += 3_600_000;
  await ensureRegistered(state, d);
  assert.equal(calls.length, 3);
});

Deno.test("registration: a retry that finds the keeper already on chain sends no transaction", async () => {
  const clock = { t: 0 };
  const { registry, calls } = scriptedRegistry(1);
  const { d } = deps(registry, clock);
  const state = newRegistrationState();
  await ensureRegistered(state, d, true); // fails
  // Meanwhile the keeper got registered (e.g. the first attempt landed after all).
  (registry as { getKeeper: unknown }).getKeeper = () => {
    calls.push("get_keeper");
    return Promise.resolve({ name: "k" });
  };
  clock.t += registrationBackoffMs(1);
  await ensureRegistered(state, d);
  assert.equal(state.registered, true);
  assert.deepEqual(calls, ["register", "get_keeper"]);
});

Deno.test("registration: back-off doubles from 5 s and is capped at 15 min", async () => {
  assert.deepEqual(
    [1, 2, 3, 4, 5, 6, 7, 20].map(registrationBackoffMs),
    [5_000, 10_000, 20_000, 40_000, 80_000, 160_000, 320_000, 900_000],
  );
  assert.equal(MAX_BACKOFF_MS, 900_000);
  // Repeated failures move the next attempt further out each time.
  const clock = { t: 0 };
  const { registry } = scriptedRegistry(10);
  const { d } = deps(registry, clock);
  const state = newRegistrationState();
  await ensureRegistered(state, d, true);
  const gaps: number[] = [];
  for (let i = 0; i < 3; i++) {
    const before = state.nextAttemptAt;
    clock.t = before;
    await ensureRegistered(state, d);
    gaps.push(state.nextAttemptAt - before);
  }
  assert.deepEqual(gaps, [10_000, 20_000, 40_000]);
  assert.equal(state.registered, false);
});

/**
 * Start-up step 3 with the keeper as a real child process against a real registry over JSON-RPC
 * (vault-monitor-only mode, so nothing else is signed): a fresh keeper registers with
 * KEEPER_NAME; an already registered one logs AlreadyRegistered as a warning; one whose balance
 * is below min_stake logs the failure as a warning. None of them exits, all serve the API.
 */
Deno.test("registration at start-up over JSON-RPC: registered, AlreadyRegistered and failure are never fatal", async () => {
  const f = await startVigil();
  const kids: KeeperChild[] = [];
  try {
    const env = (kp: Keypair, name: string) => ({
      ...validEnv(kp.secret()),
      KEEPER_NAME: name,
      REGISTRY_CONTRACT: f.registry,
      VAULT_CONTRACT: f.vault,
      SOROBAN_RPC: f.node.rpcUrl,
      NETWORK_PASSPHRASE: f.passphrase,
      LENDING_POOL: "",
      POLL_INTERVAL: "300", // no second cycle within the test: only the start-up attempt is observed
    });
    const getKeeper = (kp: Keypair) =>
      f.node.view<Record<string, unknown>>(f.registry, "get_keeper", {
        operator: kp.publicKey(),
      });
    const fresh = await f.user(150n * USDC);
    const already = await f.user(150n * USDC);
    const poor = await f.user(99n * USDC); // below min_stake (100 USDC)
    const r = await f.client(f.registry, already);
    await send(await r.register({ operator: already.publicKey(), name: "by-hand" }, TX_OPTS));

    const start = async (kp: Keypair, name: string) => {
      const { k, url } = await startKeeper(env(kp, name));
      kids.push(k);
      return { k, url };
    };
    const a = await start(fresh, "fresh-keeper");
    const b = await start(already, "again");
    const c = await start(poor, "poor-keeper");

    // Fresh: registered on chain with KEEPER_NAME, exactly min_stake pulled.
    await waitLog(a.k, (l) => l.msg === "registered in the keeper registry", 30_000);
    assert.equal((await getKeeper(fresh)).name, "fresh-keeper");
    assert.equal(await f.balance(fresh.publicKey()), 50n * USDC);

    // Already registered: a warning naming AlreadyRegistered; the record is untouched.
    const warnB = await waitLog(b.k, (l) => /AlreadyRegistered/.test(String(l.msg)), 30_000);
    assert.equal(warnB.level, "warn");
    // Swallowed as "registered", not treated as a failure to retry.
    assert.equal(warnB.msg, "AlreadyRegistered: registration skipped");
    assert.doesNotMatch(b.k.stderr(), /registration failed/);
    assert.equal((await getKeeper(already)).name, "by-hand");

    // Balance below min_stake: a warning, still unregistered, nothing pulled.
    const warnC = await waitLog(c.k, (l) => /registration failed/.test(String(l.msg)), 30_000);
    assert.equal(warnC.level, "warn");
    // The token transfer's own failure (SAC #10, balance), not a typed registry error.
    assert.match(String(warnC.msg), /Error\(Contract, #10\)/);
    await assert.rejects(getKeeper(poor), /#104/);
    assert.equal(await f.balance(poor.publicKey()), 99n * USDC);

    // Never fatal: every keeper is still running and serving the API, and none logged an error.
    for (const { k, url } of [a, b, c]) {
      const res = await fetch(`${url}/healthz`);
      assert.equal(res.status, 200);
      await res.body?.cancel();
      assert.equal(logLines(k).filter((l) => l.level === "error").length, 0, k.stderr());
      assert.doesNotMatch(k.stderr(), /keeper stopped/);
    }
    // The secret is never logged; the operator's public key is.
    for (const [k, kp] of [[a.k, fresh], [b.k, already], [c.k, poor]] as const) {
      assert.ok(!k.stderr().includes(kp.secret()), "secret in the log");
      assert.ok(k.stderr().includes(kp.publicKey()));
    }
  } finally {
    for (const k of kids) {
      const out = await stopKeeper(k);
      assert.equal(out.code, 0, out.stderr);
    }
    await f.close();
  }
});
