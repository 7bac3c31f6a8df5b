/**
 * The app wrapper every page renders inside (Fresh's `_app.tsx`).
 *
 * @module
 */
import type { AppProps } from "../state.ts";
import { Layout } from "../components/Layout.tsx";

/** Wraps a page in the site layout. */
export default function App(props: AppProps) {
  return (
    <Layout
      config={props.state.config}
      path={props.url.pathname}
      clock={props.state.chain.clock.view()}
      nowWall={props.state.now()}
    >
      {props.children}
    </Layout>
  );
}
