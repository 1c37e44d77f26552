import { Message } from "primereact/message";

/**
 * Shown at the top of a dialog whose change was refused because someone else changed the item meanwhile (412): the
 * current version has been loaded, the operator's values stay in the dialog, and applying again saves them on it.
 */
export function ConflictNotice({ item, current, action }: {
  /** "product type", "device". */
  item: string;
  /** The current version's relevant values, in words (e.g. its name now). */
  current?: string;
  /** The button that applies the change again, e.g. "Save". */
  action: string;
}) {
  return (
    <Message
      severity="warn"
      role="alert"
      className="conflict-notice w-full"
      text={`This ${item} was changed by someone else while you were editing, so nothing was saved.${
        current ? ` Now: ${current}.` : ""
      } Your change is kept here: ${action} applies it to the current version.`}
    />
  );
}
