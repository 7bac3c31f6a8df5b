import assert from "node:assert/strict";
import { Keypair, Networks } from "@stellar/stellar-sdk";
import { CONFIG_VARIABLES, ConfigError, DEFAULTS, loadConfig, readEnvironment } from "./config.ts";
import {
  contractId,
  jsonLines,
  runKeeperToExit,
  spawnKeeper,
  validEnv,
} from "@vigil/testing/keeper/keeper_process";
// Variables the web pages served by the keeper read, straight from their loader.
import { WEB_VARIABLES } from "@vigil/web/config";
import { childEnv, denoRunArgs } from "@vigil/util/deno_child";
import { CONFIG_HELP, keeperHelp } from "./help.ts";

const SECRET = Keypair.random().secret();
const env = (over: Record<string, string | undefined> = {}): Record<string, string> => {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries({ ...validEnv(SECRET), ...over })) {
    if (v !== undefined) out[k] = v;
  }
  return out;
};

function configError(e: Record<string, string | undefined>): ConfigError {
  let caught: unknown;
  try {
    loadConfig(e);
  } catch (err) {
    caught = err;
  }
  assert.ok(caught instanceof ConfigError, `expected a ConfigError, got ${caught}`);
  return caught;
}

// ---------------------------------------------------------------- pure: loadConfig

Deno.test("loadConfig: defaults of every optional variable", () => {
  const c = loadConfig({
    KEEPER_SECRET: SECRET,
    REGISTRY_CONTRACT: contractId(1),
    VAULT_CONTRACT: contractId(2),
  });
  assert.equal(c.operator, Keypair.fromSecret(SECRET).publicKey());
  assert.equal(c.keypair.secret(), SECRET);
  assert.equal(c.keeperName, "keeper-1");
  assert.equal(c.sorobanRpc, "https://soroban-testnet.stellar.org");
  assert.equal(c.horizonUrl, "https://horizon-testnet.stellar.org");
  assert.equal(c.networkPassphrase, Networks.TESTNET);
  assert.equal(c.pollIntervalSec, 10);
  assert.equal(c.minProfit, 1.02);
  assert.equal(c.apiPort, 8080);
  assert.equal(c.slippageBps, DEFAULTS.SLIPPAGE_BPS);
  assert.equal(c.slippageBps, 100);
  assert.equal(c.allocationDriftBps, 500);
  assert.deepEqual(c.lendingPools, []);
  assert.equal(c.usdcContract, null);
  assert.equal(c.primaryDexRouter, null);
  assert.equal(c.fallbackDexRouter, null);
  assert.equal(c.allocationVault, null);
  assert.deepEqual(c.knownDepositors, []);
  assert.equal(c.corsOrigins, null);
  assert.equal(c.logLevel, "info");
  assert.equal(c.channelAccounts, 2);
  assert.equal(c.channelAccounts, DEFAULTS.CHANNEL_ACCOUNTS);
});

Deno.test("loadConfig: CHANNEL_ACCOUNTS is an integer in [0, 16]; 0 = the keeper's account sends", () => {
  assert.equal(loadConfig(env({ CHANNEL_ACCOUNTS: "0" })).channelAccounts, 0);
  assert.equal(loadConfig(env({ CHANNEL_ACCOUNTS: "16" })).channelAccounts, 16);
  assert.equal(loadConfig(env({ CHANNEL_ACCOUNTS: " " })).channelAccounts, 2, "blank = default");
  for (const bad of ["17", "-1", "1.5", "two"]) {
    const e = configError(env({ CHANNEL_ACCOUNTS: bad }));
    assert.equal(e.variable, "CHANNEL_ACCOUNTS", bad);
    assert.match(e.message, /^invalid CHANNEL_ACCOUNTS: .*(outside \[0, 16\]|not an integer)/);
  }
  // Reported with every other problem at once.
  const all = configError(env({ POLL_INTERVAL: "2", CHANNEL_ACCOUNTS: "99" }));
  assert.deepEqual(all.problems.map((p) => p.variable), ["POLL_INTERVAL", "CHANNEL_ACCOUNTS"]);
  assert.equal(loadConfig(env({ CHANNEL_ACCOUNTS: "3" })).toJSON().channelAccounts, 3);
});

