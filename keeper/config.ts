/**
 * Keeper configuration from environment variables (spec "Keeper configuration"). `loadConfig` is
 * pure: it takes the variables and returns a validated {@link Config} or throws {@link ConfigError}
 * with the exact message to print. `readEnvironment` (from `@vigil/util/env`) merges a best-effort
 * `.env` file from the working directory under the real environment (the real environment wins).
 */
import { Keypair, Networks, StrKey } from "@stellar/stellar-sdk";
import { redactSecrets } from "./log/redact.ts";
import { redactUrl } from "@vigil/util/url_redact";

// The env/dotenv reading lives in util (deploy reads it too); re-exported for the keeper.
export { type EnvironmentRead, readEnvironment } from "@vigil/util/env";

/** One variable's problem. */
export interface ConfigProblem {
  readonly variable: string;
  /** One line, e.g. `invalid POLL_INTERVAL: 2 is outside [3, 300]`. */
  readonly message: string;
}

/**
 * The configuration's problems, all of them; `message` is exactly what is printed to stderr
 * before exit 1: the one problem's line, or `N configuration errors:` followed by one `- …` line
 * per problem, so an operator fixes everything in one go.
 */
export class ConfigError extends Error {
  /** The first variable at fault. */
  readonly variable: string;
  /** Every problem found, in the order the variables are checked (required ones first). */
  readonly problems: readonly ConfigProblem[];
  constructor(variable: string, message: string, problems?: readonly ConfigProblem[]) {
    super(redactSecrets(message));
    this.name = "ConfigError";
    this.variable = variable;
    this.problems = problems ?? [{ variable, message: this.message }];
  }

  /** One error listing every problem (at least one). */
  static of(problems: readonly ConfigProblem[]): ConfigError {
    const message = problems.length === 1
      ? problems[0].message
      : `${problems.length} configuration errors:\n${
        problems.map((p) => `- ${p.message}`).join("\n")
      }`;
    return new ConfigError(problems[0].variable, message, problems);
  }
}

/** Exit status of the keeper for any configuration or start-up error. */
export const CONFIG_EXIT_CODE = 1;

/** Defaults of the optional variables. */
export const DEFAULTS = {
  KEEPER_NAME: "keeper-1",
  SOROBAN_RPC: "https://soroban-testnet.stellar.org",
  HORIZON_URL: "https://horizon-testnet.stellar.org",
  NETWORK_PASSPHRASE: Networks.TESTNET,
  POLL_INTERVAL: 10,
  MIN_PROFIT: 1.02,
  API_PORT: 8080,
  // Loopback: the API, the pages and (on a local network) the dev wallet are not reachable from
  // other machines unless the operator binds wider on purpose (behind a reverse proxy).
  API_HOST: "127.0.0.1",
  // 1 %: above a normal constant-product pool fee (0.3 %) plus the price impact of a
  // keeper-sized lot, well below the 2 % MIN_PROFIT margin, so a swap that passes the floor cannot
  // turn a fill that cleared MIN_PROFIT into a loss. Nectar uses the same value.
  SLIPPAGE_BPS: 100,
  ALLOCATION_DRIFT_BPS: 500,
  // 0.001 XLM per transaction at most for inclusion: the bid follows getFeeStats (p90 of the
  // charged Soroban inclusion fees) and never exceeds this ceiling.
  MAX_INCLUSION_FEE: 10_000,
  LOG_LEVEL: "info",
  // Two flashes in flight at once (each from its own channel account): auctions maturing together
  // are filled together, for 2 × 10 XLM held in the channels (keeper/README.md).
  CHANNEL_ACCOUNTS: 2,
} as const;

/** Log levels accepted by LOG_LEVEL. */
export type ConfigLogLevel = "debug" | "info" | "warn" | "error";

