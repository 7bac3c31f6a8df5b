/**
 * `main.ts demo` (what `npm start` runs): the whole service on one machine with nothing to
 * configure — the local node with the liquidation market, Vigil's contracts, depositors, N keeper
 * processes racing for liquidations, the web pages, a market driver that keeps pushing
 * borrowers underwater, and an arbitrageur that keeps the DEX pairs near the oracle price. Ctrl-C (or SIGTERM) stops everything and frees the ports.
 *
 * @module
 */
import { parseArgs } from "node:util";
import {
  DEMO_VIGIL_CONFIG,
  type DevNetwork,
  type LocalnetOut,
  startDevNetwork,
  writeOutFile,
} from "./dev_network.ts";
import { type MarketDriver, startMarketDriver } from "./market_driver.ts";
import { type Arbitrageur, DEFAULT_BAND_BPS, startArbitrageur } from "./arbitrageur.ts";
import { type KeeperProcess, spawnKeepersInTurn } from "./keepers.ts";
import { type DexWasm, loadDexWasm } from "@vigil/localnet/protocols/dex/deploy";
import { blendPoolName } from "@vigil/localnet/protocols/blend/deploy";

const E7 = 10_000_000n;

/** Help text of `main.ts demo`. */
export const DEMO_HELP = `Usage: main.ts demo [options]

Runs the local node with the liquidation market, Vigil's vault and registry, depositors,
keeper processes racing for liquidations, a market driver, an arbitrageur that keeps the DEX
pairs within 0.5% of the oracle, and the web pages. Ctrl-C stops everything.

Options:
  --rpc-port <n>         local node JSON-RPC port (default 8000)
  --port <n>             first keeper's API + web pages port (default 8080); keeper i uses port+i-1
  --keepers <n>          number of keeper processes, 1–8 (default 2)
  --pools <n>            Blend pools of the market, 1–3 (default 1); every keeper watches all
                         of them (LENDING_POOLS) and the driver's borrowers open in any of them
  --shock-rate <n>       price shocks per minute (default 2)
  --borrower-rate <n>    new borrowers per minute (default 6)
  --ledger-ms <n>        ledger close interval in ms (default 200)
  --poll-interval <n>    keepers' POLL_INTERVAL in seconds, 3–300 (default 3)
  --out <file>           where to write localnet.json (default localnet.json, mode 0600)
  --seed <n>             seed of the market driver's random walk
  --duration <s>         stop by itself after this many seconds (default: run until Ctrl-C)
  --protocol-wasm <dir>  deploy both DEX venues from soroswap_factory.wasm, soroswap_pair.wasm
                         and soroswap_router.wasm in <dir> (e.g. the official Soroswap Wasm)
  -h, --help             show this help

\`npm start -- <options>\` and \`deno task start -- <options>\` pass options here, e.g.
\`deno task start -- --port 18480\`.

Environment: none read (each keeper gets its variables from the demo, in the child process).
`;

/** Parsed options of the demo. */
export interface DemoOptions {
  rpcPort: number;
  port: number;
  keepers: number;
  /** Blend pools of the market (`--pools`). */
  pools: number;
  shockRate: number;
  borrowerRate: number;
  ledgerMs: number;
  pollInterval: number;
  out: string;
  seed?: number;
  duration?: number;
  /** Folder of the Soroswap Wasm to deploy instead of Vigil's (`--protocol-wasm`). */
  protocolWasm?: string;
}

