/**
 * Write progress for the islands: a hook that runs one write (building → signing →
 * submitted → confirmed) and a component that shows its stages, the transaction hash and,
 * on failure, the plain-language reason.
 *
 * @module
 */
import { useState } from "preact/hooks";
import { signal } from "@preact/signals";
import type { AutoRestore, StageInfo, WriteStage } from "@vigil/soroban/client";
import { plainError } from "../data/errors.ts";
import { shortHash } from "../data/format.ts";

/** Also when the transaction restores archived state itself (protocol 23+): same stages. */
const STAGES: WriteStage[] = ["building", "signing", "submitted", "confirmed"];
/** An older RPC's path: a separate restore of archived state first. */
const STAGES_RESTORE: WriteStage[] = ["building", "restoring", "signing", "submitted", "confirmed"];
const STAGE_LABEL: Record<WriteStage, string> = {
  building: "Building & simulating",
  restoring: "Restoring archived state",
  signing: "Signing in wallet",
  submitted: "Submitted",
  confirmed: "Confirmed",
};

/** State of one write. */
export interface WriteState {
  stage: WriteStage | null;
  status: "idle" | "running" | "done" | "failed";
  hash: string | null;
  error: string | null;
  /** What the write achieved, e.g. "Deposited 10.00 USDC for 9.99 shares". */
  message: string | null;
  /** Set when archived state had to be restored first: the restore's fee in stroops. */
  restoreFee: string | null;
  /** Set when the transaction restores archived state itself (protocol 23+). */
  autoRestore: AutoRestore | null;
}

const IDLE: WriteState = {
  stage: null,
  status: "idle",
  hash: null,
  error: null,
  message: null,
  restoreFee: null,
  autoRestore: null,
};

/**
 * Counts the writes confirmed on this page, shared by every island: each island that shows a
 * figure a write can change (the wallet's USDC, shares, stake) reads again when it moves.
 */
export const writesConfirmed = signal(0);

/** Runs writes one at a time and tracks their progress. */
export function useWrite(ctx: { usdc?: string | null } = {}) {
  const [state, setState] = useState<WriteState>(IDLE);
  const run = async <T,>(
    fn: (onStage: (s: WriteStage, info?: StageInfo) => void) => Promise<T>,
    describe: (v: T) => string,
  ): Promise<T | null> => {
    setState({ ...IDLE, status: "running", stage: "building" });
    try {
      const v = await fn((stage, info) =>
        setState((s) => ({
          ...s,
          stage,
          hash: info?.hash ?? s.hash,
          restoreFee: info?.restoreFee ?? s.restoreFee,
          autoRestore: info?.autoRestore ?? s.autoRestore,
        }))
      );
      setState((s) => ({ ...s, status: "done", stage: "confirmed", message: describe(v) }));
      writesConfirmed.value++;
      return v;
    } catch (e) {
      const error = plainError(e, ctx);
      console.warn("write failed:", e);
      setState((s) => ({ ...s, status: "failed", error }));
      return null;
    }
  };
  return { state, run, reset: () => setState(IDLE), busy: state.status === "running" };
}

/** Stroops as XLM: all seven decimals when they matter, at least four. */
const xlm = (stroops: string) => (Number(stroops) / 1e7).toFixed(7).replace(/0{1,3}$/, "");

/**
 * The automatic restore, in words: how many entries, and the fee with the restore's share as
 * an upper bound (what restoring them alone would cost; see soroban/auto_restore.ts for why that
 * bounds it).
 */
function AutoRestoreNotice(props: { r: AutoRestore }) {
  const { entries, resourceFee, restoreFee } = props.r;
  return (
    <p class="notice info" data-testid="write-restore" data-restore="auto">
      Part of the stored state this transaction uses was archived by the network (its rent period
      ran out). This transaction also restores it —{" "}
      {entries === 1 ? "1 archived entry" : `${entries} archived entries`}{" "}
      — with the same signature; there is no separate step. Its network fee, at most{" "}
      <span data-testid="write-restore-fee">{xlm(resourceFee)}</span> XLM, includes the restore
      {restoreFee !== null
        ? (
          <>
            {": at most "}
            <span data-testid="write-restore-share">{xlm(restoreFee)}</span> XLM of it
          </>
        )
        : null}.
    </p>
  );
}

/** Shows a write's stages and outcome. */
export function WriteStatus(props: { state: WriteState; explorer: string | null; id: string }) {
  const s = props.state;
  if (s.status === "idle") return null;
  const stages = s.restoreFee !== null ? STAGES_RESTORE : STAGES;
  const at = s.stage ? stages.indexOf(s.stage) : -1;
  return (
    <div id={props.id} data-status={s.status}>
      <ol class="progress" aria-label="Transaction progress">
        {stages.map((st, i) => {
          const cls = i < at || (i === at && s.status === "done")
            ? "done"
            : i === at && s.status === "running"
            ? "active"
            : i === at && s.status === "failed"
            ? "failed"
            : "";
          return <li key={st} class={cls} data-stage={st}>{STAGE_LABEL[st]}</li>;
        })}
      </ol>
      {s.autoRestore && <AutoRestoreNotice r={s.autoRestore} />}
      {s.restoreFee !== null && (
        <p class="notice info" data-testid="write-restore" data-restore="separate">
          Part of this contract's stored state was archived by the network (its rent period ran
          out). Your wallet signs a restore first, costing at most {xlm(s.restoreFee)}{" "}
          XLM in fees; then the transaction itself.
        </p>
      )}
      {s.status === "failed" && s.error && (
        <p class="notice error result" role="alert" data-testid="write-error">{s.error}</p>
      )}
      {s.status === "done" && s.message && (
        <p class="notice info result" data-testid="write-ok">{s.message}</p>
      )}
      {s.hash && (
        <p class="small muted" style={{ margin: "6px 0 0" }}>
          Transaction {props.explorer
            ? (
              <a
                href={props.explorer + s.hash}
                target="_blank"
                rel="noopener noreferrer"
                class="mono"
              >
                {shortHash(s.hash)}
              </a>
            )
            : <span class="mono" title={s.hash}>{shortHash(s.hash)}</span>}
        </p>
      )}
    </div>
  );
}
