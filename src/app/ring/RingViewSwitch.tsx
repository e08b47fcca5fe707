/**
 * The ring's view switch on the Cluster panel's header: every message, or only the lease
 * story (lease requests, grants and refreshes, storage writes). The choice lives in the
 * page's UI store (ui.ts), so the drawing and this control agree.
 */
import { type RingView, useUi } from "../ui";
import "./RingViewSwitch.css";

const VIEWS: readonly { view: RingView; text: string; title: string }[] = [
  { view: "all", text: "All messages", title: "Draw every message: Raft's votes, appends and heartbeats too" },
  {
    view: "lease",
    text: "Lease story",
    title: "Draw only lease requests, grants and refreshes and storage writes; hide Raft's own traffic and the key-value clients'",
  },
];

export function RingViewSwitch() {
  const view = useUi((s) => s.ringView);
  const setView = useUi((s) => s.setRingView);
  return (
    <div className="ring-view">
      {view === "lease" && (
        <span className="ring-hidden-note" title="Votes, appends, heartbeats and the clients' requests still happen; they are only not drawn.">
          Raft traffic hidden
        </span>
      )}
      {/* biome-ignore lint/a11y/useSemanticElements: a pair of toggle buttons, not a form field set. */}
      <div className="segmented" role="group" aria-label="Messages drawn on the ring">
        {VIEWS.map((v) => (
          <button
            key={v.view}
            type="button"
            className="small"
            aria-pressed={view === v.view}
            title={v.title}
            onClick={() => setView(v.view)}
          >
            {v.text}
          </button>
        ))}
      </div>
    </div>
  );
}
