/**
 * The demo's `--pools` flag and its keepers' environment: every pool in LENDING_POOLS, and
 * LENDING_POOL only where it says the same (one pool); the keepers' log lines name the pool first.
 */
import assert from "node:assert/strict";
import { demoKeeperEnv, demoPools, parseDemoArgs } from "./demo.ts";
import type { LocalnetOut } from "./dev_network.ts";
import { humanLine } from "./keepers.ts";
import { childEnv } from "@vigil/util/deno_child";

const id = (c: string) => `C${c.repeat(55)}`;

function out(pools: number): LocalnetOut {
  const contracts: Record<string, string> = {
    registry: id("R"),
    vault: id("V"),
    liquidator: id("L"),
    usdc: id("U"),
    lending_pool: id("A"),
  };
  if (pools >= 2) contracts.lending_pool_2 = id("B");
  if (pools >= 3) contracts.lending_pool_3 = id("D");
  const acct = (c: string) => ({ public: `G${c.repeat(55)}`, secret: `S${c.repeat(55)}` });
  return {
    rpcUrl: "http://127.0.0.1:8000/rpc",
    networkPassphrase: "Standalone Network ; February 2017",
    friendbotUrl: "http://127.0.0.1:8000/friendbot",
    contracts,
    accounts: { keeper1: acct("K"), alice: acct("A"), bob: acct("B") },
    depositors: ["alice", "bob"],
  };
}

const keeper = { name: "keeper1", first: true, port: 8080, pollInterval: 3, outPath: "/x" };

Deno.test("parseDemoArgs --pools: 1 by default, 1–3, anything else refused naming the flag", () => {
  assert.equal((parseDemoArgs([]) as { pools: number }).pools, 1);
  assert.equal((parseDemoArgs(["--pools", "3"]) as { pools: number }).pools, 3);
  for (const bad of ["0", "4", "2.5", "two"]) {
    assert.throws(() => parseDemoArgs(["--pools", bad]), /--pools must be an integer in \[1, 3\]/);
  }
});

Deno.test("demoKeeperEnv: LENDING_POOLS lists every pool; LENDING_POOL only for one pool", () => {
  const one = demoKeeperEnv(out(1), keeper);
  assert.equal(one.LENDING_POOLS, id("A"));
  assert.equal(one.LENDING_POOL, id("A"));
  assert.equal(one.KEEPER_NAME, "keeper-1");

  const three = out(3);
  assert.deepEqual(demoPools(three), [id("A"), id("B"), id("D")]);
  const env = demoKeeperEnv(three, keeper);
  assert.equal(env.LENDING_POOLS, `${id("A")},${id("B")},${id("D")}`);
  // Empty = unset: LENDING_POOL with a different value than LENDING_POOLS is a config error.
  assert.equal(env.LENDING_POOL, "");
});

Deno.test("humanLine puts a log line's pool first", () => {
  const line = JSON.stringify({
    level: "info",
    msg: "filled",
    user: "GUSER",
    profit: "1.5",
    pool: id("B"),
  });
  assert.equal(humanLine(line), `filled pool=${id("B")} user=GUSER profit=1.5`);
  assert.equal(humanLine(JSON.stringify({ msg: "tick", n: 1 })), "tick n=1");
  // A keeper's plain sentence replaces the key=value dump.
  assert.equal(
    humanLine(JSON.stringify({ level: "warn", msg: "x", n: 1, plain: "keeper-1 lost the race" })),
    "WARN keeper-1 lost the race",
  );
});

Deno.test("parseDemoArgs: flags after one or more forwarded `--` are the demo's flags", () => {
  for (
    const argv of [["--port", "18480"], ["--", "--port", "18480"], ["--", "--", "--port", "18480"]]
  ) {
    assert.equal((parseDemoArgs(argv) as { port: number }).port, 18480, JSON.stringify(argv));
  }
});

Deno.test("deno task start -- <flags> reaches the demo's parser; -- --help prints the demo's help", async () => {
  const root = new URL("../", import.meta.url).pathname;
  const task = (...args: string[]) =>
    new Deno.Command(Deno.execPath(), {
      args: ["task", "-q", "start", ...args],
      cwd: root,
      env: childEnv(),
      clearEnv: true,
      stdout: "piped",
      stderr: "piped",
    }).output();
  const dec = new TextDecoder();
  // An out-of-range port fails in the demo's own parser, before anything starts.
  const [bad, help] = await Promise.all([task("--", "--port", "99999"), task("--", "--help")]);
  assert.equal(bad.code, 2);
  assert.match(
    dec.decode(bad.stderr),
    /demo: --port must be an integer in \[0, 65535\], got "99999"/,
  );
  assert.equal(help.code, 0, dec.decode(help.stderr));
  assert.match(dec.decode(help.stdout), /^Usage: main\.ts demo \[options\]/);
  assert.match(dec.decode(help.stdout), /--port <n> {13}first keeper's API/);
});
