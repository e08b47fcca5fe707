/** The ring legend's entry for leases for reads (readsWords.ts), shown only while some node holds one. */
import { type LabState, useLab } from "../store";

const selectAnyReads = (s: LabState): boolean => s.view?.nodes.some((n) => n.reads !== undefined) ?? false;

export function ReadsLegend() {
  const any = useLab(selectAnyReads);
  if (!any) return null;
  return (
    <li>
      <svg className="rl-sym" viewBox="-12 -2 24 20" aria-hidden="true">
        <path d="M0,3 L-9,0 L-9,13 L0,16 Z M0,3 L9,0 L9,13 L0,16 Z" fill="#fff" stroke="#0072b2" strokeWidth="2" strokeLinejoin="round" />
      </svg>
      book and blue arc: a lease for reads (the arc runs down as it ends); a dashed ring: a follower answering a read itself
    </li>
  );
}
