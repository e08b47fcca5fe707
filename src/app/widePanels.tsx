/**
 * The board's third row: storage, the checkers and the reads, the network tools and the
 * event log. They sit below the first screen, so they are a chunk of their own
 * (lazyParts.tsx), loaded just after the first frame, like the space-time diagram.
 */
import type { ReactNode } from "react";
import { OnScreen } from "./draw/OnScreen";
import type { PanelId } from "./lesson/panels";
import { NetworkTools } from "./NetworkTools";
import { CheckerPanel } from "./panels/CheckerPanel";
import { EventLog } from "./panels/EventLog";
import { StoragePanel } from "./panels/StoragePanel";
import { ReadCheckPanel } from "./reads/ReadCheck";

/** The row's panels; with `shown` (a lesson's panels so far), only those. Each is redrawn only while on screen (while a run plays): see OnScreen. */
export function WidePanels({ shown }: { readonly shown: ReadonlySet<PanelId> | null }) {
  const show = (id: PanelId, panel: ReactNode): ReactNode => (shown === null || shown.has(id) ? <OnScreen>{panel}</OnScreen> : null);
  return (
    <>
      {show("storage", <StoragePanel />)}
      {show("checkers", <CheckerPanel />)}
      {show("checkers", <ReadCheckPanel />)}
      {show("network", <NetworkTools />)}
      {show("events", <EventLog />)}
    </>
  );
}
