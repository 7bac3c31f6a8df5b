/**
 * Cycle orchestration with fake adapters and a fake vault (no chain): the spec's order,
 * stable priority sort, errors never abort the cycle, recovery rules, capital gating while a
 * draw is outstanding, and a task that leaves a draw open.
 */
import assert from "node:assert/strict";
import { Keypair } from "@stellar/stellar-sdk";
import {
  type Adapter,
  type Result,
  sortTasks,
  type Task,
  TaskError,
  type VaultClient,
} from "../../keeper/adapters/adapter.ts";
import { ContractCallError } from "../../keeper/chain/errors.ts";
import type { ChainRpc } from "../../keeper/chain/rpc.ts";
import { type CycleHooks, recoverStaleDraw, runCycle, type VaultLike } from "../../keeper/cycle.ts";
import type { TaskTally } from "../../keeper/vault_client.ts";

const chain = {} as ChainRpc;
const kp = Keypair.random();
const USDC = "CUSDC";

interface FakeVault extends VaultLike {
  outstanding: bigint;
  returns: bigint[];
  draws: bigint[];
  hasDrawFn: boolean | undefined;
  failReturn: boolean;
}

function fakeVault(outstanding = 0n): FakeVault {
  const v: FakeVault = {
    outstanding,
    returns: [],
    draws: [],
    hasDrawFn: true,
    failReturn: false,
    hasFunction: (fn: string) => Promise.resolve(fn === "get_keeper_draw" ? v.hasDrawFn : true),
    getKeeperDraw: () => Promise.resolve(v.outstanding),
    returnProceeds: (amount: bigint) => {
      if (v.failReturn) return Promise.reject(new Error("txInsufficientBalance"));
      v.returns.push(amount);
      v.outstanding = 0n; // Vigil's vault settles the draw (a shortfall is a realized loss)
      return Promise.resolve({ hash: "r", ledger: 1, confirmMs: 1 });
    },
    forTask() {
      const tally: TaskTally = { drawn: 0n, returned: 0n, open: false, txHashes: [] };
      const client: VaultClient = {
        draw: (a) => {
          v.draws.push(a);
          v.outstanding += a;
          tally.drawn += a;
          tally.open = true;
          return Promise.resolve();
        },
        returnProceeds: async (a, rt) => {
          await v.returnProceeds(a, rt);
          tally.returned += a;
          tally.open = false;
        },
      };
      return { client, tally };
    },
  };
  return v;
}

function hooks() {
  const log: string[] = [];
  const h: CycleHooks & { log: string[]; results: [string, string, Result][]; refreshed: number } =
    {
      log,
      results: [],
      refreshed: 0,
      info: (m) => void log.push(`info ${m}`),
      warn: (m) => void log.push(`warn ${m}`),
      error: (kind, err, adapter) =>
        void log.push(`error ${kind} ${adapter ?? "-"} ${String(err)}`),
      result: (a, t, r) => void h.results.push([a.name(), t.label ?? "", r]),
      refresh: () => {
        h.refreshed++;
        log.push("refresh");
        return Promise.resolve();
      },
    };
  return h;
}

type Plan = {
  name: string;
  tasks?: Task<string>[];
  getTasksError?: Error;
  run?: (t: Task<string>, v: VaultClient) => Promise<Result>;
  capital?: bigint;
};

function adapter(p: Plan, trace: string[]): Adapter<string> {
  return {
    name: () => p.name,
    getTasks: () => {
      trace.push(`getTasks ${p.name}`);
      return p.getTasksError ? Promise.reject(p.getTasksError) : Promise.resolve(p.tasks ?? []);
    },
    execute: (_rpc, _kp, task, vault) => {
      trace.push(`execute ${p.name}:${task.label}`);
      return p.run
        ? p.run(task, vault)
        : Promise.resolve({ drew: 0n, proceeds: 0n, profit: 0n, responseTimeMs: 0, status: "ok" });
    },
    estimateCapital: () => p.capital ?? 0n,
  };
}

const t = (label: string, priority: number): Task<string> => ({
  label,
  priority,
  estProfit: 0,
  data: label,
});

Deno.test("sortTasks: highest priority first, stable for ties, out-of-range priorities clamped", () => {
  const tasks = [t("a", 1), t("b", 10), t("c", 4), t("d", 10), t("e", 1), t("f", 99), t("g", -3)];
  assert.deepEqual(sortTasks(tasks).map((x) => x.label), ["b", "d", "f", "c", "a", "e", "g"]);
});