/** Validated keeper configuration. The secret exists only inside {@link Config.keypair}. */
export interface Config {
  /** Signs every transaction. Non-enumerable; never serialized. */
  readonly keypair: Keypair;
  /** The operator's public key (G…), the name used in logs. */
  readonly operator: string;
  readonly keeperName: string;
  readonly registryContract: string;
  readonly vaultContract: string;
  /**
   * The Blend pools to liquidate on (LENDING_POOLS, or LENDING_POOL as a one-pool list), in the
   * given order, duplicates removed. Empty = vault-monitor-only mode (no liquidation cycle).
   */
  readonly lendingPools: readonly string[];
  /** The vault's settlement token; null = liquidations are monitored, not executed. */
  readonly usdcContract: string | null;
  /**
   * Vigil's flash executor (`vault.flash` executor). null = not set: at start-up the keeper uses
   * the executor of the vault's flash policy when it lists exactly one, else it only monitors.
   */
  readonly liquidatorContract: string | null;
  readonly sorobanRpc: string;
  readonly horizonUrl: string;
  readonly networkPassphrase: string;
  /** Seconds, integer in [3, 300]. */
  readonly pollIntervalSec: number;
  /** Minimum lot/bid ratio to fill, finite and > 0. */
  readonly minProfit: number;
  /** 0 lets the OS pick a port (the bound port is logged). */
  readonly apiPort: number;
  readonly apiHost: string;
  readonly primaryDexRouter: string | null;
  readonly fallbackDexRouter: string | null;
  /** Integer in [0, 10000]. */
  readonly slippageBps: number;
  /** Ceiling of the inclusion fee bid per transaction, stroops; integer in [100, 10^9]. */
  readonly maxInclusionFee: number;
  readonly allocationVault: string | null;
  /** Integer in [0, 10000]. */
  readonly allocationDriftBps: number;
  /** G… or C… addresses, in the given order, duplicates removed. */
  readonly knownDepositors: readonly string[];
  /** Allowed CORS origins; `["*"]` allows any. null = the default (localhost dev origins). */
  readonly corsOrigins: readonly string[] | null;
  readonly logLevel: ConfigLogLevel;
  /** LOG_FORMAT: `json` or `text`; null = text when stderr is a terminal, JSON otherwise. */
  readonly logFormat: "json" | "text" | null;
  /**
   * Where the borrower index and event cursor of each pool are kept between runs; null = not
   * kept (a restart rescans the RPC's retention window only).
   */
  readonly keeperStateDir: string | null;
  /** Borrowers to track whatever the events say (G… or C…), duplicates removed. */
  readonly watchAddresses: readonly string[];
  /** Decide everything, send nothing (each would-be transaction is logged as `dry-run: …`). */
  readonly dryRun: boolean;
  /** Slack/Discord-compatible webhook for notifications; null = none. A secret: never logged. */
  readonly notifyWebhookUrl: string | null;
  /**
   * SPLIT_WORK: follow the registered keepers' split of auctions (primary and backups, issue 26);
   * false = race every auction (only for tests of races: it wastes this keeper's own fees).
   */
  readonly splitWork: boolean;
  /**
   * CHANNEL_ACCOUNTS: source accounts for flashes (sequence numbers and fees; the keeper's key
   * signs only their Soroban authorization), so this many fills run at once; 0 = the keeper's own
   * account is every transaction's source, one fill at a time (`channels.ts`).
   */
  readonly channelAccounts: number;
  /** The same configuration without secrets, for logs and the API. */
  toJSON(): Record<string, unknown>;
}

/** Variables read by {@link loadConfig}, in the order they are checked. */
export const CONFIG_VARIABLES = [
  "KEEPER_SECRET",
  "KEEPER_NAME",
  "REGISTRY_CONTRACT",
  "VAULT_CONTRACT",
  "LENDING_POOL",
  "USDC_CONTRACT",
  "LIQUIDATOR_CONTRACT",
  "SOROBAN_RPC",
  "HORIZON_URL",
  "NETWORK_PASSPHRASE",
  "POLL_INTERVAL",
  "MIN_PROFIT",
  "API_PORT",
  "PRIMARY_DEX_ROUTER",
  "FALLBACK_DEX_ROUTER",
  "SLIPPAGE_BPS",
  "MAX_INCLUSION_FEE",
  "ALLOCATION_VAULT",
  "ALLOCATION_DRIFT_BPS",
  "KNOWN_DEPOSITORS",
  "API_HOST",
  "API_CORS_ORIGINS",
  "LOG_LEVEL",
  "LENDING_POOLS",
  "KEEPER_STATE_DIR",
  "WATCH_ADDRESSES",
  "DRY_RUN",
  "NOTIFY_WEBHOOK_URL",
  "LOG_FORMAT",
  "SPLIT_WORK",
  "CHANNEL_ACCOUNTS",
] as const;

