/**
 * Registration retry: a keeper whose start-up registration failed keeps trying (with back-off)
 * before its cycles, first asking the registry with a read, and stops once registered.
 */
import assert from "node:assert/strict";
import { Keypair } from "@stellar/stellar-sdk";
import {
  ensureRegistered,
  MAX_BACKOFF_MS,
  newRegistrationState,
  registrationBackoffMs,
} from "../../keeper/registration.ts";
import type { RegistrationDeps } from "../../keeper/registration.ts";

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
  assert.match(warnings[0], /registration failed .*continuing unregistered, retrying in 30 s/);

  // Before the back-off has elapsed: nothing is sent.
  clock.t += 29_000;
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

Deno.test("registration: back-off doubles from 30 s and is capped at 15 min", async () => {
  assert.deepEqual(
    [1, 2, 3, 4, 5, 6, 7, 20].map(registrationBackoffMs),
    [30_000, 60_000, 120_000, 240_000, 480_000, 900_000, 900_000, 900_000],
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
  assert.deepEqual(gaps, [60_000, 120_000, 240_000]);
  assert.equal(state.registered, false);
});
