/**
 * `main.ts deploy`: deploys Vigil's Wasm contracts to the network behind `--rpc-url` with the key
 * in `DEPLOYER_SECRET` (environment or `.env`; never a flag, never printed).
 *
 * @module
 */
import { parseArgs } from "node:util";
import { StrKey } from "@stellar/stellar-sdk";
import { readEnvironment } from "@vigil/util/env";
import {
  DEFAULT_DEPLOY_CONFIG,
  DEPLOY_BOUNDS,
  type DeployConfig,
  DeployError,
  deployToNetwork,
  type FlashPolicyOptions,
  MAX_POLICY_ENTRIES,
  MAX_SLIPPAGE_BPS,
  parseUsdc,
  POLICY_DELAY_MARGIN,
} from "./net.ts";

/** Help text of `main.ts deploy`. */
export const DEPLOY_HELP = `Usage: main.ts deploy --rpc-url URL --usdc C… [options]

Uploads Vigil's Wasm (registry, vault, liquidator), creates the contracts with their constructor
arguments (wired to each other; the vault's flash policy lets only the liquidator execute
flashes, on the given pools, routers and hop tokens), verifies get_config and get_flash_policy
and writes the out file. Re-running with an existing out file verifies and changes nothing. The
deployer's secret seed is read from DEPLOYER_SECRET (environment or .env), never from a flag.

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
  --min-fill-profit <USDC>      least profit for a flash to count as the keeper's successful
                                fill in the registry (default 1)
  --policy-delay <s>            seconds a widening flash-policy or config change waits before it
                                applies (default 259200 = 72 h; at least the withdraw cooldown
                                + 3600, at most 2592000 = 30 d)
  --profit-unlock-secs <s>      seconds over which a flash's profit enters the share price
                                (default 86400 = 24 h; 0 = at once; at most 2592000 = 30 d)
  --pool <C…>                   a lending pool liquidations may use (repeatable, at most 16);
                                without one the vault allows no liquidation
  --router <C…>                 a Soroswap-ABI swap router liquidations may swap on
                                (repeatable, at most 16)
  --token <C…>                  a token a swap path may pass through between the lot asset and
                                USDC (repeatable, at most 16; a direct pair needs none)
  --max-slippage-bps <n>        the liquidator's oracle floor: a swap may return at most n bps
                                less than the pool oracle's value (default 300, at most 1000)
                                (on a re-run, the vault's policy is compared only when one of
                                these four is given: the admin changes it with set_flash_policy,
                                a widening change waiting --policy-delay)
  -h, --help                    show this help

Environment (name, default, rule):
  DEPLOYER_SECRET  required  secret seed S… of the deployer (pays, signs; never on a command line);
                             also read from .env in the working directory (the environment wins)
  DEPLOY_DEBUG     unset     1: a failed simulation prints its full diagnostic event log instead
                             of its first line
`;

/** Whole seconds from a flag's text, else a {@link DeployError} naming the flag. */
function seconds(text: string, flag: string): bigint {
  if (!/^\d+$/.test(text.trim())) {
    throw new DeployError(`${flag} ${text} is not a whole number of seconds`);
  }
  return BigInt(text.trim());
}

