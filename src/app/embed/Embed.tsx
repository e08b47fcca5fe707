/** The page in embed mode (?embed=1): the run's controls, the cluster, and a link to the same run in the full lab. */
import { type SyntheticEvent, useEffect, useState } from "react";
import { Ring } from "../ring/Ring";
import { Toolbar } from "../Toolbar";
import { fullLabHref } from "./embedMode";
import "./embed.css";

export function EmbedBody() {
  // The address changes as the run does (its #run=… link after an action): the link is refreshed before it is used.
  const [href, setHref] = useState(() => fullLabHref(window.location.href));
  const refresh = (e: SyntheticEvent<HTMLAnchorElement>): void => {
    const now = fullLabHref(window.location.href);
    e.currentTarget.href = now;
    setHref(now);
  };
  useEffect(() => {
    document.documentElement.classList.add("embed");
    return () => document.documentElement.classList.remove("embed");
  }, []);
  return (
    <main className="embed-board" aria-label="Lease Lab">
      <header className="embed-top">
        <Toolbar />
      </header>
      <div className="embed-ring">
        <Ring />
        <a className="embed-open" href={href} target="_blank" rel="noopener" onPointerEnter={refresh} onFocus={refresh} onClick={refresh}>
          Open in Lease Lab ↗
        </a>
      </div>
    </main>
  );
}
