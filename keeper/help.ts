/**
 * `main.ts keeper --help`: the keeper's environment variables, each with its default and a
 * one-line rule. The table is typed by {@link CONFIG_VARIABLES}, so a new variable without a help
 * line does not compile.
 *
 * @module
 */
import { CONFIG_VARIABLES, DEFAULTS, MAX_LENDING_POOLS } from "./config.ts";

/** One variable's help: its default (or `required`) and its rule. */
export interface VariableHelp {
  readonly dflt: string;
  readonly rule: string;
}

/** Help of every keeper variable. */
export const CONFIG_HELP: Readonly<Record<typeof CONFIG_VARIABLES[number], VariableHelp>> = {
  KEEPER_SECRET: {
    dflt: "required",
    rule: "secret seed S… of a dedicated key; signs everything; never on a command line",
  },
  KEEPER_NAME: { dflt: DEFAULTS.KEEPER_NAME, rule: "name in the registry, ≤ 64 characters" },
  REGISTRY_CONTRACT: { dflt: "required", rule: "keeper registry contract C…" },
  VAULT_CONTRACT: { dflt: "required", rule: "Vigil vault contract C…" },
  LENDING_POOLS: {
    dflt: "empty",
    rule:
      `Blend pools C…, comma-separated, at most ${MAX_LENDING_POOLS}; empty = monitor only, never liquidates`,
  },
  LENDING_POOL: { dflt: "empty", rule: "one pool C… (the one-pool form of LENDING_POOLS)" },
  USDC_CONTRACT: {
    dflt: "empty",
    rule: "USDC token contract C…; empty = liquidations not executed",
  },
  LIQUIDATOR_CONTRACT: {
    dflt: "the flash policy's only executor",
    rule: "Vigil's liquidator C… (flash executor)",
  },
  SOROBAN_RPC: { dflt: DEFAULTS.SOROBAN_RPC, rule: "Soroban JSON-RPC http(s) URL" },
  HORIZON_URL: { dflt: DEFAULTS.HORIZON_URL, rule: "Horizon http(s) URL" },
  NETWORK_PASSPHRASE: {
    dflt: DEFAULTS.NETWORK_PASSPHRASE,
    rule: "must be the RPC's network (checked at start-up)",
  },
  POLL_INTERVAL: { dflt: String(DEFAULTS.POLL_INTERVAL), rule: "seconds between cycles, 3–300" },
  MIN_PROFIT: { dflt: String(DEFAULTS.MIN_PROFIT), rule: "least lot/cost ratio to fill, > 0" },
  API_PORT: { dflt: String(DEFAULTS.API_PORT), rule: "API + pages port, 0–65535 (0 = any free)" },
  API_HOST: { dflt: DEFAULTS.API_HOST, rule: "address the API binds to" },
  API_CORS_ORIGINS: {
    dflt: "localhost dev origins",
    rule: "allowed origins, comma-separated, or *",
  },
  PRIMARY_DEX_ROUTER: { dflt: "empty", rule: "Soroswap-ABI router C… tried first" },
  FALLBACK_DEX_ROUTER: { dflt: "empty", rule: "router C… tried after the primary fails" },
  SLIPPAGE_BPS: { dflt: String(DEFAULTS.SLIPPAGE_BPS), rule: "swap floor below oracle, 0–10000" },
  MAX_INCLUSION_FEE: {
    dflt: String(DEFAULTS.MAX_INCLUSION_FEE),
    rule: "inclusion fee ceiling per transaction, stroops, 100–10^9",
  },
  ALLOCATION_VAULT: { dflt: "empty", rule: "allocation vault C… to rebalance" },
  ALLOCATION_DRIFT_BPS: {
    dflt: String(DEFAULTS.ALLOCATION_DRIFT_BPS),
    rule: "drift that triggers a rebalance, 0–10000",
  },
  KNOWN_DEPOSITORS: { dflt: "empty", rule: "G…/C… addresses shown on the dashboard" },
  LOG_LEVEL: { dflt: DEFAULTS.LOG_LEVEL, rule: "debug, info, warn or error" },
  LOG_FORMAT: {
    dflt: "text on a terminal, else json",
    rule: "json (every detail) or text (a plain sentence per event)",
  },
  KEEPER_STATE_DIR: { dflt: "empty", rule: "directory keeping borrower indexes between runs" },
  WATCH_ADDRESSES: { dflt: "empty", rule: "borrowers to track: G…/C… list or @file" },
  DRY_RUN: { dflt: "false", rule: "true: simulate everything, send nothing" },
  NOTIFY_WEBHOOK_URL: { dflt: "empty", rule: "Slack/Discord webhook (a secret: never logged)" },
  SPLIT_WORK: { dflt: "true", rule: "false: race every auction, ignore the keepers' split" },
  CHANNEL_ACCOUNTS: {
    dflt: String(DEFAULTS.CHANNEL_ACCOUNTS),
    rule: "fills in flight at once, 0–16 (10 XLM each; 0: the keeper account sends)",
  },
};

/** Formats `[name, default, rule]` rows as aligned help lines. */
export function helpRows(rows: readonly (readonly [string, string, string])[]): string {
  const w0 = Math.max(...rows.map((r) => r[0].length));
  const w1 = Math.max(...rows.map((r) => r[1].length));
  return rows.map(([n, d, r]) => `  ${n.padEnd(w0)}  ${d.padEnd(w1)}  ${r}`.trimEnd()).join("\n");
}

/** The text of `main.ts keeper --help`; `extra` rows (e.g. the web pages' variables) follow. */
export function keeperHelp(extra: readonly (readonly [string, string, string])[] = []): string {
  const rows = CONFIG_VARIABLES.map((k) => [k, CONFIG_HELP[k].dflt, CONFIG_HELP[k].rule] as const);
  return `Usage: main.ts keeper

Runs the keeper daemon: registers in the keeper registry, watches the lending pools, fills
liquidation auctions with flash loans from the vault, and serves its API and the web pages.
Configured only by environment variables, read from the environment and from .env in the
working directory (the environment wins; blank = unset). Every problem is reported at once
and the keeper exits 1. See .env.example and keeper/api/README.md.

Environment (name, default, rule):
${helpRows([...rows, ...extra])}

Options:
  -h, --help  show this help
`;
}
