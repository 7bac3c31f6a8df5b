/**
 * Cycle orchestration with fake adapters and a fake vault (no chain): the order (adapters,
 * then refresh; issue 12 removed the recovery step), stable priority sort, errors never abort
 * the cycle, every adapter gets the same flash-only vault client, abort between tasks.
 */
import assert from "node:assert/strict";
import { Keypair, xdr } from "@stellar/stellar-sdk";
import {
  type Adapter,
  noCapitalResult,
  type Result,
  sortTasks,
  type Task,
  TaskError,
  type VaultClient,
} from "./adapters/adapter.ts";
import { ROOT_ONLY } from "@vigil/soroban/auth_guard";
import type { ChainRpc } from "@vigil/soroban/rpc";
import { type CycleHooks, MAX_RETRIES_PER_CYCLE, runCycle, type VaultLike } from "./cycle.ts";
import { tooEarly } from "./adapters/lending_pool/target_block.ts";

const chain = {} as ChainRpc;
const never = { kind: "never_profitable", ratioNow: null } as const;
const kp = Keypair.random();

interface FakeVault extends VaultLike {
  flashes: bigint[];
}

function fakeVault(): FakeVault {
  const v: FakeVault = {
    flashes: [],
    client(): VaultClient {
      return {
        simulateFlash: () => Promise.resolve(1n),
        flashPolicy: () =>
          Promise.resolve({
            executors: ["CEXEC"],
            max_slippage_bps: 300,
            pools: [],
            routers: [],
            tokens: [],
          }),
        flash: (_executor, amount) => {
          v.flashes.push(amount);
          return Promise.resolve({ profit: 1n, txHash: "f", ledger: 1 });
        },
      };
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
        void log.push(`error ${kind} ${adapter?.name() ?? "-"} ${String(err)}`),
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
        : Promise.resolve(noCapitalResult({ status: "skipped", reason: { kind: "own_position" } }));
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

Deno.test("cycle order: adapters in registration order with sorted tasks, refresh last (no recovery step)", async () => {
  const trace: string[] = [];
  const h = hooks();
  const vault = fakeVault();
  const a1 = adapter({ name: "lending_pool", tasks: [t("x", 1), t("y", 7), t("z", 10)] }, trace);
  const a2 = adapter({ name: "allocation", tasks: [t("w", 3)] }, trace);
  const r = await runCycle({
    chain,
    keypair: kp,
    vault,
    adapters: [a1, a2],
    hooks: h,
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
        : Promise.resolve(noCapitalResult({ status: "waiting", reason: never })),
  }, trace);
  const r = await runCycle({
    chain,
    keypair: kp,
    vault: fakeVault(),
    adapters: [bad, flaky],
    hooks: h,
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

Deno.test("every task gets the flash-only vault client; a TaskError's result is recorded, later tasks still run", async () => {
  const trace: string[] = [];
  const h = hooks();
  const vault = fakeVault();
  const a = adapter({
    name: "lending_pool",
    capital: 100n,
    tasks: [t("1", 5), t("2", 4), t("3", 3)],
    run: async (task, v) => {
      assert.deepEqual(Object.keys(v).sort(), ["flash", "flashPolicy", "simulateFlash"]);
      const out = await v.flash("CEXEC", 100n, xdr.ScVal.scvVoid(), 5, { auth: ROOT_ONLY });
      const r: Result = {
        drew: 100n,
        proceeds: 100n + out.profit,
        profit: out.profit,
        responseTimeMs: 5,
        outcome: {
          status: "filled",
          user: `G${task.label}`,
          percent: 100,
          auctionBlock: 1,
          fillLedger: 2,
          targetBlock: 2,
          ratio: 1.1,
          swaps: 0,
        },
      };
      if (task.label === "2") throw new TaskError("boom after the flash", r);
      return r;
    },
  }, trace);
  const r = await runCycle({ chain, keypair: kp, vault, adapters: [a], hooks: h });
  assert.deepEqual(vault.flashes, [100n, 100n, 100n], "no task is skipped for capital");
  assert.equal(h.results.length, 3);
  assert.deepEqual(h.results.map(([, l, res]) => [l, res.outcome.status]), [
    ["1", "filled"],
    ["2", "filled"],
    ["3", "filled"],
  ]);
  assert.equal(r.errors, 1);
  assert.equal(r.executed, 2);
  assert.ok(h.log.some((l) => l.startsWith("error execute lending_pool") && l.includes("boom")));
  assert.equal(h.refreshed, 1);
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
      return Promise.resolve(noCapitalResult({ status: "waiting", reason: never }));
    },
  }, trace);
  const b = adapter({ name: "b", tasks: [t("3", 1)] }, trace);
  await runCycle({
    chain,
    keypair: kp,
    vault: fakeVault(),
    adapters: [a, b],
    hooks: h,
    signal: ctrl.signal,
  });
  assert.deepEqual(trace, ["getTasks a", "execute a:1"]);
  assert.equal(h.refreshed, 1);
});

Deno.test("concurrency: up to N tasks of an adapter run at once, started in priority order; 1 runs them one after the other", async () => {
  const run = async (concurrency?: number) => {
    const trace: string[] = [];
    let inFlight = 0;
    let most = 0;
    const gates: (() => void)[] = [];
    const a = adapter({
      name: "lending_pool",
      tasks: [t("x", 1), t("y", 7), t("z", 10), t("w", 3)],
      run: async () => {
        inFlight++;
        most = Math.max(most, inFlight);
        await new Promise<void>((r) => gates.push(r));
        inFlight--;
        return noCapitalResult({ status: "skipped", reason: { kind: "own_position" } });
      },
    }, trace);
    const h = hooks();
    const done = runCycle({
      chain,
      keypair: kp,
      vault: fakeVault(),
      adapters: [a],
      hooks: h,
      concurrency,
    });
    // Release the tasks one at a time, as they queue up.
    for (let released = 0; released < 4; released++) {
      while (gates.length === 0) await new Promise((r) => setTimeout(r, 1));
      gates.shift()!();
    }
    const r = await done;
    assert.equal(r.executed, 4);
    assert.equal(h.results.length, 4, "every result folded in");
    return { most, order: trace.filter((l) => l.startsWith("execute")) };
  };
  const one = await run();
  assert.equal(one.most, 1);
  const two = await run(2);
  assert.equal(two.most, 2, "two tasks in flight at once");
  const order = [
    "execute lending_pool:z",
    "execute lending_pool:y",
    "execute lending_pool:w",
    "execute lending_pool:x",
  ];
  assert.deepEqual(one.order, order);
  assert.deepEqual(two.order, order, "started in priority order");
  assert.equal((await run(16)).most, 4, "never more workers than tasks");
});

/** One cycle of `adapters` with fresh hooks and vault. */
const cycleOf = (adapters: Adapter[], concurrency?: number, h = hooks()) =>
  runCycle({ chain, keypair: kp, vault: fakeVault(), adapters, hooks: h, concurrency });

/** A `too_early` wait for a block `ledgersToGo` ledgers away. */
const early = (ledgersToGo: number) => tooEarly(1, { block: 1 + ledgersToGo, ratio: 1.03 }, 1, 0.5);

Deno.test("retry: a waiting task with retryAfterMs runs again in the same cycle while another task still runs", async () => {
  const trace: string[] = [];
  let release!: () => void;
  let bRuns = 0;
  const a = adapter({
    name: "lending_pool",
    tasks: [t("long", 10), t("soon", 5)],
    run: async (task) => {
      if (task.label === "long") {
        // Held until "soon" came back a second time: the cycle must not wait for it to end.
        await new Promise<void>((r) => (release = r));
        return noCapitalResult({ status: "skipped", reason: { kind: "own_position" } });
      }
      bRuns++;
      if (bRuns === 2) release();
      return bRuns === 1
        ? noCapitalResult({ status: "waiting", reason: early(9) }, { retryAfterMs: 20 })
        : noCapitalResult({ status: "skipped", reason: { kind: "own_position" } });
    },
  }, trace);
  const h = hooks();
  const r = await cycleOf([a], 2, h);
  assert.equal(bRuns, 2, "retried once, in this cycle");
  assert.equal(r.executed, 3);
  assert.deepEqual(h.results.map(([, l, res]) => `${l} ${res.outcome.status}`), [
    "soon waiting",
    "soon skipped",
    "long skipped",
  ]);
});

Deno.test("retry: dropped when nothing else runs (the next cycle finds it); none without retryAfterMs; timers cleared", async () => {
  for (const retryAfterMs of [5, undefined]) {
    let runs = 0;
    const a = adapter({
      name: "lending_pool",
      tasks: [t("alone", 1)],
      run: () => {
        runs++;
        return Promise.resolve(
          noCapitalResult({ status: "waiting", reason: early(9) }, { retryAfterMs }),
        );
      },
    }, []);
    const r = await cycleOf([a], 4);
    assert.equal(runs, 1, `retryAfterMs ${retryAfterMs}`);
    assert.equal(r.executed, 1);
  }
  // Another task still runs, but the waiting one has no retryAfterMs: it runs once.
  let runs = 0;
  const b = adapter({
    name: "lending_pool",
    tasks: [t("long", 10), t("never", 5)],
    run: async (task) => {
      if (task.label === "long") await new Promise((r) => setTimeout(r, 60));
      else runs++;
      return noCapitalResult({ status: "waiting", reason: never });
    },
  }, []);
  await cycleOf([b], 2);
  assert.equal(runs, 1);
});

Deno.test("retry: a pending retry is dropped when the last running task ends (the cycle does not wait for it)", async () => {
  let soonRuns = 0;
  const a = adapter({
    name: "lending_pool",
    tasks: [t("long", 10), t("soon", 5)],
    run: async (task) => {
      if (task.label === "long") {
        await new Promise((r) => setTimeout(r, 30));
        return noCapitalResult({ status: "skipped", reason: { kind: "own_position" } });
      }
      soonRuns++;
      // Retry far later than the other task runs.
      return noCapitalResult({ status: "waiting", reason: early(50) }, { retryAfterMs: 60_000 });
    },
  }, []);
  const t0 = performance.now();
  await cycleOf([a], 2);
  assert.equal(soonRuns, 1);
  assert.ok(performance.now() - t0 < 5_000, "the cycle ended with its last running task");
});

Deno.test("retry: retryAfterMs 0 (a part filled) runs next in line at once, even alone, at most MAX_RETRIES_PER_CYCLE times", async () => {
  const trace: string[] = [];
  let parts = 0;
  const a = adapter({
    name: "lending_pool",
    tasks: [t("part", 10), t("other", 5)],
    run: (task) => {
      if (task.label !== "part") {
        return Promise.resolve(
          noCapitalResult({ status: "skipped", reason: { kind: "own_position" } }),
        );
      }
      parts++;
      // Two parts, then the rest.
      return Promise.resolve(
        parts < 3
          ? noCapitalResult({ status: "waiting", reason: never }, { retryAfterMs: 0 })
          : noCapitalResult({ status: "skipped", reason: { kind: "own_position" } }),
      );
    },
  }, trace);
  await cycleOf([a]);
  assert.deepEqual(trace.filter((l) => l.startsWith("execute")), [
    "execute lending_pool:part",
    "execute lending_pool:part",
    "execute lending_pool:part",
    "execute lending_pool:other",
  ], "one worker: the part-filled task again before the next one");
  // A task that always asks again is bounded.
  let runs = 0;
  const b = adapter({
    name: "lending_pool",
    tasks: [t("forever", 1)],
    run: () => {
      runs++;
      return Promise.resolve(
        noCapitalResult({ status: "waiting", reason: never }, { retryAfterMs: 0 }),
      );
    },
  }, []);
  await cycleOf([b]);
  assert.equal(runs, 1 + MAX_RETRIES_PER_CYCLE);
});
