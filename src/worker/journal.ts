/**
 * Listens to a simulation's trace and keeps what the page needs and the simulator
 * does not: the event log in plain words, the lease timeline's history (spans and
 * marks), and recently dropped messages. Every buffer is bounded.
 */
import type { TraceEvent } from "../core/sim/trace";
import { describeEvent, dropWords, messageLabel } from "./describe";
import { driftWords, topOfState } from "./holderWords";
import {
  DIAGRAM_MARK_LIMIT,
  DIAGRAM_MESSAGE_LIMIT,
  type DiagramMark,
  type DropView,
  EVENT_LOG_LIMIT,
  type EventLine,
  LEASE_HISTORY_US,
  type LeaseMark,
  type LeaseSpan,
} from "./protocol";
import type { SharedPart } from "../core/replay/timeline";
import { ChunkedHistory, type ChunkedHistoryState, MessageHistory, type MessageHistoryState, plainPacker } from "./chunkedHistory";
import { emptyColumns, type MessageColumns } from "./messageColumns";
import { MomentTracker } from "./moments";
import { type Sent, SentIndex } from "./sentIndex";

/** Lines kept in the worker between two views (the page keeps its own history). */
const MAX_PENDING_LINES = 2000;
/** Dropped messages remembered for drawing. */
const MAX_DROPS = 60;
/** Spans and marks kept per lease (besides the time bound). */
const MAX_SPANS = 40;
const MAX_MARKS = 400;
/** Lease apply events seen (they arrive once per node; the first one counts). */
const MAX_SEEN = 4096;

interface OpenSpan {
  holder: string;
  token: number;
  from: number;
  to: number | null;
  end: string | null;
}

interface LeaseHistory {
  leaderSpans: OpenSpan[];
  holderSpans: OpenSpan[];
  marks: LeaseMark[];
}


interface HolderNote {
  state: string | undefined;
  lease: string;
  token: number | null;
}

/** What an event line and a diagram mark hold of their own, roughly (for the time-travel memory budget). */
const LINE_BYTES = 240;
const MARK_BYTES = 150;
/** A key in the seen set, and a message on the wire. */
const SEEN_BYTES = 70;
const SENT_BYTES = 90;
/** Keys in the seen set's open generation; full generations are frozen and shared by saved copies. */
const SEEN_GENERATION = 256;

/**
 * The lease events seen, in generations: the newest one open, older ones frozen (saved
 * copies share them). Cleared whole when it reaches MAX_SEEN keys, as a plain set would be.
 */
interface SeenState {
  readonly frozen: readonly FrozenSeen[];
  readonly open: ReadonlySet<string>;
  readonly size: number;
}

interface FrozenSeen extends SharedPart {
  readonly keys: ReadonlySet<string>;
}

class Seen {
  private frozen: FrozenSeen[] = [];
  private open = new Set<string>();
  size = 0;

  has(key: string): boolean {
    if (this.open.has(key)) return true;
    for (const f of this.frozen) if (f.keys.has(key)) return true;
    return false;
  }

  add(key: string): void {
    if (this.size >= MAX_SEEN) {
      this.frozen = [];
      this.open = new Set();
      this.size = 0;
    }
    this.open.add(key);
    this.size++;
    if (this.open.size >= SEEN_GENERATION) {
      this.frozen.push({ keys: this.open, bytes: this.open.size * SEEN_BYTES });
      this.open = new Set();
    }
  }

  save(): SeenState {
    return { frozen: this.frozen.slice(), open: new Set(this.open), size: this.size };
  }

  load(s: SeenState): void {
    this.frozen = s.frozen.slice();
    this.open = new Set(s.open);
    this.size = s.size;
  }
}

