/** Placeholder: share link, scenario import / export, trace, history and picture exports (being built). */
export function ShareMenu() {
  return null;
}
