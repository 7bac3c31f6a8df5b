import assert from "node:assert/strict";
import { Keypair } from "@stellar/stellar-sdk";
import { type CycleHandle, runKeeper, SIGNAL_ECHO_MS, signalKind, startTicker } from "./daemon.ts";
import type { KeeperContext } from "./context.ts";
import {
  contractId,
  jsonLines,
  runKeeperToExit,
  spawnKeeper,
  validEnv,
} from "@vigil/testing/keeper/keeper_process";
import { startTestNode } from "@vigil/testing/localnet";
import { startMainKeeper } from "@vigil/testing/keeper/live_keeper";

const SECRET = Keypair.random().secret();
const quiet = { sink: null } as const;

function envWith(over: Record<string, string> = {}) {
  return { ...validEnv(SECRET), LENDING_POOL: contractId(9), ...over };
}

Deno.test("runKeeper: prepare → API → startCycle, then a clean shutdown that stops the cycle", async () => {
  const order: string[] = [];
  const ac = new AbortController();
  let ctxSeen: KeeperContext | undefined;
  const code = await runKeeper({
    env: envWith(),
    handleSignals: false,
    signal: ac.signal,
    defaultMetrics: false,
    logOptions: quiet,
    hooks: {
      prepare(ctx) {
        order.push("prepare");
        ctxSeen = ctx;
      },
      startCycle(ctx): CycleHandle {
        order.push("startCycle");
        assert.equal(ctx.signal.aborted, false);
        return {
          stop() {
            order.push(`stop(aborted=${ctx.signal.aborted})`);
            return Promise.resolve();
          },
        };
      },
    },
    onReady: async ({ url }) => {
      order.push("ready");
      const r = await fetch(`${url}/healthz`);
      await r.body?.cancel();
      order.push(`healthz ${r.status}`);
      ac.abort();
    },
  });
  assert.equal(code, 0);
  assert.deepEqual(order, ["prepare", "ready", "startCycle", "healthz 200", "stop(aborted=true)"]);
  const msgs = ctxSeen!.log.recent().map((l) => l.msg);
  assert.deepEqual(msgs.slice(-2), ["shutting down", "keeper stopped"]);
});

Deno.test("runKeeper: vault-monitor-only mode does not start the liquidation cycle", async () => {
  let started = 0;
  const ac = new AbortController();
  const code = await runKeeper({
    env: validEnv(SECRET), // no LENDING_POOL
    handleSignals: false,
    signal: ac.signal,
    defaultMetrics: false,
    logOptions: quiet,
    hooks: {
      startCycle() {
        started++;
        return { stop: () => Promise.resolve() };
      },
    },
    onReady: ({ ctx }) => {
      assert.equal(ctx.state.self.mode, "monitor");
      ac.abort();
    },
  });
  assert.equal(code, 0);
  assert.equal(started, 0);
});

Deno.test("runKeeper: a failing prepare hook or a bad config exits 1 without leaking the server", async () => {
  assert.equal(
    await runKeeper({
      env: envWith(),
      handleSignals: false,
      defaultMetrics: false,
      logOptions: quiet,
      hooks: {
        prepare() {
          throw new Error("cannot build adapters");
        },
      },
    }),
    1,
  );
  const errs: string[] = [];
  const orig = console.error;
  console.error = (m: string) => errs.push(m);
  try {
    assert.equal(await runKeeper({ env: {}, handleSignals: false }), 1);
  } finally {
    console.error = orig;
  }
  assert.deepEqual(errs, [
    "3 configuration errors:\n- missing required env: KEEPER_SECRET\n" +
    "- missing required env: REGISTRY_CONTRACT\n- missing required env: VAULT_CONTRACT",
  ]);
});

Deno.test("runKeeper: a cycle that does not stop in time is abandoned after shutdownTimeoutMs", async () => {
  const ac = new AbortController();
  let release!: () => void;
  const stuck = new Promise<void>((r) => (release = r));
  let ctxSeen: KeeperContext | undefined;
  const t0 = performance.now();
  const code = await runKeeper({
    env: envWith(),
    handleSignals: false,
    signal: ac.signal,
    defaultMetrics: false,
    logOptions: quiet,
    shutdownTimeoutMs: 100,
    hooks: { startCycle: () => ({ stop: () => stuck }) },
    onReady: ({ ctx }) => {
      ctxSeen = ctx;
      setTimeout(() => ac.abort(), 0);
    },
  });
  assert.equal(code, 0);
  assert.ok(performance.now() - t0 < 5000);
  assert.ok(ctxSeen!.log.recent().some((l) => l.msg === "abandoning the cycle in progress"));
  release();
});

