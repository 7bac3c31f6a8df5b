/**
 * Route module types, shaped like Fresh (`Handlers`, `PageProps`, `ctx.render`) so a later
 * move to Fresh is mechanical. `State` is the app's own: the services its handlers use
 * (Fresh's `ctx.state`); the framework never looks inside it.
 *
 * @module
 */
import type { ComponentChildren, ComponentType } from "preact";

/** What a page component receives. */
export interface PageProps<T = unknown, State = unknown> {
  data: T;
  url: URL;
  params: Record<string, string>;
  state: State;
}

/** Context of a route handler. */
export interface HandlerContext<T = unknown, State = unknown> {
  params: Record<string, string>;
  url: URL;
  state: State;
  /** Renders the route's page with `data`. */
  render(data: T, init?: { status?: number }): Response | Promise<Response>;
}

/** A route's request handlers (GET only here). */
export interface Handlers<T = unknown, State = unknown> {
  GET?(req: Request, ctx: HandlerContext<T, State>): Response | Promise<Response>;
}

/** A route module: optional handler, page component, and its title. */
export interface RouteModule<T = unknown, State = unknown> {
  handler?: Handlers<T, State>;
  default: ComponentType<PageProps<T, State>>;
  /** Document title (and description) for a render. */
  meta?: (props: PageProps<T, State>) => { title: string; description?: string };
}

/** One route of the app's manifest: a URL pattern (Hono syntax) and its module. */
export interface Route<State = unknown> {
  path: string;
  // deno-lint-ignore no-explicit-any
  module: RouteModule<any, State>;
}

/** One island: its name (= bundle file name), component and source module URL. */
export interface Island {
  name: string;
  // deno-lint-ignore no-explicit-any
  component: ComponentType<any>;
  url: URL;
}

/** What the app wrapper (Fresh's `_app.tsx`) receives around every page. */
export interface AppProps<State = unknown> {
  url: URL;
  state: State;
  children?: ComponentChildren;
}
