/**
 * Server-side rendering with islands, the way Fresh does it: a component registered as an
 * island (the app lists its islands, Fresh's manifest) renders normally on the server, wrapped in a marker element
 * that carries its serialized props; the page then loads that island's browser bundle, which
 * hydrates the marker. Everything else is plain HTML with no JavaScript.
 *
 * Island props must be JSON data (bigint allowed); nested islands render as part of their
 * outer island.
 *
 * @module
 */
import { type ComponentType, createContext, h, options, type VNode } from "preact";
import { useContext } from "preact/hooks";
import { renderToString } from "preact-render-to-string";
import { jsonForScript, stringifyProps } from "./serialize.ts";

// deno-lint-ignore no-explicit-any
type AnyComponent = ComponentType<any>;

const islandNames = new Map<AnyComponent, string>();
const InsideIsland = createContext(false);

/** Registers island components (server side) so their use in a page is detected. */
export function registerIslands(islands: readonly { name: string; component: AnyComponent }[]) {
  for (const i of islands) islandNames.set(i.component, i.name);
}

/** Set while a page renders: the islands it uses. renderToString is synchronous. */
let used: Set<string> | null = null;
let bypass = false;

interface MarkerProps {
  name: string;
  comp: AnyComponent;
  props: Record<string, unknown>;
}

function IslandMarker({ name, comp, props }: MarkerProps) {
  const inside = useContext(InsideIsland);
  bypass = true;
  const inner = h(comp, props);
  bypass = false;
  if (inside) return inner;
  used?.add(name);
  return h(
    InsideIsland.Provider,
    { value: true },
    h("div", {
      "data-island": name,
      "data-props": stringifyProps(props),
      class: "island",
    }, inner),
  );
}

const prevVnode = options.vnode;
options.vnode = (vnode: VNode) => {
  if (used && !bypass && typeof vnode.type === "function") {
    const name = islandNames.get(vnode.type as AnyComponent);
    if (name) {
      // Children (JSX) cannot cross to the browser; islands take data props only.
      const { children: _children, ...props } = vnode.props as Record<string, unknown>;
      const comp = vnode.type as AnyComponent;
      (vnode as { type: unknown }).type = IslandMarker;
      (vnode as unknown as { props: MarkerProps }).props = { name, comp, props };
    }
  }
  prevVnode?.(vnode);
};

/** What a rendered document needs besides the body. */
export interface DocumentOptions {
  title: string;
  description?: string;
  /**
   * The page's configuration for the browser (opaque to the framework; JSON data, bigint
   * allowed), embedded as a `<script type="application/json">` data block.
   */
  config?: unknown;
  /** The id of that data block (default "ssr-config"). */
  configId?: string;
  /** URL of an island's script, by island name (with a cache-busting query). */
  islandSrc: (name: string) => string;
  /** The page's icon (none without). */
  icon?: { href: string; type: string };
  /** Stylesheet URL (none without). */
  styleHref?: string;
  status?: number;
  /** The island bundles could not be loaded: no island scripts, and a notice saying so. */
  islandsUnavailable?: boolean;
}

/** Shown at the top of every page when the island bundles are unavailable. */
export const ISLANDS_UNAVAILABLE_NOTICE =
  "The interactive parts of this page (wallet, forms, live updates) are unavailable: the " +
  "server could not load its browser scripts. The server log says why and how to fix it.";

/** Renders a page body (already wrapped in the app layout) into a full HTML document. */
// deno-lint-ignore no-explicit-any
export function renderDocument(body: VNode<any>, opts: DocumentOptions): string {
  used = new Set();
  let html: string;
  let islands: string[];
  try {
    html = renderToString(body);
    islands = [...used].sort();
  } finally {
    used = null;
  }
  const esc = (s: string) =>
    s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
  const scripts = opts.islandsUnavailable
    ? ""
    : islands.map((n) => `<script type="module" src="${esc(opts.islandSrc(n))}"></script>`)
      .join("");
  const notice = opts.islandsUnavailable
    ? `<div class="islands-unavailable" role="alert">${esc(ISLANDS_UNAVAILABLE_NOTICE)}</div>`
    : "";
  return "<!DOCTYPE html>" +
    `<html lang="en"><head><meta charset="utf-8">` +
    `<meta name="viewport" content="width=device-width, initial-scale=1">` +
    `<title>${esc(opts.title)}</title>` +
    (opts.description ? `<meta name="description" content="${esc(opts.description)}">` : "") +
    (opts.icon
      ? `<link rel="icon" href="${esc(opts.icon.href)}" type="${esc(opts.icon.type)}">`
      : "") +
    (opts.styleHref ? `<link rel="stylesheet" href="${esc(opts.styleHref)}">` : "") +
    `</head><body${opts.islandsUnavailable ? ` class="islands-off"` : ""}>${notice}${html}` +
    (opts.config === undefined ? "" : `<script id="${esc(opts.configId ?? "ssr-config")}" ` +
      `type="application/json">${jsonForScript(opts.config)}</script>`) +
    scripts + `</body></html>`;
}