Deno.test("startTicker: immediate first cycle, no overlap, failures counted, stop waits", async () => {
  const ac = new AbortController();
  let ctx!: KeeperContext;
  const code = runKeeper({
    env: envWith(),
    handleSignals: false,
    signal: ac.signal,
    defaultMetrics: false,
    logOptions: quiet,
    hooks: {
      startCycle(c) {
        ctx = c;
        let running = 0;
        let maxRunning = 0;
        let n = 0;
        const handle = startTicker(c, async () => {
          running++;
          maxRunning = Math.max(maxRunning, running);
          n++;
          // Longer than the interval: the ticker must not start another one meanwhile.
          await new Promise((r) => setTimeout(r, 30));
          running--;
          if (n === 2) throw new Error("adapter exploded");
          return { errors: 0 };
        }, { intervalMs: 10 });
        (c as unknown as { probe: () => number }).probe = () => maxRunning;
        return handle;
      },
    },
  });
  await new Promise((r) => setTimeout(r, 10));
  const deadline = Date.now() + 5000;
  while (!ctx || ctx.state.stats.cycles < 4) {
    if (Date.now() > deadline) throw new Error("ticker did not run");
    await new Promise((r) => setTimeout(r, 10));
  }
  ac.abort();
  assert.equal(await code, 0);
  const cyclesAtStop = ctx.state.stats.cycles;
  await new Promise((r) => setTimeout(r, 60));
  assert.equal(ctx.state.stats.cycles, cyclesAtStop, "a cycle ran after stop");
  assert.equal((ctx as unknown as { probe: () => number }).probe(), 1);
  assert.equal(ctx.state.stats.errors, 1);
  const text = await ctx.metrics.render();
  assert.match(text, new RegExp(`^keeper_cycles_total ${cyclesAtStop}$`, "m"));
  assert.match(text, /^keeper_errors_total\{kind="cycle",adapter=""\} 1$/m);
  assert.ok(ctx.log.recent().some((l) => l.msg === "cycle failed" && l.level === "error"));
});

Deno.test("main.ts keeper: the web pages take NEXT_PUBLIC_* from .env like the keeper does", async () => {
  // `.env.example` says its variables can live in `.env`; the pages must see them there too
  // (they once read only the process environment and silently showed the keeper's defaults).
  const dotenv: Record<string, string> = {
    ...validEnv(SECRET),
    NEXT_PUBLIC_VAULT_CONTRACT: contractId(7),
    NEXT_PUBLIC_REGISTRY_CONTRACT: contractId(8),
    NEXT_PUBLIC_API_URL: "http://127.0.0.1:9/",
  };
  const k = await startMainKeeper({}, 60_000, { dotenv });
  try {
    const res = await fetch(`${k.url}/`);
    const html = await res.text();
    assert.equal(res.status, 200);
    const footer = html.slice(html.indexOf('<footer class="site-footer">'));
    assert.match(footer, new RegExp(`Vault <code>${contractId(7)}</code>`));
    assert.match(footer, new RegExp(`Registry <code>${contractId(8)}</code>`));
    assert.match(footer, /Keeper API <code>http:\/\/127\.0\.0\.1:9<\/code>/);
    // The keeper itself still runs on its own contracts from the same file.
    const state = await (await fetch(`${k.url}/api/state?events=0&positions=0`)).json();
    assert.equal(state.keeper.vault_contract, dotenv.VAULT_CONTRACT);
  } finally {
    const out = await k.stop();
    assert.equal(out.code, 0, out.stderr.slice(-2000));
    assert.ok(!out.stderr.includes(SECRET) && !out.stdout.includes(SECRET));
  }
});

// ---------------------------------------------------------------- start-up checks of the RPC

