/**
 * A modal dialog over the page: the overlay, the dialog's role and names, Tab kept inside
 * (focusTrap.ts) and Escape to close. The dialogs put their own words and buttons inside.
 */
import type { ReactNode } from "react";
import { trapTab } from "./focusTrap";

export function Modal({
  className,
  role = "dialog",
  labelledBy,
  describedBy,
  onClose,
  keepKeys = false,
  children,
}: {
  readonly className?: string;
  /** "alertdialog" for a question that interrupts (Reset). */
  readonly role?: "dialog" | "alertdialog";
  readonly labelledBy: string;
  readonly describedBy?: string;
  readonly onClose: () => void;
  /** Keys pressed inside go no further (the page's shortcuts never see them). */
  readonly keepKeys?: boolean;
  readonly children: ReactNode;
}) {
  return (
    <div className="overlay" role="presentation">
      {/* biome-ignore lint/a11y/noStaticElementInteractions lint/a11y/useAriaPropsSupportedByRole: the role is "dialog" or "alertdialog" (a prop Biome cannot read) */}
      <div
        className={className === undefined ? "dialog" : `dialog ${className}`}
        role={role}
        aria-modal="true"
        aria-labelledby={labelledBy}
        aria-describedby={describedBy}
        onKeyDown={(e) => {
          if (keepKeys) e.stopPropagation();
          if (e.key === "Escape") onClose();
          else trapTab(e);
        }}
      >
        {children}
      </div>
    </div>
  );
}
