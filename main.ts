/**
 * Vigil's command-line entry point.
 *
 * ```
 * deno run -A main.ts [keeper]            the keeper daemon (default)
 * deno run -A main.ts localnet [options]  the local Soroban-compatible node
 * deno run -A main.ts demo                node + keepers + web, end to end
 * deno run -A main.ts deploy [options]    deploy Vigil's Wasm contracts over JSON-RPC
 * ```
 *
 * @module
 */
import { parseArgs } from "node:util";
import { runKeeper } from "@vigil/keeper";
import { DEPLOY_HELP, runDeploy } from "@vigil/contracts/deploy";
import { runTrustline } from "@vigil/contracts/deploy/trustline";
import { createApi } from "@vigil/keeper/api";
import { keeperHelp } from "@vigil/keeper/help";
import { mountWeb } from "@vigil/web";
import { WEB_VARIABLES } from "@vigil/web/config";

/** The options of `main.ts localnet` (also in the general help). */
const LOCALNET_OPTIONS =
  `  --port <n>        JSON-RPC port (default 8000; RPC at http://127.0.0.1:<port>/rpc)
  --host <addr>     interface to listen on (default 127.0.0.1)
  --ledger-ms <n>   ledger close interval in milliseconds (default 1000; 0 = only on demand)
  --scenario <s>    base (dev chain + Vigil's vault and registry; default) or market (adds the
                    lending pool, oracle, DEX routers, allocation vault and borrowers, and the
                    control method localnet_shock)
  --out <file>      where to write contract ids, RPC URL and dev accounts (default localnet.json,
                    mode 0600; the only place secrets are written)
  --protocol-wasm <dir>
                    with --scenario market: deploy both DEX venues from soroswap_factory.wasm,
                    soroswap_pair.wasm and soroswap_router.wasm in <dir> (e.g. the official
                    Soroswap Wasm) instead of Vigil's Soroswap-ABI contracts
  --pools <n>       with --scenario market: Blend pools deployed by the market's pool factory,
                    1–3 (default 1), named lending_pool, lending_pool_2, lending_pool_3 in the
                    out file, each with its own reserves, suppliers and borrowers; the vault's
                    flash policy lists them all
  --retention-ledgers <n>
                    ledgers of history (transactions, events) the node keeps, at least 100
                    (default 120960 = stellar-rpc's 7 days); small values let a test outlive
                    the RPC's memory in seconds
  -h, --help        show this help`;

const HELP = `Vigil — pooled liquidation service on Stellar/Soroban

Usage: main.ts [command] [options]

Commands:
  keeper      Run the keeper daemon (default; configured by environment / .env)
  localnet    Run the local Soroban-compatible node (JSON-RPC + friendbot) in the foreground
  demo        Run the local node, keepers and web server together (what \`npm start\` runs)
  deploy      Deploy Vigil's contracts to a network
  trustline   Add a trustline for a classic asset to KEEPER_SECRET's account (testnet set-up)

\`main.ts <command> --help\` shows a command's options and environment variables with their
defaults. \`deno task start -- <options>\` (or \`npm start -- <options>\`) passes options to
the demo, e.g. \`deno task start -- --port 18480\`.

Options of "localnet":
${LOCALNET_OPTIONS}
`;

/** Help text of `main.ts localnet`. */
const LOCALNET_HELP = `Usage: main.ts localnet [options]

Runs the local Soroban-compatible node (JSON-RPC + friendbot) in the foreground, deploys the dev
chain and Vigil's contracts, and writes their ids and the dev accounts' keys to --out.

Options:
${LOCALNET_OPTIONS}

Environment: none (everything is an option).
`;