Deno.test("loadConfig: explicit values are parsed", () => {
  const g1 = Keypair.random().publicKey();
  const g2 = Keypair.random().publicKey();
  const c = loadConfig(env({
    KEEPER_NAME: "  alpha  ",
    LENDING_POOL: contractId(3),
    USDC_CONTRACT: contractId(4),
    SOROBAN_RPC: "http://127.0.0.1:8000/rpc",
    HORIZON_URL: "http://127.0.0.1:8000",
    NETWORK_PASSPHRASE: "Standalone Network ; February 2017",
    POLL_INTERVAL: "3",
    MIN_PROFIT: "0.5",
    API_PORT: "9090",
    PRIMARY_DEX_ROUTER: contractId(5),
    FALLBACK_DEX_ROUTER: contractId(6),
    SLIPPAGE_BPS: "0",
    ALLOCATION_VAULT: contractId(7),
    ALLOCATION_DRIFT_BPS: "10000",
    KNOWN_DEPOSITORS: ` ${g1} ,\n${contractId(8)},, ${g1},${g2} `,
    API_CORS_ORIGINS: "https://vigil.example, http://localhost:5173",
    LOG_LEVEL: "DEBUG",
  }));
  assert.equal(c.keeperName, "alpha");
  assert.deepEqual(c.lendingPools, [contractId(3)]);
  assert.equal(c.pollIntervalSec, 3);
  assert.equal(c.minProfit, 0.5);
  assert.equal(c.apiPort, 9090);
  assert.equal(c.slippageBps, 0);
  assert.equal(c.allocationDriftBps, 10000);
  assert.deepEqual(c.knownDepositors, [g1, contractId(8), g2]);
  assert.deepEqual(c.corsOrigins, ["https://vigil.example", "http://localhost:5173"]);
  assert.equal(c.logLevel, "debug");
  // Blank optional values fall back to defaults / "unset".
  const d = loadConfig(env({ LENDING_POOL: "  ", POLL_INTERVAL: "", KNOWN_DEPOSITORS: " , " }));
  assert.deepEqual(d.lendingPools, []);
  assert.equal(d.pollIntervalSec, 10);
  assert.deepEqual(d.knownDepositors, []);
});

const ALL_MISSING = [
  "3 configuration errors:",
  "- missing required env: KEEPER_SECRET",
  "- missing required env: REGISTRY_CONTRACT",
  "- missing required env: VAULT_CONTRACT",
].join("\n");

Deno.test("loadConfig: missing or blank required variables, all of them, in table order", () => {
  const none = configError({});
  assert.equal(none.message, ALL_MISSING);
  assert.equal(none.variable, "KEEPER_SECRET");
  assert.deepEqual(none.problems.map((p) => p.variable), [
    "KEEPER_SECRET",
    "REGISTRY_CONTRACT",
    "VAULT_CONTRACT",
  ]);
  assert.equal(
    configError(env({ KEEPER_SECRET: " \t" })).message,
    "missing required env: KEEPER_SECRET",
  );
  assert.equal(
    configError({ ...env(), REGISTRY_CONTRACT: undefined }).message,
    "missing required env: REGISTRY_CONTRACT",
  );
  assert.equal(
    configError(env({ VAULT_CONTRACT: "" })).message,
    "missing required env: VAULT_CONTRACT",
  );
  // Missing required variables are reported before malformed optional ones, all in one message.
  const e = configError({ POLL_INTERVAL: "1", KEEPER_SECRET: SECRET });
  assert.equal(e.variable, "REGISTRY_CONTRACT");
  assert.equal(
    e.message,
    [
      "3 configuration errors:",
      "- missing required env: REGISTRY_CONTRACT",
      "- missing required env: VAULT_CONTRACT",
      "- invalid POLL_INTERVAL: 1 is outside [3, 300]",
    ].join("\n"),
  );
});

