/**
 * The app wrapper every page renders inside (Fresh's `_app.tsx`).
 *
 * @module
 */
import type { ComponentChildren } from "preact";
import type { PublicConfig } from "../data/config.ts";
import { Layout } from "../components/Layout.tsx";

/** Wraps a page in the site layout. */
export default function App(
  props: { config: PublicConfig; path: string; children?: ComponentChildren },
) {
  return <Layout config={props.config} path={props.path}>{props.children}</Layout>;
}
