/** Placeholder: the space-time (Lamport) diagram (being built). */
export function SpaceTime() {
  return null;
}