/** Everything a journal holds but its pending output (saved in time-travel snapshots as SavedJournal). */
interface JournalState {
  readonly drops: DropView[];
  /** Messages on the wire, by id: their send events (the send time and the message label them). */
  readonly sent: SentIndex;
  readonly leases: Map<string, LeaseHistory>;
  /** Per holder: its last reported state (undefined after a crash), the lease it wants, the token it believes it holds. */
  readonly holders: Map<string, HolderNote>;
  readonly seen: Seen;
  /** Nodes that currently lead (from role events): only a leader's commits make a line. */
  readonly leaders: Set<string>;
  /** The retained history (what a jump in time shows at once): event lines, finished messages, state changes. */
  readonly log: ChunkedHistory<EventLine>;
  readonly messages: MessageHistory;
  readonly marks: ChunkedHistory<DiagramMark>;
  /** The key moments (moments.ts). */
  readonly moments: MomentTracker;
}

/** A journal's state as a time-travel snapshot keeps it: never changed afterwards; its histories' chunks are shared with other saved copies. */
interface SavedJournal {
  readonly drops: readonly DropView[];
  readonly sent: ReadonlyMap<number, Sent>;
  readonly leases: ReadonlyMap<string, LeaseHistory>;
  readonly holders: ReadonlyMap<string, HolderNote>;
  readonly seen: SeenState;
  readonly leaders: ReadonlySet<string>;
  readonly log: ChunkedHistoryState<EventLine, readonly EventLine[]>;
  readonly messages: MessageHistoryState;
  readonly marks: ChunkedHistoryState<DiagramMark, readonly DiagramMark[]>;
  readonly moments: ReturnType<MomentTracker["save"]>;
}

function emptyState(): JournalState {
  return {
    drops: [],
    sent: new SentIndex(),
    leases: new Map(),
    holders: new Map(),
    seen: new Seen(),
    leaders: new Set(),
    log: new ChunkedHistory(EVENT_LOG_LIMIT, plainPacker<EventLine>(), LINE_BYTES),
    messages: new MessageHistory(DIAGRAM_MESSAGE_LIMIT),
    marks: new ChunkedHistory(DIAGRAM_MARK_LIMIT, plainPacker<DiagramMark>(), MARK_BYTES),
    moments: new MomentTracker(),
  };
}

/** Appends to a bounded list, trimming in batches (the newest `limit` are always there). */
function keep<T>(list: T[], item: T, limit: number): void {
  list.push(item);
  if (list.length >= limit * 2) list.splice(0, list.length - limit);
}

export class Journal {
  private pending: EventLine[] = [];
  /** Messages ended since the last takeDiagram (the newest of them are the history's newest: it holds DIAGRAM_MESSAGE_LIMIT). */
  private pendingMessages = 0;
  private pendingMarks: DiagramMark[] = [];
  /** Everything but the pending output: what a time-travel snapshot saves. */
  private st: JournalState = emptyState();

  readonly listener = (e: TraceEvent): void => this.observe(e);

  /** Lines since the previous call. */
  takeLines(): EventLine[] {
    const out = this.pending;
    this.pending = [];
    return out;
  }

  /** Space-time diagram: messages that ended (in columns, as a view carries them) and state changes since the previous call. */
  takeDiagram(): { messages: MessageColumns; marks: DiagramMark[] } {
    const out = { messages: this.pendingMessages === 0 ? emptyColumns() : this.st.messages.newestColumns(this.pendingMessages), marks: this.pendingMarks };
    this.pendingMessages = 0;
    this.pendingMarks = [];
    return out;
  }

  /** Everything retained up to now (after a jump in time the page starts again from this). */
  retained(): { lines: EventLine[]; messages: MessageColumns; marks: DiagramMark[] } {
    this.clearPending();
    return {
      lines: this.st.log.newest(),
      messages: this.st.messages.newestColumns(),
      marks: this.st.marks.newest(),
    };
  }

