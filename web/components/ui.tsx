/**
 * Small presentational components shared by the pages (server-rendered, no JavaScript).
 *
 * @module
 */
import type { ComponentChildren } from "preact";
import { DASH, shortAddress, shortHash } from "../data/format.ts";

/** A figure tile: label, value (already formatted; "—" when unknown), optional note. */
export function Tile(
  props: { label: string; value: string; sub?: ComponentChildren; title?: string; id?: string },
) {
  return (
    <div class="tile" id={props.id} title={props.title}>
      <div class="label">{props.label}</div>
      <div class="value" id={props.id ? `${props.id}-value` : undefined}>
        {props.value}
      </div>
      {props.sub !== undefined && <div class="sub">{props.sub}</div>}
    </div>
  );
}

/** A bordered panel with an optional heading and right-hand extra. */
export function Panel(
  props: {
    title?: string;
    extra?: ComponentChildren;
    children: ComponentChildren;
    id?: string;
    class?: string;
  },
) {
  return (
    <section class={`panel ${props.class ?? ""}`} id={props.id}>
      {(props.title || props.extra) && (
        <div class="panel-head">
          {props.title && <h2>{props.title}</h2>}
          {props.extra}
        </div>
      )}
      {props.children}
    </section>
  );
}

/** A warning line (e.g. "keeper API unreachable"). */
export function Notice(
  props: { kind?: "warn" | "error" | "info"; children: ComponentChildren; id?: string },
) {
  const cls = props.kind === "error"
    ? "notice error"
    : props.kind === "info"
    ? "notice info"
    : "notice";
  return <div class={cls} role="status" id={props.id}>{props.children}</div>;
}

/** An address linking to its depositor page, shortened, full text in the title. */
export function Addr(
  props: { address: string | null | undefined; link?: boolean; full?: boolean },
) {
  if (!props.address) return <span>{DASH}</span>;
  const text = props.full ? props.address : shortAddress(props.address);
  if (props.link === false || !props.address.startsWith("G")) {
    return <span class="mono" title={props.address}>{text}</span>;
  }
  return (
    <a class="mono" href={`/dashboard/${props.address}`} title={props.address}>
      {text}
    </a>
  );
}

/** A transaction hash, linked to an explorer where one exists for the network. */
export function TxLink(props: { hash: string | null | undefined; explorer: string | null }) {
  if (!props.hash) return <span>{DASH}</span>;
  if (!props.explorer) return <span class="mono" title={props.hash}>{shortHash(props.hash)}</span>;
  return (
    <a
      class="mono"
      href={props.explorer + props.hash}
      title={props.hash}
      target="_blank"
      rel="noopener noreferrer"
    >
      {shortHash(props.hash)}
    </a>
  );
}

/** A progress bar for a ratio in [0, 1] (clamped); nothing drawn when unknown. */
export function Bar(props: { ratio: number | null; label: string }) {
  if (props.ratio === null || !Number.isFinite(props.ratio)) return null;
  const pct = Math.max(0, Math.min(1, props.ratio)) * 100;
  return (
    <div
      class="bar"
      role="progressbar"
      aria-label={props.label}
      aria-valuemin={0}
      aria-valuemax={100}
      aria-valuenow={Math.round(pct)}
    >
      <span style={{ width: `${pct.toFixed(2)}%` }} />
    </div>
  );
}

/** Page heading with a short lede. */
export function PageHead(props: { title: string; lede?: ComponentChildren }) {
  return (
    <>
      <h1 class="page-title">{props.title}</h1>
      {props.lede && <p class="lede">{props.lede}</p>}
    </>
  );
}