/** Most pools one keeper watches: each adds a constant number of RPC requests to every cycle. */
export const MAX_LENDING_POOLS = 10;

/** Most CHANNEL_ACCOUNTS (each holds 10 XLM and is one more fill in flight). */
export const MAX_CHANNEL_ACCOUNTS = 16;

/** Most WATCH_ADDRESSES entries (each is one Positions key read at start-up per pool). */
export const MAX_WATCH_ADDRESSES = 100_000;

/** What {@link loadConfig} may read besides the variables (a `WATCH_ADDRESSES=@file`). */
export interface ConfigIo {
  readTextFile(path: string): string;
}

type Env = Record<string, string | undefined>;

const REQUIRED = ["KEEPER_SECRET", "REGISTRY_CONTRACT", "VAULT_CONTRACT"] as const;

/**
 * Validates the environment; throws one {@link ConfigError} listing every problem found
 * (missing required variables first, then invalid values in {@link CONFIG_VARIABLES} order).
 */
export function loadConfig(
  env: Env,
  io: ConfigIo = { readTextFile: (p) => Deno.readTextFileSync(p) },
): Config {
  const get = (k: string): string | undefined => {
    const v = env[k];
    if (v === undefined) return undefined;
    const t = v.trim();
    return t === "" ? undefined : t;
  };
  // Every problem is collected, so one run names them all: missing required variables first,
  // in the spec's table order, then each invalid value (a check that fails yields a placeholder
  // that is never used, since any problem throws below).
  const problems: ConfigProblem[] = [];
  const check = <T>(fn: () => T, placeholder: T): T => {
    try {
      return fn();
    } catch (e) {
      if (!(e instanceof ConfigError)) throw e;
      problems.push(...e.problems);
      return placeholder;
    }
  };
  for (const k of REQUIRED) {
    if (get(k) === undefined) problems.push({ variable: k, message: `missing required env: ${k}` });
  }

  const secret = get("KEEPER_SECRET");
  let keypair: Keypair | undefined;
  if (secret !== undefined) {
    if (StrKey.isValidEd25519SecretSeed(secret)) keypair = Keypair.fromSecret(secret);
    else {
      problems.push({
        variable: "KEEPER_SECRET",
        message:
          "invalid KEEPER_SECRET: not a Stellar secret seed (S followed by 55 base32 characters, valid checksum)",
      });
    }
  }

  const keeperName = get("KEEPER_NAME") ?? DEFAULTS.KEEPER_NAME;
  // deno-lint-ignore no-control-regex
  if (keeperName.length > 64 || /[\u0000-\u001f\u007f]/.test(keeperName)) {
    problems.push({
      variable: "KEEPER_NAME",
      message: "invalid KEEPER_NAME: at most 64 characters, no control characters",
    });
  }

  const registryContract = check(() => contract(get, "REGISTRY_CONTRACT"), null);
  const vaultContract = check(() => contract(get, "VAULT_CONTRACT"), null);
  const lendingPools = check(() => pools(get), []);
  const usdcContract = check(() => contract(get, "USDC_CONTRACT"), null);
  const liquidatorContract = check(() => contract(get, "LIQUIDATOR_CONTRACT"), null);
  const sorobanRpc = check(() => httpUrl(get, "SOROBAN_RPC", DEFAULTS.SOROBAN_RPC), "");
  const horizonUrl = check(() => httpUrl(get, "HORIZON_URL", DEFAULTS.HORIZON_URL), "");
  const networkPassphrase = get("NETWORK_PASSPHRASE") ?? DEFAULTS.NETWORK_PASSPHRASE;
  const pollIntervalSec = check(
    () => intIn(get, "POLL_INTERVAL", DEFAULTS.POLL_INTERVAL, 3, 300),
    0,
  );
  const minProfit = check(() => positiveNumber(get, "MIN_PROFIT", DEFAULTS.MIN_PROFIT), 0);
  const apiPort = check(() => intIn(get, "API_PORT", DEFAULTS.API_PORT, 0, 65535), 0);
  const primaryDexRouter = check(() => contract(get, "PRIMARY_DEX_ROUTER"), null);
  const fallbackDexRouter = check(() => contract(get, "FALLBACK_DEX_ROUTER"), null);
  const slippageBps = check(
    () => intIn(get, "SLIPPAGE_BPS", DEFAULTS.SLIPPAGE_BPS, 0, 10000),
    0,
  );
  const maxInclusionFee = check(
    () => intIn(get, "MAX_INCLUSION_FEE", DEFAULTS.MAX_INCLUSION_FEE, 100, 1_000_000_000),
    0,
  );
  const allocationVault = check(() => contract(get, "ALLOCATION_VAULT"), null);
  const allocationDriftBps = check(
    () => intIn(get, "ALLOCATION_DRIFT_BPS", DEFAULTS.ALLOCATION_DRIFT_BPS, 0, 10000),
    0,
  );
  const knownDepositors = check(() => depositors(env.KNOWN_DEPOSITORS), []);
  const apiHost = get("API_HOST") ?? DEFAULTS.API_HOST;
  const corsOrigins = check(() => origins(get("API_CORS_ORIGINS")), null);
  const logLevel = check(() => level(get("LOG_LEVEL")), DEFAULTS.LOG_LEVEL);
  const logFormat = check(() => format(get("LOG_FORMAT")), null);
  const keeperStateDir = get("KEEPER_STATE_DIR") ?? null;
  const watchAddresses = check(() => watchList(get("WATCH_ADDRESSES"), io), []);
  const dryRun = check(() => bool(get, "DRY_RUN", false), false);
  const notifyWebhookUrl = check(() => webhookUrl(get("NOTIFY_WEBHOOK_URL")), null);
  const splitWork = check(() => bool(get, "SPLIT_WORK", true), true);
  const channelAccounts = check(
    () => intIn(get, "CHANNEL_ACCOUNTS", DEFAULTS.CHANNEL_ACCOUNTS, 0, MAX_CHANNEL_ACCOUNTS),
    0,
  );
  if (problems.length > 0 || !keypair || !registryContract || !vaultContract) {
    throw ConfigError.of(problems);
  }

  const publicView = {
    operator: keypair.publicKey(),
    keeperName,
    registryContract,
    vaultContract,
    lendingPools: Object.freeze([...lendingPools]),
    usdcContract,
    liquidatorContract,
    sorobanRpc,
    horizonUrl,
    networkPassphrase,
    pollIntervalSec,
    minProfit,
    apiPort,
    apiHost,
    primaryDexRouter,
    fallbackDexRouter,
    slippageBps,
    maxInclusionFee,
    allocationVault,
    allocationDriftBps,
    knownDepositors: Object.freeze([...knownDepositors]),
    corsOrigins: corsOrigins && Object.freeze([...corsOrigins]),
    logLevel,
    logFormat,
    keeperStateDir,
    watchAddresses: Object.freeze([...watchAddresses]),
    dryRun,
    notifyWebhookUrl,
    splitWork,
    channelAccounts,
  };
  const cfg = { ...publicView } as Record<string | symbol, unknown>;
  // The Keypair holds the raw secret: keep it off every enumeration, JSON and inspection path.
  Object.defineProperty(cfg, "keypair", { value: keypair, enumerable: false });
  // Endpoint URLs may carry provider credentials (userinfo, ?apikey=…): never in a log or body.
  const redacted = () => ({
    ...publicView,
    sorobanRpc: redactUrl(sorobanRpc),
    horizonUrl: redactUrl(horizonUrl),
    // A webhook URL is a bearer credential in its path (Slack, Discord): only its origin shows.
    notifyWebhookUrl: notifyWebhookUrl && webhookOrigin(notifyWebhookUrl),
    watchAddresses: `${watchAddresses.length} addresses`,
    keypair: `[Keypair ${publicView.operator}]`,
  });
  Object.defineProperty(cfg, "toJSON", { value: redacted, enumerable: false });
  Object.defineProperty(cfg, Symbol.for("Deno.customInspect"), {
    value: () => `Config ${JSON.stringify(redacted())}`,
    enumerable: false,
  });
  Object.defineProperty(cfg, Symbol.for("nodejs.util.inspect.custom"), {
    value: () => `Config ${JSON.stringify(redacted())}`,
    enumerable: false,
  });
  return Object.freeze(cfg) as unknown as Config;
}