Deno.test("cycle order: recovery, adapters in registration order with sorted tasks, refresh last", async () => {
  const trace: string[] = [];
  const h = hooks();
  const vault = fakeVault(0n);
  const a1 = adapter({ name: "lending_pool", tasks: [t("x", 1), t("y", 7), t("z", 10)] }, trace);
  const a2 = adapter({ name: "allocation", tasks: [t("w", 3)] }, trace);
  const r = await runCycle({
    chain,
    keypair: kp,
    vault,
    adapters: [a1, a2],
    usdc: USDC,
    hooks: h,
    balanceOf: () => Promise.resolve(0n),
  });
  assert.deepEqual(trace, [
    "getTasks lending_pool",
    "execute lending_pool:z",
    "execute lending_pool:y",
    "execute lending_pool:x",
    "getTasks allocation",
    "execute allocation:w",
  ]);
  assert.equal(h.log.at(-1), "refresh");
  assert.equal(r.errors, 0);
  assert.equal(r.executed, 4);
  assert.equal(h.results.length, 4);
});

Deno.test("a failing getTasks skips only that adapter; a failing execute skips only that task", async () => {
  const trace: string[] = [];
  const h = hooks();
  const bad = adapter({ name: "bad", getTasksError: new Error("rpc down") }, trace);
  const flaky = adapter({
    name: "flaky",
    tasks: [t("1", 5), t("2", 4), t("3", 3)],
    run: (task) =>
      task.label === "2"
        ? Promise.reject(new Error("nope"))
        : Promise.resolve({ drew: 0n, proceeds: 0n, profit: 0n, responseTimeMs: 0 }),
  }, trace);
  const r = await runCycle({
    chain,
    keypair: kp,
    vault: fakeVault(),
    adapters: [bad, flaky],
    usdc: USDC,
    hooks: h,
    balanceOf: () => Promise.resolve(0n),
  });
  assert.deepEqual(trace, [
    "getTasks bad",
    "getTasks flaky",
    "execute flaky:1",
    "execute flaky:2",
    "execute flaky:3",
  ]);
  assert.equal(r.errors, 2);
  assert.ok(h.log.some((l) => l.startsWith("error get_tasks bad")));
  assert.ok(h.log.some((l) => l.startsWith("error execute flaky") && l.includes("nope")));
  assert.equal(h.refreshed, 1);
});

Deno.test("recoverStaleDraw: returns USDC on hand capped at the outstanding draw", async () => {
  const h = hooks();
  const v = fakeVault(700n);
  const r = await recoverStaleDraw({
    chain,
    keypair: kp,
    vault: v,
    usdc: USDC,
    hooks: h,
    balanceOf: () => Promise.resolve(1_000n),
  });
  assert.deepEqual(v.returns, [700n]);
  assert.equal(r.returned, 700n);
  const v2 = fakeVault(700n);
  const r2 = await recoverStaleDraw({
    chain,
    keypair: kp,
    vault: v2,
    usdc: USDC,
    hooks: h,
    balanceOf: () => Promise.resolve(300n),
  });
  assert.deepEqual(v2.returns, [300n]);
  assert.equal(r2.outstanding, 700n);
});

Deno.test("recoverStaleDraw is a no-op without USDC_CONTRACT, without a draw, or without get_keeper_draw", async () => {
  const h = hooks();
  const bal = () => Promise.resolve(1_000n);
  const v = fakeVault(500n);
  assert.match(
    (await recoverStaleDraw({ chain, keypair: kp, vault: v, usdc: null, hooks: h, balanceOf: bal }))
      .skipped!,
    /USDC/,
  );
  const none = fakeVault(0n);
  assert.match(
    (await recoverStaleDraw({
      chain,
      keypair: kp,
      vault: none,
      usdc: USDC,
      hooks: h,
      balanceOf: bal,
    })).skipped!,
    /no outstanding/,
  );
  const old = fakeVault(500n);
  old.hasDrawFn = false;
  assert.match(
    (await recoverStaleDraw({
      chain,
      keypair: kp,
      vault: old,
      usdc: USDC,
      hooks: h,
      balanceOf: bal,
    })).skipped!,
    /no get_keeper_draw/,
  );
  // Spec unreadable and the call fails as a non-contract host error (function missing).
  const older = fakeVault(500n);
  older.hasDrawFn = undefined;
  older.getKeeperDraw = () =>
    Promise.reject(
      new ContractCallError(
        "CV",
        "get_keeper_draw",
        { type: "WasmVm", code: "MissingValue" },
        "",
        "simulation",
      ),
    );
  assert.match(
    (await recoverStaleDraw({
      chain,
      keypair: kp,
      vault: older,
      usdc: USDC,
      hooks: h,
      balanceOf: bal,
    })).skipped!,
    /no get_keeper_draw/,
  );
  assert.deepEqual([...v.returns, ...none.returns, ...old.returns, ...older.returns], []);
});

