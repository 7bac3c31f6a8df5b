/**
 * What a depositor must see before trusting the share price and the rules (issue 20): the flash
 * profit still unlocking into the share price, and any flash-policy or configuration change the
 * admin queued, with the time it applies — early enough to withdraw first. Server-rendered.
 *
 * @module
 */
import type { FlashPolicy, VaultConfig, VaultState } from "@vigil/contracts/clients/vault";
import type { Pending } from "../data/contract_reads.ts";
import { formatBps, formatDuration, formatTime, formatUsdc, shortAddress } from "../data/format.ts";
import { Notice, Panel } from "./ui.tsx";
import { rateIsNotable } from "../data/clock.ts";

/**
 * " (in 4m 10s)" / " (now)" for a ledger time (Unix seconds) against the chain's clock; when that
 * clock runs at another rate than real time (`rate`), the real time too.
 */
export function fromNow(at: bigint, chainNow: number | null, rate: number | null = null): string {
  if (chainNow === null) return "";
  const s = Number(at) - chainNow;
  if (s <= 0) return " (now)";
  if (!rateIsNotable(rate)) return ` (in ${formatDuration(s)})`;
  return ` (in ${formatDuration(s)} of chain time, about ${
    formatDuration(Math.max(1, Math.ceil(s / rate)))
  } real)`;
}

/** The locked-profit line: "x USDC of recent profit unlocking until …", or nothing when none. */
export function ProfitUnlockNotice(
  props: { state: VaultState | null; chainNow: number | null; rate?: number | null; id?: string },
) {
  const s = props.state;
  if (!s || s.locked_profit <= 0n) return null;
  return (
    <Notice kind="info" id={props.id ?? "profit-unlock"}>
      {formatUsdc(s.locked_profit)} of recent profit unlocking until{" "}
      {formatTime(Number(s.unlock_end) * 1000, true)}
      {fromNow(s.unlock_end, props.chainNow, props.rate)}: it enters the share price gradually, so a
      deposit made now does not buy into it.
    </Notice>
  );
}

/** Added and removed entries of one address list. */
function listDiff(label: string, from: string[], to: string[]): string | null {
  const added = to.filter((a) => !from.includes(a)).map((a) => shortAddress(a));
  const removed = from.filter((a) => !to.includes(a)).map((a) => shortAddress(a));
  if (added.length === 0 && removed.length === 0) return null;
  const parts = [
    ...(added.length ? [`adds ${added.join(", ")}`] : []),
    ...(removed.length ? [`removes ${removed.join(", ")}`] : []),
  ];
  return `${label}: ${parts.join("; ")}`;
}

/** What a queued policy changes against the one in force (every field when that is unknown). */
export function policyChanges(from: FlashPolicy | null, to: FlashPolicy): string[] {
  const f = from ?? { executors: [], max_slippage_bps: NaN, pools: [], routers: [], tokens: [] };
  const out = [
    listDiff("executors", f.executors, to.executors),
    listDiff("lending pools", f.pools, to.pools),
    listDiff("swap routers", f.routers, to.routers),
    listDiff("hop tokens", f.tokens, to.tokens),
  ].filter((x): x is string => x !== null);
  if (f.max_slippage_bps !== to.max_slippage_bps) {
    out.push(
      `max slippage ${
        Number.isNaN(f.max_slippage_bps) ? "" : `${formatBps(f.max_slippage_bps)} → `
      }${formatBps(to.max_slippage_bps)}`,
    );
  }
  return out.length ? out : ["no visible difference"];
}

const CONFIG_FIELDS: [keyof VaultConfig, string, "usdc" | "secs"][] = [
  ["deposit_cap", "deposit cap", "usdc"],
  ["max_draw_per_keeper", "largest flash", "usdc"],
  ["min_fill_profit", "least profit of a counted fill", "usdc"],
  ["withdraw_cooldown", "withdraw cooldown", "secs"],
  ["policy_delay", "delay of queued changes", "secs"],
  ["profit_unlock_secs", "profit unlock time", "secs"],
];

/** What a queued config changes against the one in force. */
export function configChanges(from: VaultConfig | null, to: VaultConfig): string[] {
  const fmt = (v: bigint, kind: "usdc" | "secs") =>
    kind === "usdc" ? formatUsdc(v) : formatDuration(v);
  const out = CONFIG_FIELDS.flatMap(([k, label, kind]) =>
    from && from[k] === to[k]
      ? []
      : [`${label} ${from ? `${fmt(from[k], kind)} → ` : ""}${fmt(to[k], kind)}`]
  );
  return out.length ? out : ["no visible difference"];
}

/** Props of {@link PendingChanges}. */
export interface PendingChangesProps {
  policy: FlashPolicy | null;
  pendingPolicy: Pending<FlashPolicy> | null;
  config: VaultConfig | null;
  pendingConfig: Pending<VaultConfig> | null;
  /** Chain time (Unix seconds), or null. */
  chainNow: number | null;
  /** The chain clock's rate against real time, when measured. */
  rate?: number | null;
  /** The pending views could not be read. */
  error: string | null;
}

/**
 * The queued flash-policy and config changes with the time each applies, or a line saying none
 * is queued (and how long any future one must wait).
 */
export function PendingChanges(props: PendingChangesProps) {
  const { pendingPolicy: pp, pendingConfig: pc } = props;
  const delay = props.config ? formatDuration(props.config.policy_delay) : "the policy delay";
  return (
    <Panel title="Queued changes" id="pending-changes">
      {props.error
        ? <p class="muted">— (the vault's queued changes could not be read)</p>
        : !pp && !pc
        ? (
          <p class="empty" id="pending-none">
            No flash-policy or configuration change is queued. A change that widens the flash policy
            or alters the configuration waits {delay} before it applies, and shows here.
          </p>
        )
        : (
          <>
            {pp && (
              <Notice id="pending-policy">
                The admin queued a new flash policy: it applies at{" "}
                {formatTime(Number(pp.applies_at) * 1000, true)}
                {fromNow(pp.applies_at, props.chainNow, props.rate)}. Changes:{" "}
                {policyChanges(props.policy, pp.value).join("; ")}.
              </Notice>
            )}
            {pc && (
              <Notice id="pending-config">
                The admin queued a new configuration: it applies at{" "}
                {formatTime(Number(pc.applies_at) * 1000, true)}
                {fromNow(pc.applies_at, props.chainNow, props.rate)}. Changes:{" "}
                {configChanges(props.config, pc.value).join("; ")}.
              </Notice>
            )}
            <p class="hint">
              A depositor who disagrees can withdraw before then (withdraw cooldown{" "}
              {formatDuration(props.config?.withdraw_cooldown)}).
            </p>
          </>
        )}
    </Panel>
  );
}