type Getter = (k: string) => string | undefined;

function contract(get: Getter, key: string): string | null {
  const v = get(key);
  if (v === undefined) return null;
  if (!StrKey.isValidContract(v)) {
    throw new ConfigError(
      key,
      `invalid ${key}: ${show(v)} is not a contract address (C…, 56 chars)`,
    );
  }
  return v;
}

function httpUrl(get: Getter, key: string, dflt: string): string {
  const v = get(key);
  if (v === undefined) return dflt;
  let u: URL;
  try {
    u = new URL(v);
  } catch {
    throw new ConfigError(key, `invalid ${key}: ${show(redactUrl(v))} is not a URL`);
  }
  if (u.protocol !== "http:" && u.protocol !== "https:") {
    throw new ConfigError(key, `invalid ${key}: ${show(redactUrl(v))} is not an http(s) URL`);
  }
  return v;
}

function intIn(get: Getter, key: string, dflt: number, lo: number, hi: number): number {
  const v = get(key);
  if (v === undefined) return dflt;
  if (!/^[+-]?\d+$/.test(v)) {
    throw new ConfigError(
      key,
      `invalid ${key}: ${show(v)} is not an integer (allowed ${lo} to ${hi})`,
    );
  }
  const n = Number(v);
  if (!Number.isSafeInteger(n) || n < lo || n > hi) {
    throw new ConfigError(key, `invalid ${key}: ${v} is outside [${lo}, ${hi}]`);
  }
  return n;
}

