/**
 * Browser runtime for islands: finds the server-rendered markers of one island and hydrates
 * them with the props the server serialized (see `ssr/serialize.ts`).
 *
 * @module
 */
import { type ComponentType, h, hydrate } from "preact";
import { parseProps } from "./serialize.ts";

/** Hydrates every `[data-island=name]` marker on the page with `Component`. */
export function hydrateIslands(name: string, Component: ComponentType<Record<string, unknown>>) {
  const els = document.querySelectorAll<HTMLElement>(`[data-island="${name}"]`);
  for (const el of els) {
    const props = parseProps(el.dataset.props ?? "{}");
    hydrate(h(Component, props), el);
    el.dataset.hydrated = "1";
  }
}