/** A flag's value within the contracts' bounds of `field`, else a {@link DeployError}. */
function inBounds(
  flag: string,
  text: string,
  v: bigint,
  field: keyof DeployConfig,
  unit: "s" | "USDC" = "s",
): void {
  const [lo, hi] = DEPLOY_BOUNDS[field];
  if (v < lo || v > hi) {
    const f = (x: bigint) => unit === "USDC" ? `${x / 10_000_000n} USDC` : `${x} s`;
    throw new DeployError(`${flag} ${text} is outside the contracts' bounds [${f(lo)}, ${f(hi)}]`);
  }
}

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
        "min-fill-profit": { type: "string" },
        "policy-delay": { type: "string" },
        "profit-unlock-secs": { type: "string" },
        pool: { type: "string", multiple: true },
        router: { type: "string", multiple: true },
        token: { type: "string", multiple: true },
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
    if (values["min-fill-profit"] !== undefined) {
      config.min_fill_profit = parseUsdc(values["min-fill-profit"], "--min-fill-profit");
      inBounds(
        "--min-fill-profit",
        values["min-fill-profit"],
        config.min_fill_profit,
        "min_fill_profit",
        "USDC",
      );
    }
    if (values["withdraw-cooldown"] !== undefined) {
      config.withdraw_cooldown = seconds(values["withdraw-cooldown"], "--withdraw-cooldown");
      inBounds(
        "--withdraw-cooldown",
        values["withdraw-cooldown"],
        config.withdraw_cooldown,
        "withdraw_cooldown",
      );
    }
    if (values["profit-unlock-secs"] !== undefined) {
      config.profit_unlock_secs = seconds(values["profit-unlock-secs"], "--profit-unlock-secs");
      inBounds(
        "--profit-unlock-secs",
        values["profit-unlock-secs"],
        config.profit_unlock_secs,
        "profit_unlock_secs",
      );
    }
    const cooldown = config.withdraw_cooldown ?? DEFAULT_DEPLOY_CONFIG.withdraw_cooldown;
    const delay = values["policy-delay"] !== undefined
      ? seconds(values["policy-delay"], "--policy-delay")
      : undefined;
    const leastDelay = cooldown + POLICY_DELAY_MARGIN;
    const maxDelay = DEPLOY_BOUNDS.policy_delay[1];
    if (delay !== undefined) {
      // Depositors must be able to withdraw before a queued change applies.
      if (delay < leastDelay || delay > maxDelay) {
        throw new DeployError(
          `--policy-delay ${delay} is outside [${leastDelay}, ${maxDelay}]: at least the withdraw cooldown (${cooldown} s) + ${POLICY_DELAY_MARGIN} s, so depositors can leave before a queued change applies, at most 30 days`,
        );
      }
      config.policy_delay = delay;
    } else if (DEFAULT_DEPLOY_CONFIG.policy_delay < leastDelay) {
      throw new DeployError(
        `--withdraw-cooldown ${cooldown} needs --policy-delay of at least ${leastDelay} (the default ${DEFAULT_DEPLOY_CONFIG.policy_delay} is shorter)`,
      );
    }
    let maxSlippageBps: number | undefined;
    const bps = values["max-slippage-bps"];
    if (bps !== undefined) {
      if (!/^\d+$/.test(bps) || Number(bps) > MAX_SLIPPAGE_BPS) {
        throw new DeployError(
          `--max-slippage-bps ${bps} is not an integer in [0, ${MAX_SLIPPAGE_BPS}] (the vault's bound: 10 %)`,
        );
      }
      maxSlippageBps = Number(bps);
    }
    for (const flag of ["pool", "router", "token"] as const) {
      const xs = [...new Set(values[flag] ?? [])];
      const bad = xs.find((x) => !StrKey.isValidContract(x));
      if (bad !== undefined) throw new DeployError(`--${flag} ${bad} is not a contract id (C…)`);
      if (xs.length > MAX_POLICY_ENTRIES) {
        throw new DeployError(`at most ${MAX_POLICY_ENTRIES} --${flag} entries (got ${xs.length})`);
      }
    }
    const policy: FlashPolicyOptions = {
      pools: values.pool,
      routers: values.router,
      tokens: values.token,
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
      }; routers ${p.routers.join(",") || "(none)"}; hop tokens ${
        (p.tokens ?? []).join(",") || "(none)"
      }; max slippage ${p.max_slippage_bps} bps`,
    );
    const dc = deployment.config;
    console.log(
      `deploy: profit unlocks over ${dc.profit_unlock_secs} s; queued admin changes wait ${dc.policy_delay} s; fills count from ${dc.min_fill_profit} units of profit`,
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