function positiveNumber(get: Getter, key: string, dflt: number): number {
  const v = get(key);
  if (v === undefined) return dflt;
  if (!/^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/.test(v)) {
    throw new ConfigError(key, `invalid ${key}: ${show(v)} is not a number (must be > 0)`);
  }
  const n = Number(v);
  if (!Number.isFinite(n) || n <= 0) {
    throw new ConfigError(key, `invalid ${key}: ${v} must be a finite number > 0`);
  }
  return n;
}

/**
 * LENDING_POOLS (comma-separated C… addresses) or LENDING_POOL (one); both set with different
 * values is an error naming both, since the operator meant one of them and we cannot tell which.
 */
function pools(get: Getter): string[] {
  const one = contract(get, "LENDING_POOL");
  const raw = get("LENDING_POOLS");
  if (raw === undefined) return one ? [one] : [];
  const out: string[] = [];
  const parts = raw.split(",");
  for (let i = 0; i < parts.length; i++) {
    const a = parts[i].trim();
    if (a === "") continue;
    if (!StrKey.isValidContract(a)) {
      throw new ConfigError(
        "LENDING_POOLS",
        `invalid LENDING_POOLS: entry ${i + 1} ${show(a)} is not a contract address (C…, 56 chars)`,
      );
    }
    if (!out.includes(a)) out.push(a);
  }
  if (out.length > MAX_LENDING_POOLS) {
    throw new ConfigError(
      "LENDING_POOLS",
      `invalid LENDING_POOLS: ${out.length} pools, at most ${MAX_LENDING_POOLS}`,
    );
  }
  if (one && (out.length !== 1 || out[0] !== one)) {
    throw new ConfigError(
      "LENDING_POOLS",
      "invalid LENDING_POOLS: LENDING_POOL is also set, to different pools: set only LENDING_POOLS (a comma-separated list)",
    );
  }
  return out;
}

