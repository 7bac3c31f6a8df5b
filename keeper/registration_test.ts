import assert from "node:assert/strict";
import { Keypair } from "@stellar/stellar-sdk";
import { ensureRegistered, newRegistrationState, type RegistrationDeps } from "./registration.ts";

/**
 * A registry where another keeper's registration lands in the same ledger as ours `races` times:
 * our `register` then fails as the host fails it (our footprint names the slot the other took),
 * and the keeper count has grown.
 */
function racingRegistry(races: number) {
  let count = 3;
  let racesLeft = races;
  const calls: string[] = [];
  const registry = {
    id: "CREGISTRY",
    getKeeperCount() {
      calls.push("get_keeper_count");
      return Promise.resolve(count);
    },
    getKeeper() {
      return Promise.reject(new Error("Error(Contract, #104)"));
    },
    register() {
      calls.push("register");
      if (racesLeft > 0) {
        racesLeft--;
        count++; // the other keeper's registration, applied first
        return Promise.reject(new Error("HostError: Error(Budget, ExceededLimit)"));
      }
      count++;
      return Promise.resolve({ hash: "ab".repeat(32) });
    },
  };
  return { registry, calls };
}

function deps(registry: unknown) {
  const warnings: string[] = [];
  const infos: string[] = [];
  const d = {
    chain: {} as RegistrationDeps["chain"],
    registry: registry as RegistrationDeps["registry"],
    keypair: Keypair.random(),
    name: "keeper-2",
    now: () => 0,
    ctx: {
      log: { info: (m: string) => infos.push(m) },
      recordError: (_kind: string, _err: unknown, o?: { msg?: string }) =>
        warnings.push(o?.msg ?? ""),
    },
  } as unknown as RegistrationDeps;
  return { d, warnings, infos };
}

Deno.test("ensureRegistered: a registration raced by another keeper's in the same ledger is sent again at once, without a warning", async () => {
  const { registry, calls } = racingRegistry(1);
  const { d, warnings, infos } = deps(registry);
  const state = newRegistrationState();
  await ensureRegistered(state, d, true);
  assert.equal(state.registered, true);
  assert.deepEqual(warnings, []);
  assert.equal(infos.length, 2);
  assert.match(infos[0], /^another keeper registered in the same ledger .*: registering again$/);
  assert.equal(infos[1], "registered in the keeper registry");
  assert.deepEqual(calls, ["get_keeper_count", "register", "get_keeper_count", "register"]);
});

Deno.test("ensureRegistered: raced twice in a row, the second failure is the usual warning with back-off", async () => {
  const { registry, calls } = racingRegistry(2);
  const { d, warnings } = deps(registry);
  const state = newRegistrationState();
  await ensureRegistered(state, d, true);
  assert.equal(state.registered, false);
  assert.equal(warnings.length, 1);
  assert.match(
    warnings[0],
    /^registration failed \(Error: HostError: Error\(Budget, ExceededLimit\)\)/,
  );
  assert.equal(state.nextAttemptAt, 5_000);
  // Retried once only: no loop on a registry that keeps changing.
  assert.deepEqual(calls, ["get_keeper_count", "register", "get_keeper_count", "register"]);
});

Deno.test("ensureRegistered: a failure with an unchanged keeper count is not a race: warned, not resent", async () => {
  const { registry, calls } = racingRegistry(0);
  registry.register = () => {
    calls.push("register");
    return Promise.reject(new Error("Error(Contract, #10)"));
  };
  const { d, warnings, infos } = deps(registry);
  await ensureRegistered(newRegistrationState(), d, true);
  assert.equal(warnings.length, 1);
  assert.deepEqual(infos, []);
  assert.deepEqual(calls, ["get_keeper_count", "register", "get_keeper_count"]);
});
