import type {
  Rollout,
  RolloutAction,
  RolloutCreate,
  RolloutDeviceFilter,
  RolloutDevicePage,
  RolloutHistoryPoint,
  RolloutStage,
} from "../../../shared/schemas/rollout.ts";

/** Who acts (an operator's e-mail, or the system for automatic steps). */
export interface RolloutActor {
  email: string;
}

/** Staged rollouts (docs/REQUIREMENTS.md §13). `product` is the server's PRODUCT (promote sets its device type's default). */
export interface RolloutStore {
  /** Newest first. */
  list(): Promise<Rollout[]>;
  get(id: string): Promise<Rollout | null>;
  /** A draft; InvalidError for an unknown firmware or product type. */
  create(input: RolloutCreate, by: RolloutActor): Promise<Rollout>;
  /**
   * One action, checked and written in one transaction: NotFoundError, ConflictError for a transition the state does
   * not allow or a second running/paused rollout of the same scope. Start and advance settle at once (a stage that
   * holds no device, or whose devices have all reported already or already run its firmware, advances); resume and
   * retry never step the rollout (docs/REQUIREMENTS.md §13: nothing widens by surprise). Retry clears the failed devices' reports
   * (they count as pending again); ConflictError when there are none.
   */
  act(id: string, action: RolloutAction, by: RolloutActor, product: string): Promise<Rollout>;
  /** The current stage's devices ordered by deviceId (state: pending = no report yet); null for an unknown rollout. */
  devices(
    id: string,
    query: { state?: RolloutDeviceFilter; page: number; rowsPerPage: number },
  ): Promise<RolloutDevicePage | null>;
  /** The counts per minute in which something changed, oldest first; null for an unknown rollout. */
  history(id: string): Promise<RolloutHistoryPoint[] | null>;
  /** Each stage's devices and their reports (rules/rollouts.ts stagesOf); null for an unknown rollout. */
  stages(id: string): Promise<RolloutStage[] | null>;
  /** How many devices a rollout of this scope would target now (productTypeId null: all). */
  targets(productTypeId: string | null): Promise<number>;
}