/** Parses `main.ts demo` arguments; throws with a message naming the bad flag. */
export function parseDemoArgs(argv: string[]): DemoOptions | "help" {
  // `deno task start -- --duration 90` forwards the `--` itself (npm and shells may add another):
  // flags follow it, not operands, and the demo takes no operands.
  argv = argv.filter((a) => a !== "--");
  const { values } = parseArgs({
    args: argv,
    options: {
      "rpc-port": { type: "string", default: "8000" },
      port: { type: "string", default: "8080" },
      keepers: { type: "string", default: "2" },
      pools: { type: "string", default: "1" },
      "shock-rate": { type: "string", default: "2" },
      "borrower-rate": { type: "string", default: "6" },
      // 200 ms: a Blend auction of a borrower a shock pushed to HF ≈ 0.9 clears MIN_PROFIT only
      // ~160–190 blocks in, so at 500 ms the first fill came ~90 s after start; the issue asks
      // for liquidations within the first minute (measured at 200 ms: ~40 s).
      "ledger-ms": { type: "string", default: "200" },
      "poll-interval": { type: "string", default: "3" },
      out: { type: "string", default: "localnet.json" },
      seed: { type: "string" },
      duration: { type: "string" },
      "protocol-wasm": { type: "string" },
      help: { type: "boolean", short: "h" },
    },
    strict: true,
  });
  if (values.help) return "help";
  const int = (flag: string, v: string, min: number, max: number) => {
    const n = Number(v);
    if (!/^\d+$/.test(v) || n < min || n > max) {
      throw new Error(`--${flag} must be an integer in [${min}, ${max}], got "${v}"`);
    }
    return n;
  };
  const num = (flag: string, v: string) => {
    const n = Number(v);
    if (!Number.isFinite(n) || n < 0) {
      throw new Error(`--${flag} must be a number >= 0, got "${v}"`);
    }
    return n;
  };
  return {
    rpcPort: int("rpc-port", values["rpc-port"]!, 0, 65535),
    port: int("port", values.port!, 0, 65535),
    keepers: int("keepers", values.keepers!, 1, 8),
    pools: int("pools", values.pools!, 1, 3),
    shockRate: num("shock-rate", values["shock-rate"]!),
    borrowerRate: num("borrower-rate", values["borrower-rate"]!),
    ledgerMs: int("ledger-ms", values["ledger-ms"]!, 50, 60_000),
    pollInterval: int("poll-interval", values["poll-interval"]!, 3, 300),
    out: values.out!,
    seed: values.seed === undefined ? undefined : int("seed", values.seed, 0, 2 ** 32 - 1),
    duration: values.duration === undefined
      ? undefined
      : int("duration", values.duration, 1, 7 * 24 * 3600),
    protocolWasm: values["protocol-wasm"],
  };
}

/** Deposits of the demo's depositors at start (USDC units). */
const DEPOSITS: Record<string, bigint> = { alice: 60_000n * E7, bob: 40_000n * E7 };

/** The market's pool ids in `out.contracts`, `lending_pool` first (`lending_pool_2`, …). */
export function demoPools(out: LocalnetOut): string[] {
  const ids: string[] = [];
  for (let i = 1; out.contracts[blendPoolName(i)]; i++) ids.push(out.contracts[blendPoolName(i)]);
  return ids;
}

/**
 * The environment of the demo's keeper `k.name` (its secret included: for the child's
 * environment only, never a command line or a log).
 */
export function demoKeeperEnv(
  out: LocalnetOut,
  k: { name: string; first: boolean; port: number; pollInterval: number; outPath: string },
): Record<string, string> {
  const c = out.contracts;
  const pools = demoPools(out);
  return {
    KEEPER_SECRET: out.accounts[k.name].secret,
    KEEPER_NAME: k.name.replace("keeper", "keeper-"),
    REGISTRY_CONTRACT: c.registry,
    VAULT_CONTRACT: c.vault,
    // Every pool; LENDING_POOL says the same for one pool and stays empty (unset) for several,
    // since the two set to different values is a configuration error.
    LENDING_POOLS: pools.join(","),
    LENDING_POOL: pools.length === 1 ? pools[0] : "",
    LIQUIDATOR_CONTRACT: c.liquidator,
    USDC_CONTRACT: c.usdc,
    SOROBAN_RPC: out.rpcUrl,
    NETWORK_PASSPHRASE: out.networkPassphrase,
    POLL_INTERVAL: String(k.pollInterval),
    API_PORT: String(k.port),
    API_HOST: "127.0.0.1",
    PRIMARY_DEX_ROUTER: c.primary_dex_router,
    FALLBACK_DEX_ROUTER: c.fallback_dex_router,
    KNOWN_DEPOSITORS: Object.keys(DEPOSITS).map((n) => out.accounts[n].public).join(","),
    // Every keeper variable is set (empty = unset), so an operator's .env in the working
    // directory cannot leak into the demo's keepers (the environment wins over .env).
    // The demo's pairs are shallow for its lots (a $5–8k lot moves a pair 0.5–0.7 %) and the
    // arbitrageur leaves them up to 0.5 % off the oracle: fee + band + impact reach ~1.5 %, so the
    // default 1 % floor would skip most lots the 2 % MIN_PROFIT margin still pays for. 150 keeps
    // ≥ 0.5 % of that margin and stays under the vault's max_slippage_bps (300).
    SLIPPAGE_BPS: "150",
    ALLOCATION_DRIFT_BPS: "500",
    MIN_PROFIT: "1.02",
    SPLIT_WORK: "true",
    CHANNEL_ACCOUNTS: "2",
    // Only the first keeper holds the allocation vault's rebalance role.
    ALLOCATION_VAULT: k.first && c.allocation_vault ? c.allocation_vault : "",
    // The pages' local-only development wallet signs for the dev accounts in this file.
    WEB_DEV_ACCOUNTS_FILE: k.outPath,
  };
}