Deno.test("process: an unreachable RPC is said as such, and registration does not blame the account", async () => {
  // validEnv's RPC is a closed loopback port: connection refused.
  const k = spawnKeeper(validEnv(SECRET));
  try {
    await k.waitFor(/"msg":"registration failed/);
    const lines = jsonLines(k.stderr());
    const unreachable = lines.find((l) =>
      String(l.msg).startsWith("RPC http://127.0.0.1:9/rpc is unreachable: RpcError: getNetwork")
    );
    assert.ok(unreachable, k.stderr());
    assert.equal(unreachable.level, "error");
    const reg = lines.find((l) => String(l.msg).startsWith("registration failed"))!;
    assert.ok(!/Account not found/.test(JSON.stringify(reg)), JSON.stringify(reg));
    // The RPC's own error (the first request of registration), never the account.
    assert.match(String(reg.msg), /^registration failed \(RpcError: /);
  } finally {
    k.child.kill("SIGTERM");
    assert.equal((await k.finish()).code, 0);
  }
});

Deno.test("process: a wrong NETWORK_PASSPHRASE names both passphrases and exits 1; an unfunded account is told to fund it", async () => {
  await using node = await startTestNode();
  const env = { ...validEnv(SECRET), SOROBAN_RPC: node.rpcUrl };
  const account = Keypair.fromSecret(SECRET).publicKey();
  const [wrong, unfunded] = [
    runKeeperToExit({ ...env, NETWORK_PASSPHRASE: "Wrong Network ; 2026" }),
    spawnKeeper({ ...env, NETWORK_PASSPHRASE: node.networkPassphrase }),
  ];
  try {
    const fund = await unfunded.waitFor(
      /"msg":"account (G[A-Z2-7]{55}) not found on ([^:]+): fund it \(friendbot (\S+), addr=(G[A-Z2-7]{55})\)/,
    );
    assert.equal(fund[1], account);
    assert.equal(fund[2], `the network \\"${node.networkPassphrase}\\"`);
    assert.equal(fund[3], node.friendbotUrl);
    assert.equal(fund[4], account);
  } finally {
    unfunded.child.kill("SIGTERM");
    assert.equal((await unfunded.finish()).code, 0);
  }
  const r = await wrong;
  assert.equal(r.code, 1, r.stderr);
  const failed = jsonLines(r.stderr).find((l) => l.msg === "start-up failed");
  assert.ok(failed, r.stderr);
  assert.equal(
    (failed.err as { message: string }).message,
    `network passphrase mismatch: NETWORK_PASSPHRASE is "Wrong Network ; 2026" but the RPC ${node.rpcUrl} serves "${node.networkPassphrase}": set one of them to the other`,
  );
  // Nothing was sent to a network the keeper was not configured for.
  assert.ok(!/registration failed|registered in/.test(r.stderr));
});

Deno.test("process: LOG_FORMAT=text writes one plain sentence per line, no JSON", async () => {
  const k = spawnKeeper({ ...validEnv(SECRET), LOG_FORMAT: "text" });
  try {
    await k.waitFor(/registration failed/);
  } finally {
    k.child.kill("SIGTERM");
  }
  const r = await k.finish();
  assert.equal(r.code, 0);
  const lines = r.stderr.trimEnd().split("\n");
  for (const l of lines) assert.match(l, /^\d\d:\d\d:\d\d (?:(?:WARN|ERROR|DEBUG) )?\S/, l);
  assert.ok(!lines.some((l) => l.startsWith("{")), r.stderr);
  assert.ok(lines.some((l) => / keeper starting$/.test(l)), r.stderr);
  assert.ok(
    lines.some((l) => / WARN no LENDING_POOLS .*: this keeper will never liquidate$/.test(l)),
    r.stderr,
  );
  assert.ok(
    lines.some((l) => / ERROR the RPC http:\/\/127\.0\.0\.1:9\/rpc is unreachable \(/.test(l)),
    r.stderr,
  );
  assert.equal(lines.at(-1)!.slice(9), "keeper stopped");
  assert.ok(!r.stderr.includes(SECRET));
});

Deno.test("signalKind: one Ctrl-C delivered twice (terminal and parent) is one stop; a later one forces", () => {
  let now = 1_000;
  const kind = signalKind(() => now);
  assert.equal(kind(), "stop");
  now += 20;
  assert.equal(kind(), "echo"); // the parent's forward of the same Ctrl-C
  now += SIGNAL_ECHO_MS;
  assert.equal(kind(), "force"); // an operator's second Ctrl-C
  assert.equal(kind(), "force");
});
