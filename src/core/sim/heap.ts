/** A binary min-heap of events ordered by (at, seq). Items must not be mutated while queued. */
export interface Queued {
  readonly at: number;
  readonly seq: number;
}

export function before(a: Queued, b: Queued): boolean {
  return a.at < b.at || (a.at === b.at && a.seq < b.seq);
}

export class EventHeap<T extends Queued> {
  constructor(private items: T[] = []) {}

  get size(): number {
    return this.items.length;
  }

  peek(): T | undefined {
    return this.items[0];
  }

  /** A copy of the backing array (heap order), cheap: items are immutable. */
  snapshot(): T[] {
    return this.items.slice();
  }

  /** Every queued item, in no particular order. */
  all(): readonly T[] {
    return this.items;
  }

  push(item: T): void {
    const a = this.items;
    a.push(item);
    let i = a.length - 1;
    while (i > 0) {
      const p = (i - 1) >> 1;
      const parent = a[p] as T;
      if (!before(item, parent)) break;
      a[i] = parent;
      i = p;
    }
    a[i] = item;
  }

  pop(): T | undefined {
    const a = this.items;
    const top = a[0];
    const last = a.pop();
    if (a.length === 0 || last === undefined) return top;
    let i = 0;
    const n = a.length;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= n) break;
      const r = l + 1;
      const c = r < n && before(a[r] as T, a[l] as T) ? r : l;
      if (!before(a[c] as T, last)) break;
      a[i] = a[c] as T;
      i = c;
    }
    a[i] = last;
    return top;
  }

  /** Removes every item matching the predicate (O(n)); returns the removed ones. */
  removeWhere(pred: (item: T) => boolean): T[] {
    const removed = this.items.filter(pred);
    if (removed.length === 0) return removed;
    const kept = this.items.filter((x) => !pred(x));
    this.items = [];
    for (const k of kept) this.push(k);
    return removed;
  }
}
