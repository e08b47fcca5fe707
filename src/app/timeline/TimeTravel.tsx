/** Placeholder: the time slider, markers, step back and the branch list (being built). */
export function TimeTravel() {
  return null;
}
