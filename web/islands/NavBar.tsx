/**
 * The site navigation. Server-rendered as plain links (it works without JavaScript); on a phone
 * it scrolls sideways, so in the browser the current page's tab is scrolled into view and a fade
 * at either edge says that more tabs lie that way.
 *
 * @module
 */
import { useEffect, useRef, useState } from "preact/hooks";

/** Props: the tabs (href, label) and the current one's href (null: none). */
export interface NavBarProps {
  items: [string, string][];
  current: string | null;
}

/** The navigation island. */
export default function NavBar(props: NavBarProps) {
  const ref = useRef<HTMLElement>(null);
  const [edges, setEdges] = useState({ left: false, right: false });

  useEffect(() => {
    const nav = ref.current;
    if (!nav) return;
    const active = nav.querySelector<HTMLElement>('a[aria-current="page"]');
    if (active && nav.scrollWidth > nav.clientWidth) {
      // Centre the current tab where it fits (scrollLeft clamps at both ends).
      nav.scrollLeft = active.offsetLeft - (nav.clientWidth - active.offsetWidth) / 2;
    }
    const update = () =>
      setEdges({
        left: nav.scrollLeft > 2,
        right: nav.scrollLeft + nav.clientWidth < nav.scrollWidth - 2,
      });
    update();
    nav.addEventListener("scroll", update, { passive: true });
    globalThis.addEventListener("resize", update);
    return () => {
      nav.removeEventListener("scroll", update);
      globalThis.removeEventListener("resize", update);
    };
  }, []);

  const cls = ["nav", edges.left ? "more-left" : "", edges.right ? "more-right" : ""]
    .filter(Boolean).join(" ");
  return (
    <nav class={cls} aria-label="Main" ref={ref} id="site-nav">
      {props.items.map(([href, label]) => (
        <a key={href} href={href} aria-current={href === props.current ? "page" : undefined}>
          {label}
        </a>
      ))}
    </nav>
  );
}