Deno.test("loadConfig: every invalid value is reported at once, in check order", () => {
  const e = configError(env({
    KEEPER_SECRET: "SNOTASECRET",
    VAULT_CONTRACT: "CABC",
    POLL_INTERVAL: "2",
    MIN_PROFIT: "0",
    LOG_LEVEL: "loud",
    LOG_FORMAT: "xml",
    DRY_RUN: "maybe",
  }));
  assert.equal(e.variable, "KEEPER_SECRET");
  assert.deepEqual(e.problems.map((p) => p.variable), [
    "KEEPER_SECRET",
    "VAULT_CONTRACT",
    "POLL_INTERVAL",
    "MIN_PROFIT",
    "LOG_LEVEL",
    "LOG_FORMAT",
    "DRY_RUN",
  ]);
  const lines = e.message.split("\n");
  assert.equal(lines[0], "7 configuration errors:");
  assert.deepEqual(lines.slice(1), e.problems.map((p) => `- ${p.message}`));
  assert.equal(lines[6], '- invalid LOG_FORMAT: "xml" is not json or text');
  // One problem: its line alone, as before.
  assert.equal(
    configError(env({ POLL_INTERVAL: "2" })).message,
    "invalid POLL_INTERVAL: 2 is outside [3, 300]",
  );
  // LOG_FORMAT: json, text (any case), or unset (null: decided by the terminal).
  assert.equal(loadConfig(env({ LOG_FORMAT: "TEXT" })).logFormat, "text");
  assert.equal(loadConfig(env({ LOG_FORMAT: "json" })).logFormat, "json");
  assert.equal(loadConfig(env({ LOG_FORMAT: " " })).logFormat, null);
});