/** WATCH_ADDRESSES: comma-separated G…/C… addresses, or `@file` with them (commas, lines, `#`). */
function watchList(raw: string | undefined, io: ConfigIo): string[] {
  if (raw === undefined) return [];
  let text = raw;
  let where = "";
  if (raw.startsWith("@")) {
    const path = raw.slice(1).trim();
    try {
      text = io.readTextFile(path);
    } catch (err) {
      throw new ConfigError(
        "WATCH_ADDRESSES",
        `invalid WATCH_ADDRESSES: cannot read ${show(path)}: ${(err as Error).message}`,
      );
    }
    text = text.split("\n").map((l) => l.replace(/#.*/, "")).join(",");
    where = ` in ${show(path)}`;
  }
  const list = addressList("WATCH_ADDRESSES", text, where);
  if (list.length > MAX_WATCH_ADDRESSES) {
    throw new ConfigError(
      "WATCH_ADDRESSES",
      `invalid WATCH_ADDRESSES: ${list.length} addresses, at most ${MAX_WATCH_ADDRESSES}`,
    );
  }
  return list;
}

/** NOTIFY_WEBHOOK_URL: an http(s) URL; never echoed (its path is the credential). */
function webhookUrl(v: string | undefined): string | null {
  if (v === undefined) return null;
  let u: URL | undefined;
  try {
    u = new URL(v);
  } catch {
    u = undefined;
  }
  if (!u || (u.protocol !== "http:" && u.protocol !== "https:")) {
    throw new ConfigError(
      "NOTIFY_WEBHOOK_URL",
      "invalid NOTIFY_WEBHOOK_URL: not an http(s) URL (the value is not shown: it is a credential)",
    );
  }
  return v;
}

/** A boolean variable: true/false, 1/0, yes/no (any case). */
function bool(get: Getter, key: string, dflt: boolean): boolean {
  const v = get(key);
  if (v === undefined) return dflt;
  const l = v.toLowerCase();
  if (l === "true" || l === "1" || l === "yes") return true;
  if (l === "false" || l === "0" || l === "no") return false;
  throw new ConfigError(key, `invalid ${key}: ${show(v)} is not true or false`);
}

/** The origin of a webhook URL, the part that may be shown (its path is the credential). */
export function webhookOrigin(url: string): string {
  try {
    return `${new URL(url).origin}/…`;
  } catch {
    return "[webhook]";
  }
}

/** KNOWN_DEPOSITORS: comma-separated G…/C… addresses; whitespace and empty entries ignored. */
function depositors(raw: string | undefined): string[] {
  if (raw === undefined || raw.trim() === "") return [];
  return addressList("KNOWN_DEPOSITORS", raw);
}

/** Comma-separated G…/C… addresses; whitespace and empty entries ignored, duplicates removed. */
function addressList(key: string, raw: string, where = ""): string[] {
  const out: string[] = [];
  const seen = new Set<string>();
  const parts = raw.split(",");
  for (let i = 0; i < parts.length; i++) {
    const a = parts[i].trim();
    if (a === "") continue;
    if (!StrKey.isValidEd25519PublicKey(a) && !StrKey.isValidContract(a)) {
      throw new ConfigError(
        key,
        `invalid ${key}: entry ${i + 1}${where} ${
          show(a)
        } is not a G… account or C… contract address`,
      );
    }
    if (!seen.has(a)) {
      seen.add(a);
      out.push(a);
    }
  }
  return out;
}

/** API_CORS_ORIGINS: comma-separated origins (scheme://host[:port]) or `*`. */
function origins(raw: string | undefined): string[] | null {
  if (raw === undefined) return null;
  const out: string[] = [];
  for (const part of raw.split(",")) {
    const o = part.trim();
    if (o === "") continue;
    if (o === "*") {
      out.push(o);
      continue;
    }
    let u: URL | undefined;
    try {
      u = new URL(o);
    } catch {
      u = undefined;
    }
    if (
      !u || (u.protocol !== "http:" && u.protocol !== "https:") || u.origin !== o.replace(/\/$/, "")
    ) {
      throw new ConfigError(
        "API_CORS_ORIGINS",
        `invalid API_CORS_ORIGINS: ${show(o)} is not an origin like https://example.org or *`,
      );
    }
    out.push(u.origin);
  }
  return [...new Set(out)];
}

function level(raw: string | undefined): ConfigLogLevel {
  if (raw === undefined) return DEFAULTS.LOG_LEVEL;
  const l = raw.toLowerCase();
  if (l === "debug" || l === "info" || l === "warn" || l === "error") return l;
  throw new ConfigError(
    "LOG_LEVEL",
    `invalid LOG_LEVEL: ${show(raw)} is not debug, info, warn or error`,
  );
}

function format(raw: string | undefined): "json" | "text" | null {
  if (raw === undefined) return null;
  const f = raw.toLowerCase();
  if (f === "json" || f === "text") return f;
  throw new ConfigError("LOG_FORMAT", `invalid LOG_FORMAT: ${show(raw)} is not json or text`);
}

/** Quotes a user value for a message, shortened; secrets are redacted by ConfigError anyway. */
function show(v: string): string {
  return JSON.stringify(v.length > 80 ? `${v.slice(0, 77)}...` : v);
}