  /** A copy of the journal's state (for a time-travel snapshot); it never changes afterwards. */
  save(): unknown {
    const s = this.st;
    const saved: SavedJournal = {
      drops: s.drops.slice(),
      sent: s.sent.toMap(),
      leases: cloneLeases(s.leases),
      holders: new Map([...s.holders].map(([k, v]) => [k, copyNote(v)])),
      seen: s.seen.save(),
      leaders: new Set(s.leaders),
      log: s.log.save(),
      messages: s.messages.save(),
      marks: s.marks.save(),
      moments: s.moments.save(),
    };
    return saved;
  }

  /** Puts the journal back to a saved state (which stays reusable). Pending output is discarded. */
  load(saved: unknown): void {
    this.clearPending();
    const s = saved as SavedJournal;
    const st = { ...emptyState(), sent: SentIndex.fromMap(s.sent) };
    for (const d of s.drops) st.drops.push(d);
    for (const [k, v] of cloneLeases(s.leases)) st.leases.set(k, v);
    for (const [k, v] of s.holders) st.holders.set(k, copyNote(v));
    st.seen.load(s.seen);
    for (const p of s.leaders) st.leaders.add(p);
    st.log.load(s.log);
    st.messages.load(s.messages);
    st.marks.load(s.marks);
    st.moments.load(s.moments);
    this.st = st;
  }

  /**
   * What a saved copy holds (for the time-travel memory budget): its own part, roughly, and
   * the parts it shares with other saved copies (history chunks, frozen seen keys), which
   * the budget counts once however many copies hold them.
   */
  savedBytes(saved: unknown): { own: number; shared: SharedPart[] } {
    const s = saved as SavedJournal;
    // The moments' and the drops' lists are copied, their items shared with the live journal and the other copies: 8 bytes each.
    let own = s.moments.recent.length * 8 + s.seen.open.size * SEEN_BYTES + s.sent.size * SENT_BYTES + s.drops.length * 8 + s.holders.size * 200;
    for (const h of s.leases.values()) own += (h.leaderSpans.length + h.holderSpans.length) * 120 + h.marks.length * 8;
    const shared: SharedPart[] = [...s.seen.frozen];
    for (const r of [this.st.log.savedBytes(s.log), this.st.messages.savedBytes(s.messages), this.st.marks.savedBytes(s.marks)]) {
      own += r.own;
      shared.push(...r.shared);
    }
    return { own, shared };
  }

  private clearPending(): void {
    this.pending = [];
    this.pendingMessages = 0;
    this.pendingMarks = [];
  }

  /** Drops still worth drawing at `now` (the page fades them out). */
  recentDrops(now: number, windowUs: number): DropView[] {
    return this.st.drops.filter((d) => now - d.droppedAt <= windowUs);
  }

  history(name: string, now: number): { leaderSpans: LeaseSpan[]; holderSpans: LeaseSpan[]; marks: LeaseMark[] } {
    const h = this.st.leases.get(name);
    if (h === undefined) return { leaderSpans: [], holderSpans: [], marks: [] };
    const since = now - LEASE_HISTORY_US;
    const keep = (s: OpenSpan): boolean => s.to === null || s.to >= since;
    return {
      leaderSpans: h.leaderSpans.filter(keep).map(copySpan),
      holderSpans: h.holderSpans.filter(keep).map(copySpan),
      marks: h.marks.filter((m) => m.t >= since),
    };
  }

  /** The key moments up to now (moments.ts). */
  get moments(): MomentTracker {
    return this.st.moments;
  }