Deno.test("loadConfig: ranges and malformed values name the variable", () => {
  const cases: [Record<string, string>, string, RegExp][] = [
    [{ POLL_INTERVAL: "2" }, "POLL_INTERVAL", /outside \[3, 300\]/],
    [{ POLL_INTERVAL: "301" }, "POLL_INTERVAL", /outside \[3, 300\]/],
    [{ POLL_INTERVAL: "10.5" }, "POLL_INTERVAL", /not an integer/],
    [{ POLL_INTERVAL: "ten" }, "POLL_INTERVAL", /not an integer/],
    [{ POLL_INTERVAL: "1e1" }, "POLL_INTERVAL", /not an integer/],
    [{ MIN_PROFIT: "0" }, "MIN_PROFIT", /> 0/],
    [{ MIN_PROFIT: "-1.5" }, "MIN_PROFIT", /> 0/],
    [{ MIN_PROFIT: "abc" }, "MIN_PROFIT", /not a number/],
    [{ MIN_PROFIT: "Infinity" }, "MIN_PROFIT", /not a number/],
    [{ MIN_PROFIT: "1e999" }, "MIN_PROFIT", /finite/],
    [{ MIN_PROFIT: "0x10" }, "MIN_PROFIT", /not a number/],
    [{ SLIPPAGE_BPS: "10001" }, "SLIPPAGE_BPS", /outside \[0, 10000\]/],
    [{ SLIPPAGE_BPS: "-1" }, "SLIPPAGE_BPS", /outside \[0, 10000\]/],
    [{ SLIPPAGE_BPS: "1.5" }, "SLIPPAGE_BPS", /not an integer/],
    [{ ALLOCATION_DRIFT_BPS: "10001" }, "ALLOCATION_DRIFT_BPS", /outside \[0, 10000\]/],
    [{ API_PORT: "65536" }, "API_PORT", /outside/],
    [{ API_PORT: "http" }, "API_PORT", /not an integer/],
    [{ REGISTRY_CONTRACT: "GABC" }, "REGISTRY_CONTRACT", /not a contract address/],
    [{ VAULT_CONTRACT: Keypair.random().publicKey() }, "VAULT_CONTRACT", /not a contract/],
    [{ LENDING_POOL: "CNOTVALID" }, "LENDING_POOL", /not a contract address/],
    [{ USDC_CONTRACT: "x" }, "USDC_CONTRACT", /not a contract address/],
    [{ PRIMARY_DEX_ROUTER: "x" }, "PRIMARY_DEX_ROUTER", /not a contract address/],
    [{ FALLBACK_DEX_ROUTER: "x" }, "FALLBACK_DEX_ROUTER", /not a contract address/],
    [{ ALLOCATION_VAULT: "x" }, "ALLOCATION_VAULT", /not a contract address/],
    [{ SOROBAN_RPC: "not a url" }, "SOROBAN_RPC", /not a URL/],
    [{ HORIZON_URL: "ftp://h" }, "HORIZON_URL", /not an http\(s\) URL/],
    [{ KNOWN_DEPOSITORS: `${contractId(1)},GBAD` }, "KNOWN_DEPOSITORS", /entry 2 "GBAD"/],
    [{ API_CORS_ORIGINS: "https://x.org/path" }, "API_CORS_ORIGINS", /not an origin/],
    [{ LOG_LEVEL: "loud" }, "LOG_LEVEL", /LOG_LEVEL/],
    [{ KEEPER_NAME: "a\u0007b" }, "KEEPER_NAME", /control/],
    [{ KEEPER_SECRET: "SNOTASECRET" }, "KEEPER_SECRET", /not a Stellar secret seed/],
    [{ KEEPER_SECRET: Keypair.random().publicKey() }, "KEEPER_SECRET", /not a Stellar secret/],
    [{ LENDING_POOLS: `${contractId(1)}, CNOTVALID` }, "LENDING_POOLS", /entry 2 "CNOTVALID"/],
    [
      { LENDING_POOLS: Array.from({ length: 11 }, (_, i) => contractId(i + 1)).join(",") },
      "LENDING_POOLS",
      /11 pools, at most 10/,
    ],
    [
      { LENDING_POOL: contractId(1), LENDING_POOLS: `${contractId(1)},${contractId(2)}` },
      "LENDING_POOLS",
      /LENDING_POOL is also set, to different pools/,
    ],
    [{ WATCH_ADDRESSES: "GBAD" }, "WATCH_ADDRESSES", /entry 1 "GBAD"/],
    [{ WATCH_ADDRESSES: "@/nonexistent/watch.txt" }, "WATCH_ADDRESSES", /cannot read/],
    [{ DRY_RUN: "maybe" }, "DRY_RUN", /not true or false/],
    [{ NOTIFY_WEBHOOK_URL: "ftp://hooks.example/T0/B0/x" }, "NOTIFY_WEBHOOK_URL", /http\(s\)/],
  ];
  for (const [over, variable, re] of cases) {
    const e = configError(env(over));
    assert.equal(e.variable, variable, JSON.stringify(over));
    assert.ok(e.message.includes(variable), e.message);
    assert.match(e.message, re, JSON.stringify(over));
  }
});