Deno.test("while a draw stays outstanding (recovery failed), capital tasks are skipped, others run", async () => {
  const trace: string[] = [];
  const h = hooks();
  const v = fakeVault(900n);
  v.failReturn = true; // e.g. no native balance for fees
  const lend = adapter({ name: "lending_pool", tasks: [t("liq", 10)], capital: 500n }, trace);
  const alloc = adapter({ name: "allocation", tasks: [t("reb", 3)], capital: 0n }, trace);
  const r = await runCycle({
    chain,
    keypair: kp,
    vault: v,
    adapters: [lend, alloc],
    usdc: USDC,
    hooks: h,
    balanceOf: () => Promise.resolve(900n),
  });
  assert.deepEqual(trace, [
    "getTasks lending_pool",
    "getTasks allocation",
    "execute allocation:reb",
  ]);
  assert.ok(h.log.some((l) => l.startsWith("error recovery")));
  assert.ok(h.log.some((l) => l.includes("capital are skipped")));
  assert.equal(r.errors, 1);
  // Next cycle, fees are back: recovery returns the draw and the capital task runs.
  v.failReturn = false;
  trace.length = 0;
  const r2 = await runCycle({
    chain,
    keypair: kp,
    vault: v,
    adapters: [lend, alloc],
    usdc: USDC,
    hooks: h,
    balanceOf: () => Promise.resolve(900n),
  });
  assert.deepEqual(v.returns, [900n]);
  assert.deepEqual(trace, [
    "getTasks lending_pool",
    "execute lending_pool:liq",
    "getTasks allocation",
    "execute allocation:reb",
  ]);
  assert.equal(r2.errors, 0);
});

Deno.test("a task that draws and fails with a TaskError: result recorded, draw flagged, later capital tasks skipped", async () => {
  const trace: string[] = [];
  const h = hooks();
  const v = fakeVault(0n);
  const lend = adapter({
    name: "lending_pool",
    capital: 100n,
    tasks: [t("first", 10), t("second", 5)],
    run: async (task, vault) => {
      await vault.draw(100n);
      throw new TaskError(`fill failed for ${task.label}`, {
        drew: 100n,
        proceeds: 0n,
        profit: 0n,
        responseTimeMs: 5,
        status: "failed",
      });
    },
  }, trace);
  const r = await runCycle({
    chain,
    keypair: kp,
    vault: v,
    adapters: [lend],
    usdc: USDC,
    hooks: h,
    balanceOf: () => Promise.resolve(0n),
  });
  assert.deepEqual(trace, ["getTasks lending_pool", "execute lending_pool:first"]);
  assert.equal(h.results.length, 1);
  assert.equal(h.results[0][2].status, "failed");
  assert.ok(h.log.some((l) => l.includes("left a draw outstanding")));
  assert.equal(r.outstandingDraw, 100n);
});

Deno.test("an aborted signal stops between tasks; refresh still runs", async () => {
  const trace: string[] = [];
  const h = hooks();
  const ctrl = new AbortController();
  const a = adapter({
    name: "a",
    tasks: [t("1", 2), t("2", 1)],
    run: () => {
      ctrl.abort();
      return Promise.resolve({ drew: 0n, proceeds: 0n, profit: 0n, responseTimeMs: 0 });
    },
  }, trace);
  const b = adapter({ name: "b", tasks: [t("3", 1)] }, trace);
  await runCycle({
    chain,
    keypair: kp,
    vault: fakeVault(),
    adapters: [a, b],
    usdc: USDC,
    hooks: h,
    signal: ctrl.signal,
    balanceOf: () => Promise.resolve(0n),
  });
  assert.deepEqual(trace, ["getTasks a", "execute a:1"]);
  assert.equal(h.refreshed, 1);
});
