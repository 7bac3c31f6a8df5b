/**
 * Vigil's command-line entry point.
 *
 * ```
 * deno run -A main.ts [keeper]            the keeper daemon (default)
 * deno run -A main.ts localnet [options]  the local Soroban-compatible node
 * deno run -A main.ts demo                node + keepers + web, end to end
 * ```
 *
 * @module
 */
import { parseArgs } from "node:util";
import { startLocalnet } from "./localnet/mod.ts";
import { setupDevChain } from "./localnet/dev_setup.ts";

const HELP = `Vigil — pooled liquidation service on Stellar/Soroban

Usage: main.ts [command] [options]

Commands:
  keeper      Run the keeper daemon (default; configured by environment / .env)
  localnet    Run the local Soroban-compatible node (JSON-RPC + friendbot) in the foreground
  demo        Run the local node, keepers and web server together

Options of "localnet":
  --port <n>        JSON-RPC port (default 8000; RPC at http://127.0.0.1:<port>/rpc)
  --host <addr>     interface to listen on (default 127.0.0.1)
  --ledger-ms <n>   ledger close interval in milliseconds (default 1000; 0 = only on demand)
  --out <file>      where to write contract ids, RPC URL and dev accounts (default localnet.json,
                    mode 0600; the only place secrets are written)

General:
  -h, --help        show this help
`;

/** Runs `main.ts localnet`: starts the node, deploys the base chain, writes the out file. */
export async function runLocalnet(argv: string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: {
      port: { type: "string", default: "8000" },
      host: { type: "string", default: "127.0.0.1" },
      "ledger-ms": { type: "string", default: "1000" },
      out: { type: "string", default: "localnet.json" },
      help: { type: "boolean", short: "h" },
    },
    strict: true,
  });
  if (values.help) {
    console.log(HELP);
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
  const net = await startLocalnet({ port, hostname: values.host, ledgerMs });
  const dev = await setupDevChain(net);
  const out = {
    rpcUrl: net.rpcUrl,
    networkPassphrase: net.networkPassphrase,
    friendbotUrl: net.friendbotUrl,
    contracts: dev.contracts,
    accounts: dev.accounts,
  };
  const file = values.out!;
  await Deno.writeTextFile(file, JSON.stringify(out, null, 2) + "\n", { mode: 0o600 });
  await Deno.chmod(file, 0o600);
  console.log(`localnet: JSON-RPC ${net.rpcUrl}`);
  console.log(`localnet: friendbot ${net.friendbotUrl}?addr=G…`);
  console.log(`localnet: passphrase "${net.networkPassphrase}"`);
  console.log(
    `localnet: contracts ${Object.entries(dev.contracts).map(([k, v]) => `${k}=${v}`).join(" ")}`,
  );
  console.log(`localnet: accounts ${Object.keys(dev.accounts).join(", ")} (keys in ${file})`);
  console.log(
    `localnet: ledgers close every ${
      ledgerMs > 0 ? `${ledgerMs} ms` : "send/request"
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

/** Dispatches the command line. */
export async function main(args: string[]): Promise<number> {
  const [first, ...rest] = args;
  if (first === "-h" || first === "--help" || first === "help") {
    console.log(HELP);
    return 0;
  }
  const command = first === undefined || first.startsWith("-") ? "keeper" : first;
  const argv = command === first ? rest : args;
  switch (command) {
    case "localnet":
      await runLocalnet(argv);
      return 0;
    case "keeper":
    case "demo":
      if (argv.includes("--help") || argv.includes("-h")) {
        console.log(HELP);
        return 0;
      }
      console.error(`${command}: not implemented yet`);
      return 1;
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