Deno.test("loadConfig: LENDING_POOLS, WATCH_ADDRESSES (list or @file), DRY_RUN, KEEPER_STATE_DIR, NOTIFY_WEBHOOK_URL", () => {
  const [p1, p2, p3] = [contractId(11), contractId(12), contractId(13)];
  const c = loadConfig(env({ LENDING_POOLS: ` ${p1}, ${p2},,${p1},${p3} ` }));
  assert.deepEqual(c.lendingPools, [p1, p2, p3]);
  // LENDING_POOL is a one-pool list; both set to the same pool is not a conflict.
  assert.deepEqual(loadConfig(env({ LENDING_POOL: p2 })).lendingPools, [p2]);
  assert.deepEqual(loadConfig(env({ LENDING_POOL: p2, LENDING_POOLS: p2 })).lendingPools, [p2]);
  const g = Keypair.random().publicKey();
  const files: Record<string, string> = {
    "/etc/vigil/watch.txt": `# borrowers from the pool's old events\n${g}\n${p3}, ${g}\n\n`,
  };
  const io = {
    readTextFile: (path: string) => {
      if (!(path in files)) throw new Deno.errors.NotFound(`no ${path}`);
      return files[path];
    },
  };
  assert.deepEqual(
    loadConfig(env({ WATCH_ADDRESSES: "@/etc/vigil/watch.txt" }), io).watchAddresses,
    [
      g,
      p3,
    ],
  );
  assert.deepEqual(loadConfig(env({ WATCH_ADDRESSES: `${g},${p3}` }), io).watchAddresses, [g, p3]);
  for (
    const [v, want] of [["true", true], ["1", true], ["YES", true], ["false", false], ["0", false]]
  ) {
    assert.equal(loadConfig(env({ DRY_RUN: v as string })).dryRun, want, String(v));
  }
  const d = loadConfig(env());
  assert.equal(d.dryRun, false);
  assert.equal(d.keeperStateDir, null);
  assert.deepEqual(d.watchAddresses, []);
  assert.equal(d.notifyWebhookUrl, null);
  assert.equal(
    loadConfig(env({ KEEPER_STATE_DIR: " /var/lib/vigil " })).keeperStateDir,
    "/var/lib/vigil",
  );
  // The webhook URL is a credential (its path): only its origin ever shows.
  const hook = "https://hooks.slack.com/services/T000/B000/XXXXsecretXXXX";
  const w = loadConfig(env({ NOTIFY_WEBHOOK_URL: hook }));
  assert.equal(w.notifyWebhookUrl, hook);
  const shown = JSON.stringify(w) + Deno.inspect(w);
  assert.ok(!shown.includes("XXXXsecretXXXX"), shown);
  assert.ok(shown.includes("https://hooks.slack.com/…"));
  const bad = configError(env({ NOTIFY_WEBHOOK_URL: "hooks.slack.com/services/XXXXsecretXXXX" }));
  assert.ok(!bad.message.includes("XXXXsecretXXXX"), bad.message);
});

Deno.test("loadConfig: the secret never shows in messages, JSON or inspection", () => {
  // A secret pasted into the wrong variable is not echoed back either.
  const e = configError(env({ VAULT_CONTRACT: SECRET }));
  assert.ok(!e.message.includes(SECRET), e.message);
  const bad = SECRET.slice(0, 55) + (SECRET[55] === "A" ? "B" : "A");
  assert.ok(!configError(env({ KEEPER_SECRET: bad })).message.includes(bad));

  const c = loadConfig(env());
  const views = [
    JSON.stringify(c),
    Deno.inspect(c),
    Deno.inspect(c, { showHidden: true, depth: 10 }),
    Object.keys(c).join(","),
    String(Object.values(c)),
  ];
  for (const v of views) assert.ok(!v.includes(SECRET), `leak in: ${v.slice(0, 80)}`);
  assert.ok(JSON.stringify(c).includes(c.operator));
  assert.ok(!Object.keys(c).includes("keypair"));
  assert.equal(c.keypair.publicKey(), c.operator);
  assert.throws(() => ((c as unknown as { keeperName: string }).keeperName = "x"));
});

Deno.test("loadConfig: endpoint credentials are kept for use but never shown", () => {
  const rpc = "https://user:rpc-pa55word@rpc.example.org/soroban?apikey=rpc-k3y-42";
  const c = loadConfig(env({ SOROBAN_RPC: rpc, HORIZON_URL: "https://h.example/?key=hz-k3y-42" }));
  // The keeper connects with them…
  assert.equal(c.sorobanRpc, rpc);
  // …but its JSON and inspection views (what logs and the API would see) hold neither part.
  for (const v of [JSON.stringify(c), Deno.inspect(c)]) {
    for (const s of ["rpc-pa55word", "rpc-k3y-42", "hz-k3y-42", "user:"]) {
      assert.ok(!v.includes(s), `${s} in ${v.slice(0, 120)}`);
    }
  }
  assert.equal(
    JSON.parse(JSON.stringify(c)).sorobanRpc,
    "https://rpc.example.org/soroban?apikey=REDACTED",
  );
  // An invalid endpoint's message does not echo its credentials.
  const e = configError(env({ SOROBAN_RPC: "ftp://u:pw-secret-1@h.example/?k=v-secret-2" }));
  assert.match(e.message, /^invalid SOROBAN_RPC: /);
  assert.ok(!e.message.includes("pw-secret-1") && !e.message.includes("v-secret-2"), e.message);
});

