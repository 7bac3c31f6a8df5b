/**
 * Route module types, shaped like Fresh 1.x (`Handlers`, `PageProps`, `ctx.render`) so a
 * later move to Fresh is mechanical.
 *
 * @module
 */
import type { ComponentType } from "preact";
import type { PublicConfig } from "@vigil/web/data/config";
import type { ChainReader } from "@vigil/web/data/chain";
import type { KeeperApi } from "@vigil/web/data/api";
import type { ChainHistory } from "@vigil/web/data/history";

/** Services every route handler can use. */
export interface WebState {
  config: PublicConfig;
  chain: ChainReader;
  api: KeeperApi;
  history: ChainHistory;
  /** Current time in ms (injectable for tests). */
  now: () => number;
}

/** What a page component receives. */
export interface PageProps<T = unknown> {
  data: T;
  url: URL;
  params: Record<string, string>;
  state: WebState;
}

/** Context of a route handler. */
export interface HandlerContext<T = unknown> {
  params: Record<string, string>;
  url: URL;
  state: WebState;
  /** Renders the route's page with `data`. */
  render(data: T, init?: { status?: number }): Response | Promise<Response>;
}

/** A route's request handlers (GET only here). */
export interface Handlers<T = unknown> {
  GET?(req: Request, ctx: HandlerContext<T>): Response | Promise<Response>;
}

/** A route module: optional handler, page component, and its title. */
export interface RouteModule<T = unknown> {
  handler?: Handlers<T>;
  default: ComponentType<PageProps<T>>;
  /** Document title (and description) for a render. */
  meta?: (props: PageProps<T>) => { title: string; description?: string };
}