/** The web pages' variables (read from the keeper's environment), for `main.ts keeper --help`. */
const WEB_HELP: Record<typeof WEB_VARIABLES[number], readonly [string, string]> = {
  NEXT_PUBLIC_VAULT_CONTRACT: ["VAULT_CONTRACT", "the vault C… the pages show"],
  NEXT_PUBLIC_REGISTRY_CONTRACT: ["REGISTRY_CONTRACT", "the registry C… the pages show"],
  NEXT_PUBLIC_API_URL: ["the keeper's own API", "keeper API URL the pages read (no user:pw@)"],
  NEXT_PUBLIC_RPC_URL: [
    "SOROBAN_RPC without credentials",
    "RPC URL given to browsers (no user:pw@)",
  ],
  WEB_DEV_ACCOUNTS_FILE: ["unset", "localnet.json whose accounts the local-only dev wallet uses"],
};

/** Most Blend pools `--pools` deploys (the market's pool factory can make more; 3 is enough). */
const MAX_POOLS = 3;

/**
 * Least `--retention-ledgers`. A transaction must stay findable by getTransaction until its
 * sender stops polling it — at its ledger bound: 20 ledgers for the keeper and deploy, 60 for the
 * pages' wallet — and getFeeStats' Soroban window (50 ledgers) should lie inside the history.
 * 100 covers both with room; the node itself would accept 10.
 */
const MIN_RETENTION_LEDGERS = 100;
/** Most `--retention-ledgers`: ledger sequences are u32; the whole window is kept in memory. */
const MAX_RETENTION_LEDGERS = 10_000_000;

/** Runs `main.ts localnet`: starts the node, deploys the base chain, writes the out file. */
export async function runLocalnet(argv: string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: {
      port: { type: "string", default: "8000" },
      host: { type: "string", default: "127.0.0.1" },
      "ledger-ms": { type: "string", default: "1000" },
      out: { type: "string", default: "localnet.json" },
      scenario: { type: "string", default: "base" },
      "protocol-wasm": { type: "string" },
      pools: { type: "string" },
      "retention-ledgers": { type: "string" },
      help: { type: "boolean", short: "h" },
    },
    strict: true,
  });
  if (values.help) {
    console.log(LOCALNET_HELP);
    return;
  }
  const port = Number(values.port);
  const ledgerMs = Number(values["ledger-ms"]);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new Error(`invalid --port ${values.port}`);
  }
  if (!Number.isInteger(ledgerMs) || ledgerMs < 0) {
    throw new Error(`invalid --ledger-ms ${values["ledger-ms"]}`);
  }
  if (values.scenario !== "base" && values.scenario !== "market") {
    throw new Error(`invalid --scenario ${values.scenario} (base or market)`);
  }
  const wasmDir = values["protocol-wasm"];
  if (wasmDir !== undefined && values.scenario !== "market") {
    throw new Error("--protocol-wasm needs --scenario market (the DEX venues are part of it)");
  }
  const pools = values.pools === undefined ? undefined : Number(values.pools);
  if (values.pools !== undefined) {
    if (values.scenario !== "market") {
      throw new Error("--pools needs --scenario market (the pools are part of it)");
    }
    if (!/^\d+$/.test(values.pools) || pools! < 1 || pools! > MAX_POOLS) {
      throw new Error(`invalid --pools ${values.pools} (an integer from 1 to ${MAX_POOLS})`);
    }
  }
  const retention = values["retention-ledgers"];
  const retentionLedgers = retention === undefined ? undefined : Number(retention);
  if (
    retention !== undefined &&
    (!/^\d+$/.test(retention) || retentionLedgers! < MIN_RETENTION_LEDGERS ||
      retentionLedgers! > MAX_RETENTION_LEDGERS)
  ) {
    throw new Error(
      `invalid --retention-ledgers ${retention} (an integer from ${MIN_RETENTION_LEDGERS} to ` +
        `${MAX_RETENTION_LEDGERS}: a transaction must stay findable while its sender polls it)`,
    );
  }
  // Checked before the node starts: a missing or wrong file fails fast, naming the file.
  // The local node and the demo are dev tools: loaded only by their commands, so the keeper and
  // deploy commands (and what they import) never load them.
  const { startDevNetwork, writeOutFile } = await import("@vigil/demo/dev_network");
  const { loadDexWasm } = await import("@vigil/localnet/protocols/dex/deploy");
  const dexWasm = wasmDir === undefined ? undefined : await loadDexWasm(wasmDir);
  const { net, out } = await startDevNetwork({
    port,
    hostname: values.host,
    ledgerMs,
    market: values.scenario === "market",
    pools,
    retentionLedgers,
    dexWasm,
  });
  if (dexWasm) console.log(`localnet: DEX venues deployed from ${dexWasm.source}`);
  const dev = out;
  const file = values.out!;
  await writeOutFile(file, out);
  console.log(`localnet: JSON-RPC ${net.rpcUrl}`);
  console.log(`localnet: friendbot ${net.friendbotUrl}?addr=G…`);
  console.log(`localnet: passphrase "${net.networkPassphrase}"`);
  console.log(
    `localnet: contracts ${Object.entries(dev.contracts).map(([k, v]) => `${k}=${v}`).join(" ")}`,
  );
  console.log(`localnet: accounts ${Object.keys(dev.accounts).join(", ")} (keys in ${file})`);
  console.log(
    `localnet: ledgers close every ${
      ledgerMs > 0 ? `${ledgerMs} ms` : "on demand (100 ms after a transaction is queued)"
    }; Ctrl-C stops`,
  );

  await new Promise<void>((resolve) => {
    const stop = () => {
      Deno.removeSignalListener("SIGINT", stop);
      Deno.removeSignalListener("SIGTERM", stop);
      resolve();
    };
    Deno.addSignalListener("SIGINT", stop);
    Deno.addSignalListener("SIGTERM", stop);
  });
  await net.close();
  console.log("localnet: stopped");
}