Deno.test("readEnvironment: .env is read best-effort and the real environment wins", () => {
  const dir = Deno.makeTempDirSync();
  try {
    assert.deepEqual(readEnvironment({ dir, processEnv: { A: "1" } }), {
      env: { A: "1" },
      dotenvPath: null,
      warnings: [],
    });
    Deno.writeTextFileSync(
      `${dir}/.env`,
      `# comment\nKEEPER_NAME=from-file\nPOLL_INTERVAL="12"\nKEEPER_SECRET=${SECRET}\nEMPTY_IN_ENV=file\n`,
      { mode: 0o644 },
    );
    Deno.chmodSync(`${dir}/.env`, 0o644);
    const r = readEnvironment({ dir, processEnv: { KEEPER_NAME: "from-env", EMPTY_IN_ENV: "" } });
    assert.equal(r.env.KEEPER_NAME, "from-env");
    assert.equal(r.env.POLL_INTERVAL, "12");
    assert.equal(r.env.EMPTY_IN_ENV, ""); // set-but-empty in the environment still wins
    assert.equal(r.dotenvPath, `${dir}/.env`);
    assert.equal(r.warnings.length, 1);
    assert.match(r.warnings[0], /readable by other users/);
    assert.ok(!r.warnings[0].includes(SECRET));
    Deno.chmodSync(`${dir}/.env`, 0o600);
    assert.deepEqual(readEnvironment({ dir, processEnv: {} }).warnings, []);
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});

// ---------------------------------------------------------------- the keeper as a child process

Deno.test("process: missing required variables print the exact message, all at once, and exit 1", async () => {
  const cases: [Record<string, string>, string][] = [
    [{}, ALL_MISSING],
    [
      { KEEPER_SECRET: "   ", POLL_INTERVAL: "2" },
      [
        "4 configuration errors:",
        "- missing required env: KEEPER_SECRET",
        "- missing required env: REGISTRY_CONTRACT",
        "- missing required env: VAULT_CONTRACT",
        "- invalid POLL_INTERVAL: 2 is outside [3, 300]",
      ].join("\n"),
    ],
    [
      { KEEPER_SECRET: SECRET, REGISTRY_CONTRACT: contractId(1), VAULT_CONTRACT: "" },
      "missing required env: VAULT_CONTRACT",
    ],
  ];
  const results = await Promise.all(cases.map(([e]) => runKeeperToExit(e)));
  results.forEach((r, i) => {
    assert.equal(r.code, 1);
    assert.equal(r.stderr, `${cases[i][1]}\n`);
    assert.equal(r.stdout, "");
  });
});

Deno.test("process: out-of-range and malformed values print a message naming the variable, exit 1", async () => {
  const cases: [Record<string, string>, string][] = [
    [{ POLL_INTERVAL: "2" }, "POLL_INTERVAL"],
    [{ POLL_INTERVAL: "301" }, "POLL_INTERVAL"],
    [{ POLL_INTERVAL: "abc" }, "POLL_INTERVAL"],
    [{ MIN_PROFIT: "0" }, "MIN_PROFIT"],
    [{ MIN_PROFIT: "-2" }, "MIN_PROFIT"],
    [{ SLIPPAGE_BPS: "10001" }, "SLIPPAGE_BPS"],
    [{ ALLOCATION_DRIFT_BPS: "-1" }, "ALLOCATION_DRIFT_BPS"],
    [{ KEEPER_SECRET: SECRET.slice(0, 20) }, "KEEPER_SECRET"],
    [{ VAULT_CONTRACT: "CABC" }, "VAULT_CONTRACT"],
    [{ LENDING_POOLS: `${contractId(1)},not-a-pool` }, "LENDING_POOLS"],
    [{ LENDING_POOL: contractId(1), LENDING_POOLS: contractId(2) }, "LENDING_POOLS"],
  ];
  const results = await Promise.all(cases.map(([over]) => runKeeperToExit(env(over))));
  results.forEach((r, i) => {
    const [over, variable] = cases[i];
    assert.equal(r.code, 1, JSON.stringify(over));
    const lines = r.stderr.trimEnd().split("\n");
    assert.equal(lines.length, 1, r.stderr);
    assert.ok(lines[0].startsWith(`invalid ${variable}: `), lines[0]);
    assert.ok(!r.stderr.includes(SECRET.slice(0, 20)) || variable !== "KEEPER_SECRET");
  });
});

Deno.test("process: .env loading, environment precedence, monitor mode, clean SIGTERM, no secret in logs", async () => {
  const dir = Deno.makeTempDirSync({ prefix: "vigil-dotenv-" });
  try {
    const e = validEnv(SECRET);
    const file = Object.entries({ ...e, KEEPER_NAME: "from-dotenv", POLL_INTERVAL: "7" })
      .map(([k, v]) => `${k}=${v}`).join("\n");
    Deno.writeTextFileSync(`${dir}/.env`, file + "\n", { mode: 0o600 });
    Deno.chmodSync(`${dir}/.env`, 0o600);
    // Only POLL_INTERVAL comes from the real environment; everything else from .env.
    const k = spawnKeeper({ POLL_INTERVAL: "5" }, dir);
    const m = await k.waitFor(/"msg":"api listening".*"url":"([^"]+)"/);
    const url = m[1];
    const health = await fetch(`${url}/healthz`);
    assert.equal(health.status, 200);
    assert.equal(await health.text(), "");
    const state = await (await fetch(`${url}/api/state`)).json();
    assert.equal(state.keeper.name, "from-dotenv");
    assert.equal(state.keeper.poll_interval_seconds, 5);
    assert.equal(state.keeper.mode, "monitor");
    k.child.kill("SIGTERM");
    const r = await k.finish();
    assert.equal(r.code, 0);
    const lines = jsonLines(r.stderr);
    const msgs = lines.map((l) => l.msg);
    assert.ok(msgs.includes("keeper starting"));
    assert.ok(msgs.some((x) => String(x).includes("vault-monitor-only mode")));
    assert.ok(msgs.includes("shutting down"));
    assert.equal(msgs.at(-1), "keeper stopped");
    const operator = Keypair.fromSecret(SECRET).publicKey();
    assert.ok(lines.every((l) => l.operator === operator), "every line names the operator");
    assert.ok(!r.stderr.includes(SECRET) && !r.stdout.includes(SECRET), "secret leaked");
    assert.equal(r.stdout, "");
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});

Deno.test("process: API_PORT already in use is a start-up failure with exit 1", async () => {
  const blocker = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  try {
    const port = (blocker.addr as Deno.NetAddr).port;
    const r = await runKeeperToExit(env({ API_PORT: String(port) }));
    assert.equal(r.code, 1);
    assert.match(r.stderr, /"msg":"cannot start the HTTP API"/);
    assert.ok(!r.stderr.includes(SECRET));
  } finally {
    blocker.close();
  }
});

Deno.test("keeperHelp: every variable with its default and rule, aligned", () => {
  const text = keeperHelp([["EXTRA_VAR", "unset", "an extra row"]]);
  const rows = text.split("\n").filter((l) => /^ {2}[A-Z][A-Z0-9_]+ /.test(l));
  assert.deepEqual(rows.map((l) => l.trim().split(/\s+/)[0]), [...CONFIG_VARIABLES, "EXTRA_VAR"]);
  const col = rows[0].indexOf(CONFIG_HELP.KEEPER_SECRET.dflt);
  for (const k of CONFIG_VARIABLES) {
    const row = rows.find((l) => l.startsWith(`  ${k} `))!;
    assert.equal(row.indexOf(CONFIG_HELP[k].dflt, col), col, `${k}: default in its column`);
    assert.ok(row.endsWith(CONFIG_HELP[k].rule), k);
  }
  // The defaults are the configuration's own, not copies that can drift.
  const d = loadConfig(env());
  assert.equal(CONFIG_HELP.POLL_INTERVAL.dflt, String(DEFAULTS.POLL_INTERVAL));
  assert.equal(CONFIG_HELP.SLIPPAGE_BPS.dflt, String(d.slippageBps));
  assert.equal(CONFIG_HELP.NETWORK_PASSPHRASE.dflt, d.networkPassphrase);
});

Deno.test("process: main.ts keeper --help lists the keeper's and the pages' variables with defaults", async () => {
  const main = new URL("../main.ts", import.meta.url);
  const out = await new Deno.Command(Deno.execPath(), {
    args: denoRunArgs(main, ["keeper", "--help"]),
    env: childEnv(),
    clearEnv: true,
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = new TextDecoder().decode(out.stdout);
  assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
  for (const k of [...CONFIG_VARIABLES, ...WEB_VARIABLES]) {
    assert.match(text, new RegExp(`^  ${k} `, "m"), `help lists ${k}`);
  }
  assert.match(text, /^ {2}POLL_INTERVAL +10 +seconds between cycles, 3–300$/m);
  assert.match(text, /^ {2}LOG_FORMAT +text on a terminal, else json /m);
});

// ------------------------------------------------------ .env.example and the operators' guide

/** Variables of `main.ts deploy` (contracts/deploy/cli.ts), documented in the same file. */
const DEPLOY_VARIABLES = ["DEPLOYER_SECRET"];

Deno.test(".env.example: every keeper variable once, each with its own comment; values load", () => {
  const root = new URL("../", import.meta.url);
  const lines = Deno.readTextFileSync(new URL(".env.example", root)).split("\n");
  const example: Record<string, string> = {};
  for (const [i, line] of lines.entries()) {
    const m = line.match(/^([A-Z][A-Z0-9_]*)=(.*)$/);
    if (!m) {
      assert.ok(line === "" || line.startsWith("#"), `line ${i + 1}: ${line}`);
      continue;
    }
    assert.ok(!(m[1] in example), `${m[1]} listed twice`);
    example[m[1]] = m[2];
    // The comment right above this variable is its own (not shared with the line before).
    assert.ok(lines[i - 1]?.startsWith("#"), `${m[1]}: no comment line directly above`);
  }
  assert.deepEqual(
    Object.keys(example).sort(),
    [...CONFIG_VARIABLES, ...WEB_VARIABLES, ...DEPLOY_VARIABLES].sort(),
  );
  // Nothing secret is pre-filled, and the example's values are valid once the required ones are set.
  assert.equal(example.KEEPER_SECRET, "");
  assert.equal(example.DEPLOYER_SECRET, "");
  const filled: Record<string, string> = {};
  for (const [k, v] of Object.entries(example)) if (v !== "") filled[k] = v;
  const required = {
    KEEPER_SECRET: SECRET,
    REGISTRY_CONTRACT: contractId(1),
    VAULT_CONTRACT: contractId(2),
  };
  assert.ok(Object.keys(filled).length >= 8, "the example shows the defaults' values");
  // The example's pre-filled values are exactly the defaults: copying it changes nothing.
  assert.deepEqual(loadConfig({ ...filled, ...required }), loadConfig(required));

  // The operators' guide's configuration table names every variable too.
  const guide = Deno.readTextFileSync(new URL("docs/operators.md", root));
  const table = guide.split("\n").filter((l) => l.startsWith("| `")).join("\n");
  for (const k of Object.keys(example)) {
    assert.ok(table.includes(`\`${k}\``), `docs/operators.md: ${k}`);
  }
});