  private observe(e: TraceEvent): void {
    // The most frequent kinds first: sends and deliveries (three events in four), then the log's
    // appends, commits and applies. None of them makes a moment (moments.ts), nor a line but a
    // truncation or a leader's commit.
    switch (e.kind) {
      case "send":
        this.st.sent.set(e);
        return;
      case "deliver": {
        const s = this.st.sent.take(e.id);
        this.message(e.id, e.from, e.to, s?.t ?? e.t, e.t, labelOf(s), null);
        return;
      }
      case "apply":
      case "hard":
        return;
      case "log":
        if (e.truncatedFrom !== null) this.line(e);
        return;
      case "commit":
        // Followers learn the same commit index a moment later: one line from the leader is enough.
        if (this.st.leaders.has(e.proc)) this.line(e);
        return;
    }
    this.st.moments.observe(e);
    switch (e.kind) {
      case "drop": {
        const s = this.st.sent.take(e.id);
        const sentAt = s?.t ?? e.t;
        const label = labelOf(s);
        this.message(e.id, e.from, e.to, sentAt, e.t, label, dropWords(e.reason));
        this.st.drops.push({ id: e.id, from: e.from, to: e.to, sentAt, droppedAt: e.t, label, reason: e.reason });
        if (this.st.drops.length > MAX_DROPS) this.st.drops.splice(0, this.st.drops.length - MAX_DROPS);
        this.line(e, undefined, s === undefined ? undefined : label);
        return;
      }
      case "lease":
        if (!this.firstTime(e)) return;
        this.onLease(e);
        this.line(e);
        return;
      case "holder":
        this.onHolder(e);
        return;
      case "role":
        if (e.role === "leader") this.st.leaders.add(e.proc);
        else this.st.leaders.delete(e.proc);
        this.line(e);
        return;
      case "crash": {
        this.st.leaders.delete(e.proc);
        const h = this.st.holders.get(e.proc);
        if (h !== undefined) {
          this.closeHolderSpan(e.proc, h, e.t, "crash");
          h.state = undefined;
        }
        this.line(e);
        return;
      }
      default:
        this.line(e);
    }
  }

  private line(e: TraceEvent, prevHolderState?: string, label?: string): void {
    this.diagramMark(e, prevHolderState);
    const d = describeEvent(e, prevHolderState, label === undefined ? noLabel : () => label);
    if (d === null) return;
    // Written out, not spread: an object spread here cost a microsecond a line.
    const line: EventLine =
      d.detail === undefined
        ? { n: e.n, t: e.t, category: d.category, text: d.text, procs: d.procs }
        : { n: e.n, t: e.t, category: d.category, text: d.text, detail: d.detail, procs: d.procs };
    this.pending.push(line);
    if (this.pending.length > MAX_PENDING_LINES) this.pending.splice(0, this.pending.length - MAX_PENDING_LINES);
    this.st.log.push(line);
  }

  /** A message that ended: delivered (reason null), or dropped with the reason in words. */
  private message(id: number, from: string, to: string, sentAt: number, endAt: number, label: string, reason: string | null): void {
    this.st.messages.push(id, from, to, sentAt, endAt, label, reason);
    if (this.pendingMessages < DIAGRAM_MESSAGE_LIMIT) this.pendingMessages++;
  }

  /** The space-time diagram's mark for an event, if it makes one. */
  private diagramMark(e: TraceEvent, prevHolderState: string | undefined): void {
    const m = diagramMarkOf(e, prevHolderState);
    if (m === null) return;
    this.st.marks.push(m);
    keep(this.pendingMarks, m, DIAGRAM_MARK_LIMIT);
  }

  /** Applied lease events come once per node: only the first copy of each counts. Leader-only ones always count. */
  private firstTime(e: Extract<TraceEvent, { kind: "lease" }>): boolean {
    switch (e.op) {
      case "grant":
      case "deny":
      case "revoke":
      case "expire":
      case "expire-skipped":
      case "free":
      case "checkpoint": {
        const key = `${e.op}:${e.name}:${e.index ?? e.token}`;
        if (this.st.seen.has(key)) return false;
        this.st.seen.add(key);
        return true;
      }
      default:
        return true;
    }
  }

  private lease(name: string): LeaseHistory {
    let h = this.st.leases.get(name);
    if (h === undefined) {
      h = { leaderSpans: [], holderSpans: [], marks: [] };
      this.st.leases.set(name, h);
    }
    return h;
  }