/** Runs the demo until SIGINT/SIGTERM (or `--duration`); resolves with the exit status. */
export async function runDemo(argv: string[]): Promise<number> {
  let opts: DemoOptions;
  try {
    const parsed = parseDemoArgs(argv);
    if (parsed === "help") {
      console.log(DEMO_HELP);
      return 0;
    }
    opts = parsed;
  } catch (e) {
    console.error(`demo: ${e instanceof Error ? e.message : e}`);
    return 2;
  }
  const say = (line: string) => console.log(`${new Date().toISOString().slice(11, 19)} ${line}`);
  let dexWasm: DexWasm | undefined;
  if (opts.protocolWasm !== undefined) {
    // Checked before the node starts: a missing or wrong file fails fast, naming the file.
    try {
      dexWasm = await loadDexWasm(opts.protocolWasm);
    } catch (e) {
      console.error(`demo: --protocol-wasm: ${e instanceof Error ? e.message : e}`);
      return 2;
    }
  }

  const keeperNames = Array.from({ length: opts.keepers }, (_, i) => `keeper${i + 1}`);
  say("demo: starting the local node and deploying the market…");
  let network: DevNetwork;
  try {
    network = await startDevNetwork({
      port: opts.rpcPort,
      ledgerMs: opts.ledgerMs,
      market: true,
      accounts: ["alice", "bob", ...keeperNames],
      // Profit unlocks over 300 s of ledger time: the share price rises during the demo.
      vigilConfig: DEMO_VIGIL_CONFIG,
      dexWasm,
      pools: opts.pools,
    });
    if (dexWasm) say(`demo: DEX venues deployed from ${dexWasm.source}`);
  } catch (e) {
    console.error(`demo: could not start the local node: ${e instanceof Error ? e.message : e}`);
    return 1;
  }
  const { net, market, out, vigil } = network;
  let driver: MarketDriver | undefined;
  let arb: Arbitrageur | undefined;
  const keepers: KeeperProcess[] = [];
  let exitCode = 0;
  let priceTimer: ReturnType<typeof setInterval> | undefined;
  try {
    // Depositors put USDC in first, so the share price has a pool to move.
    for (const [name, amount] of Object.entries(DEPOSITS)) {
      await net.invoke(vigil.vault, "deposit", {
        depositor: out.accounts[name].public,
        amount,
      }, { source: out.accounts[name].public });
    }
    await net.closeLedgers(1);
    await writeOutFile(opts.out, out);

    const c = out.contracts;
    const outPath = await Deno.realPath(opts.out);
    const specs = keeperNames.map((name, i) => {
      const port = opts.port === 0 ? 0 : opts.port + i;
      const env = demoKeeperEnv(out, {
        name,
        first: i === 0,
        port,
        pollInterval: opts.pollInterval,
        outPath,
      });
      return { name: env.KEEPER_NAME, port, env };
    });
    // One after another, so that no two registrations land in the same ledger (they would
    // conflict in the registry and the second would need a retry).
    keepers.push(...await spawnKeepersInTurn(specs, (who, line) => say(`[${who}] ${line}`)));

    driver = startMarketDriver(net, market!, {
      shocksPerMinute: opts.shockRate,
      borrowersPerMinute: opts.borrowerRate,
      seed: opts.seed,
      log: (line) => say(`[market] ${line}`),
    });
    // As arbitrageurs do on a real network: without it the keepers' sales drift the pairs away
    // from the oracle until flashes stop paying (docs/demo.md).
    // Only the arbitrages that moved a pair by 1 % or more are printed (after shocks and big
    // sales); the walk's routine ones would be a line a second.
    arb = startArbitrageur(net, market!, {
      log: (line) => say(`[market] ${line}`),
      logMinBps: 100,
    });

    say(`demo: web pages      http://127.0.0.1:${opts.port}/`);
    for (const k of keepers) say(`demo: ${k.name} API     http://127.0.0.1:${k.port}/api/state`);
    say(`demo: JSON-RPC       ${out.rpcUrl}`);
    say(`demo: contracts and dev accounts in ${outPath} (mode 0600)`);
    say(`demo: vault ${c.vault}  registry ${c.registry}`);
    const pools = demoPools(out);
    if (pools.length > 1) {
      say(
        `demo: ${pools.length} Blend pools ${
          pools.map((id, i) => `${blendPoolName(i + 1)}=${id}`).join(" ")
        }`,
      );
    }
    say(
      `demo: a flash's profit enters the share price over ${DEMO_VIGIL_CONFIG.profit_unlock_secs} s of ledger time (about a minute here)`,
    );
    say(`demo: an arbitrageur keeps the DEX pairs within ${DEFAULT_BAND_BPS / 100}% of the oracle`);
    say("demo: Ctrl-C stops everything");
    priceTimer = reportSharePrice(net, vigil.vault, say);

    exitCode = await waitForStop(opts.duration, keepers);
  } catch (e) {
    console.error(`demo: ${e instanceof Error ? e.message : e}`);
    exitCode = 1;
  } finally {
    say("demo: stopping…");
    clearInterval(priceTimer);
    await driver?.stop();
    await arb?.stop();
    const statuses = await Promise.all(keepers.map((k) => k.stop()));
    for (const [i, s] of statuses.entries()) {
      say(`demo: ${keepers[i].name} exited with ${s.signal ?? s.code}`);
    }
    await net.close();
    say("demo: stopped");
  }
  return exitCode;
}

