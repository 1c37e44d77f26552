import type { Preferences, PreferencesPatch, SavedView, SavedViewQuery } from "../../../shared/schemas/saved_view.ts";
import type { ViewActor } from "../rules/saved_views.ts";

export type { ViewActor } from "../rules/saved_views.ts";

/**
 * Saved views of the devices list and console preferences, per operator (docs/DECISIONS.md, "Saved views"). Views go
 * with their owner's row; only an admin's deletion of another operator's shared view is audited.
 */
export interface SavedViewStore {
  /** The operator's own views and those others shared, by name ignoring case (then owner). */
  list(operatorId: string): Promise<SavedView[]>;
  /**
   * Saves a view in one transaction: ConflictError when the operator already has a view of that name (ignoring case)
   * or keeps MAX_SAVED_VIEWS; NotFoundError for an unknown operator.
   */
  create(operatorId: string, input: { name: string; query: SavedViewQuery; shared: boolean }): Promise<SavedView>;
  /**
   * Changes the members given, owner only: NotFoundError when unknown or another's private view, ForbiddenError for
   * another's shared view, ConflictError for a name the owner already uses.
   */
  update(
    id: string,
    by: ViewActor,
    patch: { name?: string; query?: SavedViewQuery; shared?: boolean },
  ): Promise<SavedView>;
  /**
   * Deletes a view (its owner; an admin also another's shared view, with an audit entry): NotFoundError when unknown
   * or another's private view; ForbiddenError otherwise. Answers the view as it was.
   */
  remove(id: string, by: ViewActor): Promise<SavedView>;
  /** The operator's preferences (defaults when none were saved). */
  preferences(operatorId: string): Promise<Preferences>;
  /** Changes the members given (null resets one); NotFoundError for an unknown operator. */
  setPreferences(operatorId: string, patch: PreferencesPatch): Promise<Preferences>;
}
