/**
 * `main.ts deploy`: deploys Vigil's Wasm contracts to the network behind `--rpc-url` with the key
 * in `DEPLOYER_SECRET` (environment or `.env`; never a flag, never printed).
 *
 * @module
 */
import { parseArgs } from "node:util";
import { readEnvironment } from "../keeper/config.ts";
import {
  type DeployConfig,
  DeployError,
  deployToNetwork,
  type FlashPolicyOptions,
  parseUsdc,
} from "./deploy_net.ts";

/** Help text of `main.ts deploy`. */
export const DEPLOY_HELP = `Usage: main.ts deploy --rpc-url URL --usdc C… [options]

Uploads Vigil's Wasm (registry, vault, liquidator), creates the contracts with their constructor
arguments (wired to each other; the vault's flash policy lets only the liquidator execute
flashes, on the given pools and routers), verifies get_config and get_flash_policy and writes the
out file. Re-running with an
existing out file verifies and changes nothing. The deployer's secret seed is read from
DEPLOYER_SECRET (environment or .env), never from a flag.

Options:
  --rpc-url <url>               Soroban JSON-RPC endpoint (the passphrase comes from getNetwork)
  --usdc <C…>                   the USDC token contract
  --admin <G…|C…>               admin of both contracts (default: the deployer)
  --out <file>                  out file (default deployment.json): ids, Wasm hashes, passphrase,
                                ledger, admin; no secrets
  --min-stake <USDC>            registry stake per keeper (default 100)
  --deposit-cap <USDC>          vault deposit cap (default 10000000)
  --withdraw-cooldown <s>       seconds new shares stay locked (default 3600, at most 604800)
  --max-draw-per-keeper <USDC>  largest flash loan (default 10000; 0 stops flashes)
  --pool <C…>                   a lending pool liquidations may use (repeatable, at most 16);
                                without one the vault allows no liquidation
  --router <C…>                 a Soroswap-ABI swap router liquidations may swap on
                                (repeatable, at most 16)
  --max-slippage-bps <n>        the liquidator's oracle floor: a swap may return at most n bps
                                less than the pool oracle's value (default 300, at most 10000)
                                (on a re-run, the vault's policy is compared only when one of
                                these three is given: the admin changes it with set_flash_policy)
  -h, --help                    show this help

DEPLOY_DEBUG=1 prints a failed simulation's full diagnostic event log instead of its first line.
`;

/** Runs `main.ts deploy`; returns the exit code. */
export async function runDeploy(argv: string[], dir = Deno.cwd()): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        "rpc-url": { type: "string" },
        usdc: { type: "string" },
        admin: { type: "string" },
        out: { type: "string", default: "deployment.json" },
        "min-stake": { type: "string" },
        "deposit-cap": { type: "string" },
        "withdraw-cooldown": { type: "string" },
        "max-draw-per-keeper": { type: "string" },
        pool: { type: "string", multiple: true },
        router: { type: "string", multiple: true },
        "max-slippage-bps": { type: "string" },
        help: { type: "boolean", short: "h" },
      },
      strict: true,
    }));
  } catch (e) {
    console.error(`deploy: ${(e as Error).message}\n\n${DEPLOY_HELP}`);
    return 2;
  }
  if (values.help) {
    console.log(DEPLOY_HELP);
    return 0;
  }
  try {
    if (!values["rpc-url"]) throw new DeployError("--rpc-url is required");
    if (!values.usdc) throw new DeployError("--usdc is required");
    const config: Partial<DeployConfig> = {};
    if (values["min-stake"]) config.min_stake = parseUsdc(values["min-stake"], "--min-stake");
    if (values["deposit-cap"]) {
      config.deposit_cap = parseUsdc(values["deposit-cap"], "--deposit-cap");
    }
    if (values["max-draw-per-keeper"]) {
      config.max_draw_per_keeper = parseUsdc(
        values["max-draw-per-keeper"],
        "--max-draw-per-keeper",
      );
    }
    if (values["withdraw-cooldown"]) {
      if (!/^\d+$/.test(values["withdraw-cooldown"])) {
        throw new DeployError(`--withdraw-cooldown ${values["withdraw-cooldown"]} is not seconds`);
      }
      config.withdraw_cooldown = BigInt(values["withdraw-cooldown"]);
    }
    let maxSlippageBps: number | undefined;
    const bps = values["max-slippage-bps"];
    if (bps !== undefined) {
      if (!/^\d+$/.test(bps) || Number(bps) > 10_000) {
        throw new DeployError(`--max-slippage-bps ${bps} is not an integer in [0, 10000]`);
      }
      maxSlippageBps = Number(bps);
    }
    const policy: FlashPolicyOptions = {
      pools: values.pool,
      routers: values.router,
      max_slippage_bps: maxSlippageBps,
    };
    const { env } = readEnvironment({ dir });
    const { deployment, changed } = await deployToNetwork({
      rpcUrl: values["rpc-url"],
      usdc: values.usdc,
      admin: values.admin,
      secret: env.DEPLOYER_SECRET,
      config,
      policy,
      out: values.out,
      log: (line) => console.log(`deploy: ${line}`),
    });
    const c = deployment.contracts;
    console.log(
      `deploy: ${
        changed ? "deployed" : "verified, nothing changed"
      } on "${deployment.network_passphrase}"`,
    );
    console.log(`deploy: vault ${c.vault} registry ${c.registry} liquidator ${c.liquidator}`);
    const p = deployment.policy;
    console.log(
      `deploy: flash policy: executor ${p.executors.join(",")}; pools ${
        p.pools.join(",") || "(none)"
      }; routers ${p.routers.join(",") || "(none)"}; max slippage ${p.max_slippage_bps} bps`,
    );
    console.log(`deploy: wrote ${values.out}`);
    return 0;
  } catch (e) {
    if (e instanceof DeployError) {
      console.error(`deploy: ${e.message}`);
      return 1;
    }
    throw e;
  }
}