  private mark(name: string, m: LeaseMark): void {
    const h = this.lease(name);
    h.marks.push(m);
    if (h.marks.length > MAX_MARKS) h.marks.splice(0, h.marks.length - MAX_MARKS);
  }

  private onLease(e: Extract<TraceEvent, { kind: "lease" }>): void {
    const h = this.lease(e.name);
    switch (e.op) {
      case "grant": {
        // A grant supersedes whatever the committed state had before (it cannot overlap).
        for (const s of h.leaderSpans) if (s.to === null) close(s, e.t, "superseded");
        h.leaderSpans.push({ holder: e.holder ?? "?", token: e.token, from: e.t, to: null, end: null });
        if (h.leaderSpans.length > MAX_SPANS) h.leaderSpans.splice(0, h.leaderSpans.length - MAX_SPANS);
        this.mark(e.name, { t: e.t, kind: "grant", holder: e.holder, token: e.token });
        return;
      }
      case "expire":
      case "revoke":
        for (const s of h.leaderSpans) if (s.to === null && s.token === e.token) close(s, e.t, e.op);
        this.mark(e.name, { t: e.t, kind: e.op, holder: e.holder, token: e.token });
        return;
      case "deny":
      case "refresh":
      case "refresh-denied":
      case "expiring":
      case "extended":
        this.mark(e.name, { t: e.t, kind: e.op, holder: e.holder, token: e.token });
        return;
      default:
        return;
    }
  }

  private onHolder(e: Extract<TraceEvent, { kind: "holder" }>): void {
    const id = e.proc;
    let me = this.st.holders.get(id);
    if (me === undefined) {
      me = { state: undefined, lease: e.leaseName, token: null };
      this.st.holders.set(id, me);
    }
    const prev = me.state;
    me.state = e.state;
    me.lease = e.leaseName;
    const top = topOfState(e.state);
    const prevTop = prev === undefined ? undefined : topOfState(prev);
    const had = me.token;
    if (e.token !== had) {
      if (had !== null) this.closeHolderSpan(id, me, e.t, top === "released" || top === "releasing" ? "released" : top);
      if (e.token !== null) {
        const h = this.lease(e.leaseName);
        h.holderSpans.push({ holder: id, token: e.token, from: e.t, to: null, end: null });
        if (h.holderSpans.length > MAX_SPANS) h.holderSpans.splice(0, h.holderSpans.length - MAX_SPANS);
      }
      me.token = e.token;
    }
    if (top !== prevTop && (top === "jeopardy" || top === "grace" || top === "lost")) {
      this.mark(e.leaseName, { t: e.t, kind: top, holder: id, token: e.token ?? had ?? 0 });
    }
    // Renewed within grace: the holder was in its grace period and a refresh came back in time.
    if (prevTop === "grace" && top === "holding") this.mark(e.leaseName, { t: e.t, kind: "grace-renewed", holder: id, token: e.token ?? had ?? 0 });
    // Retrying inside "requesting" (send, denied, send again) is noise: the deny line says it.
    if (prev !== e.state && !(top === "requesting" && prevTop === "requesting")) this.line(e, prev);
  }

  private closeHolderSpan(id: string, me: { lease: string; token: number | null }, t: number, end: string): void {
    for (const s of this.lease(me.lease).holderSpans) if (s.to === null && s.holder === id) close(s, t, end);
    me.token = null;
  }
}

/** No label known (most lines): one function for all of them rather than a closure per line. */
const noLabel = (): undefined => undefined;

/** A message's label from its send event ("message" when the journal did not see it sent). */
function labelOf(s: Sent | undefined): string {
  return s === undefined ? "message" : messageLabel(s.msg);
}

function close(s: OpenSpan, t: number, end: string): void {
  s.to = t;
  s.end = end;
}