/** How often the demo prints the share price when it moved (ms). */
const PRICE_REPORT_MS = 15_000;

/**
 * Prints the vault's share price (unlocked USDC per share) every {@link PRICE_REPORT_MS} when it
 * moved, with the profit still unlocking: the demo's yield, seen without opening the pages.
 */
function reportSharePrice(
  net: DevNetwork["net"],
  vault: string,
  say: (line: string) => void,
): ReturnType<typeof setInterval> {
  let last: bigint | undefined;
  return setInterval(async () => {
    try {
      const s = await net.view<Record<string, bigint>>(vault, "get_state", {});
      if (s.total_shares <= 0n) return;
      const price = ((s.total_usdc - s.locked_profit) * E7) / s.total_shares;
      if (price === last) return;
      last = price;
      const locked = s.locked_profit > 0n
        ? `; ${fmt7(s.locked_profit)} USDC of recent profit unlocking until ledger time ${
          new Date(Number(s.unlock_end) * 1000).toISOString().slice(11, 19)
        }`
        : "";
      say(`demo: share price ${fmt7(price)} USDC (profit so far ${fmt7(s.total_profit)}${locked})`);
    } catch {
      // The node is stopping; the next tick or the shutdown takes care of it.
    }
  }, PRICE_REPORT_MS);
}

function fmt7(units: bigint): string {
  const neg = units < 0n ? "-" : "";
  const a = units < 0n ? -units : units;
  return `${neg}${a / E7}.${(a % E7).toString().padStart(7, "0")}`;
}

/** Resolves on SIGINT/SIGTERM, after `durationSec`, or when every keeper has exited. */
function waitForStop(durationSec: number | undefined, keepers: KeeperProcess[]): Promise<number> {
  return new Promise((resolve) => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    let stopped = false;
    const done = (code: number) => {
      if (stopped) return;
      stopped = true;
      Deno.removeSignalListener("SIGINT", onSignal);
      Deno.removeSignalListener("SIGTERM", onSignal);
      if (timer !== undefined) clearTimeout(timer);
      resolve(code);
    };
    const onSignal = () => done(0);
    Deno.addSignalListener("SIGINT", onSignal);
    Deno.addSignalListener("SIGTERM", onSignal);
    if (durationSec !== undefined) timer = setTimeout(() => done(0), durationSec * 1000);
    Promise.all(keepers.map((k) => k.status)).then(() => {
      // Only news while running: at shutdown the keepers exit because they were told to.
      if (stopped) return;
      console.error("demo: every keeper process exited");
      done(1);
    });
  });
}