/** `-h`/`--help` among a command's arguments (also after the `--` that `deno task` forwards). */
function wantsHelp(argv: string[]): boolean {
  return argv.includes("--help") || argv.includes("-h");
}

/** Dispatches the command line. */
export async function main(args: string[]): Promise<number> {
  // `deno task <task> -- <flags>` forwards the `--` (npm and shells may add more): no command
  // takes operands, so a `--` only ever separates flags that belong to the command.
  args = args.filter((a) => a !== "--");
  const [first, ...rest] = args;
  if (first === "-h" || first === "--help" || first === "help") {
    console.log(HELP);
    return 0;
  }
  const command = first === undefined || first.startsWith("-") ? "keeper" : first;
  const argv = command === first ? rest : args;
  switch (command) {
    case "localnet":
      if (wantsHelp(argv)) {
        console.log(LOCALNET_HELP);
        return 0;
      }
      await runLocalnet(argv);
      return 0;
    case "keeper":
      if (wantsHelp(argv)) {
        console.log(keeperHelp(
          WEB_VARIABLES.map((k) => [k, WEB_HELP[k][0], `web pages: ${WEB_HELP[k][1]}`] as const),
        ));
        return 0;
      }
      // One server: the keeper API with the web pages mounted on it. The pages read their
      // settings from the keeper's environment (`.env` included), not only the process's.
      // The pages' warnings (dev wallet off, credentials stripped from the browsers' RPC URL)
      // go to the keeper's log: JSON lines, redacted like every other; a failure to load the
      // island bundles is an error there (and in the live log).
      return await runKeeper({
        app: (ctx, env, listen) =>
          mountWeb(createApi(ctx), ctx.config, {
            env,
            listen,
            warn: (m) => ctx.log.warn(m),
            error: (m) => ctx.log.error(m),
          }),
      });
    case "demo": {
      const { DEMO_HELP, runDemo } = await import("@vigil/demo");
      if (wantsHelp(argv)) {
        console.log(DEMO_HELP);
        return 0;
      }
      return await runDemo(argv);
    }
    case "deploy":
      if (wantsHelp(argv)) {
        console.log(DEPLOY_HELP);
        return 0;
      }
      return await runDeploy(argv);
    case "trustline":
      return await runTrustline(argv);
    default:
      console.error(`unknown command "${command}"\n\n${HELP}`);
      return 2;
  }
}

if (import.meta.main) {
  try {
    Deno.exit(await main(Deno.args));
  } catch (e) {
    console.error(`error: ${(e as Error).message}`);
    Deno.exit(1);
  }
}