/** A span's copy, written out (an object spread costs about a microsecond; every snapshot copies up to 80 spans a lease). */
function copySpan(s: OpenSpan): OpenSpan {
  return { holder: s.holder, token: s.token, from: s.from, to: s.to, end: s.end };
}

/** A holder note's copy, written out (see copySpan). */
function copyNote(n: HolderNote): HolderNote {
  return { state: n.state, lease: n.lease, token: n.token };
}

function cloneLeases(m: ReadonlyMap<string, LeaseHistory>): Map<string, LeaseHistory> {
  const out = new Map<string, LeaseHistory>();
  for (const [k, h] of m) {
    out.set(k, {
      leaderSpans: h.leaderSpans.map(copySpan),
      holderSpans: h.holderSpans.map(copySpan),
      marks: h.marks.slice(),
    });
  }
  return out;
}

/** The kinds diagramMarkOf may make a mark for (the cases of its switch). */
const MARKED_KINDS: ReadonlySet<TraceEvent["kind"]> = new Set<TraceEvent["kind"]>([
  "role",
  "crash",
  "restart",
  "pause",
  "resume",
  "clock",
  "timeout",
  "transfer",
  "holder",
  "storage",
  "violation",
]);

/** A state change worth a mark on its process's line in the space-time diagram. */
export function diagramMarkOf(e: TraceEvent, prevHolderState: string | undefined): DiagramMark | null {
  // Most events make no mark: their kinds are turned away before anything is made.
  if (!MARKED_KINDS.has(e.kind)) return null;
  switch (e.kind) {
    case "role":
      return { t: e.t, n: e.n, proc: e.proc, kind: "role", label: e.role === "leader" ? `leader T${e.term}` : `${e.role} T${e.term}`, bad: false };
    case "crash":
      return { t: e.t, n: e.n, proc: e.proc, kind: "crash", label: "crashed", bad: true };
    case "restart":
      return { t: e.t, n: e.n, proc: e.proc, kind: "restart", label: "restarted", bad: false };
    case "pause":
      return { t: e.t, n: e.n, proc: e.proc, kind: "pause", label: `paused ${Math.round((e.untilUs - e.t) / 1000)} ms`, bad: false };
    case "resume":
      return { t: e.t, n: e.n, proc: e.proc, kind: "resume", label: "resumed", bad: false };
    case "clock":
      return {
        t: e.t,
        n: e.n,
        proc: e.proc,
        kind: "clock",
        label: e.jumpUs !== 0 ? `clock jumps ${Math.round(e.jumpUs / 1000)} ms` : `clock ${driftWords(e.driftPpm)}`,
        bad: false,
      };
    case "timeout":
      return { t: e.t, n: e.n, proc: e.proc, kind: "timeout", label: "timeout forced", bad: false };
    case "transfer":
      return {
        t: e.t,
        n: e.n,
        proc: e.proc,
        kind: "transfer",
        label: e.phase === "aborted" ? `handover to ${e.to} given up` : e.phase === "started" ? `hands over to ${e.to}` : `TimeoutNow to ${e.to}`,
        bad: e.phase === "aborted",
      };
    case "holder": {
      const top = topOfState(e.state);
      if (prevHolderState !== undefined && topOfState(prevHolderState) === top) return null;
      const bad = top === "lost" || top === "jeopardy" || top === "grace";
      return { t: e.t, n: e.n, proc: e.proc, kind: "holder", label: e.token !== null && top === "holding" ? `holding (token ${e.token})` : top, bad };
    }
    case "storage":
      return {
        t: e.t,
        n: e.n,
        proc: e.proc,
        kind: "storage",
        label: e.accepted ? `accepted ${e.holder} token ${e.token}` : `rejected ${e.holder} token ${e.token}`,
        bad: !e.accepted,
      };
    case "violation":
      return { t: e.t, n: e.n, proc: e.nodes[0] ?? "n1", kind: "violation", label: `${e.invariant} violated`, bad: true };
    default:
      return null;
  }
}
