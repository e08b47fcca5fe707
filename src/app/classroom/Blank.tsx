/**
 * Classroom mode's blank screen, apart from the board (ClassroomBoard.tsx, a chunk loaded
 * when classroom mode is first turned on). The classroom styles load with the first screen
 * from here, in their place in the first stylesheet.
 */
import { useUi } from "../ui";
import "./classroom.css";

/** The blanked screen: a black page until "." or any key (or a click) brings the lab back. */
export function Blank() {
  const blank = useUi((u) => u.blank);
  const toggle = useUi((u) => u.toggleBlank);
  if (!blank) return null;
  return (
    <button type="button" className="classroom-blank" data-testid="blank" onClick={toggle}>
      <span className="sr-only">The screen is blank. Press any key, or here, to come back.</span>
    </button>
  );
}
