import { useQuery } from "@tanstack/react-query";
import { Button } from "primereact/button";
import { Checkbox } from "primereact/checkbox";
import { Dropdown } from "primereact/dropdown";
import { InputText } from "primereact/inputtext";
import { Message } from "primereact/message";
import { useState } from "react";
import { useLocation } from "wouter";
import { DEFAULT_FAILURE_THRESHOLD, DEFAULT_STAGES, Stages } from "../../../../shared/schemas/rollout.ts";
import { AppDialog } from "../../components/AppDialog.tsx";
import { dropdownA11y } from "../../components/dropdownA11y.ts";
import { errorMessage, useNotify } from "../../lib/notify.ts";
import { firmwareOption, firmwaresQuery } from "../firmwares/api.ts";
import { productTypesQuery } from "../product_types/api.ts";
import { rolloutTargetsQuery, useCreateRollout } from "./api.ts";

/** PrimeReact treats a null value as "nothing selected"; this stands for "every device". */
const ALL = "__all__";

/** "1, 10, 50, 100" -> the stages, or the reason they are not valid. */
export function parseStages(text: string): { stages: number[] } | { error: string } {
  const parts = text.split(/[,\s]+/).filter(Boolean);
  const numbers = parts.map(Number);
  if (!parts.length || numbers.some((n) => !Number.isFinite(n))) {
    return { error: "Stages are percentages separated by commas, e.g. 1, 10, 50, 100." };
  }
  const parsed = Stages.safeParse(numbers);
  if (!parsed.success) return { error: `Stages ${parsed.error.issues[0].message}.` };
  return { stages: parsed.data };
}

/** How many of `targeted` devices a cumulative stage reaches, about (the bucket of each device decides). */
export const aboutInStage = (targeted: number, pct: number) => Math.round(targeted * pct / 100);

/**
 * The create dialog: firmware, product type or all, stages, threshold, auto-advance, with a preview per stage.
 * `firmwareId` prefills the firmware (the firmware screen's "Start a staged rollout instead").
 */
export default function CreateRolloutDialog({ onHide, firmwareId: initialFirmware = null }: {
  onHide: () => void;
  firmwareId?: string | null;
}) {
  const firmwares = useQuery(firmwaresQuery());
  const productTypes = useQuery(productTypesQuery());
  const create = useCreateRollout();
  const notify = useNotify();
  const [, navigate] = useLocation();
  const [name, setName] = useState("");
  const [firmwareId, setFirmwareId] = useState<string | null>(initialFirmware);
  const [productTypeId, setProductTypeId] = useState<string>(ALL);
  const [stagesText, setStagesText] = useState(DEFAULT_STAGES.join(", "));
  const [threshold, setThreshold] = useState(String(DEFAULT_FAILURE_THRESHOLD));
  const [autoAdvance, setAutoAdvance] = useState(true);
  const [failure, setFailure] = useState<string | null>(null);
  const scope = productTypeId === ALL ? null : productTypeId;
  const targets = useQuery(rolloutTargetsQuery(scope));

  const stages = parseStages(stagesText);
  const thresholdValue = Number(threshold);
  const thresholdError = threshold.trim() === "" || !Number.isFinite(thresholdValue) || thresholdValue < 0 ||
      thresholdValue > 100
    ? "The failure threshold is a percentage from 0 to 100."
    : null;
  const firmware = firmwares.data?.find((f) => f._id === firmwareId);
  const valid = firmwareId !== null && "stages" in stages && !thresholdError;

  const submit = (start: boolean) => {
    if (!valid || !("stages" in stages)) return;
    setFailure(null);
    create.mutateAsync({
      body: {
        name: name.trim() || firmware!.name,
        firmwareId: firmwareId!,
        productTypeId: scope,
        stages: stages.stages,
        failureThreshold: thresholdValue,
        autoAdvance,
      },
      start,
    }).then((r) => {
      notify(start ? "Rollout started" : "Rollout created");
      onHide();
      navigate(`/rollouts/${r._id}`);
    }, (err) => setFailure(errorMessage(err)));
  };

  const typeOptions = [
    { label: "All devices", value: ALL },
    ...(productTypes.data ?? []).map((t) => ({ label: t.name, value: t._id })),
  ];
  return (
    <AppDialog
      visible
      header="New rollout"
      onHide={onHide}
      style={{ width: "36rem", maxWidth: "95vw" }}
      footer={
        <div>
          <Button label="Cancel" icon="pi pi-times" outlined onClick={onHide} />
          <Button
            label="Save as draft"
            icon="pi pi-save"
            outlined
            disabled={!valid || create.isPending}
            onClick={() => submit(false)}
          />
          <Button
            label="Create and start"
            icon="pi pi-play"
            disabled={!valid || create.isPending}
            loading={create.isPending}
            onClick={() => submit(true)}
          />
        </div>
      }
    >
      <div className="form-grid">
        <div className="field">
          <label htmlFor="rollout-firmware">Firmware</label>
          <Dropdown
            inputId="rollout-firmware"
            value={firmwareId}
            options={(firmwares.data ?? []).map(firmwareOption)}
            optionDisabled="disabled"
            onChange={(e) => setFirmwareId(e.value as string)}
            placeholder="Select a firmware"
            loading={firmwares.isPending}
            filter={(firmwares.data?.length ?? 0) > 10}
            pt={dropdownA11y("Firmware")}
            className="w-full"
          />
        </div>
        <div className="field">
          <label htmlFor="rollout-name">Name</label>
          <InputText
            id="rollout-name"
            value={name}
            placeholder={firmware?.name ?? "The firmware's name"}
            maxLength={200}
            onChange={(e) => setName(e.target.value)}
          />
        </div>
        <div className="field">
          <label htmlFor="rollout-product-type">Devices</label>
          <Dropdown
            inputId="rollout-product-type"
            value={productTypeId}
            options={typeOptions}
            onChange={(e) => setProductTypeId(e.value as string)}
            loading={productTypes.isPending}
            filter={typeOptions.length > 10}
            pt={dropdownA11y("Devices")}
            className="w-full"
          />
        </div>
        <div className="field">
          <label htmlFor="rollout-stages">Stages (cumulative %)</label>
          <InputText
            id="rollout-stages"
            value={stagesText}
            aria-describedby="rollout-stages-help"
            invalid={"error" in stages}
            onChange={(e) => setStagesText(e.target.value)}
          />
          <small id="rollout-stages-help">
            {"error" in stages ? stages.error : "Strictly increasing, ending at 100."}
          </small>
        </div>
        <div className="field">
          <label htmlFor="rollout-threshold">Failure threshold (%)</label>
          <InputText
            id="rollout-threshold"
            value={threshold}
            inputMode="decimal"
            aria-describedby="rollout-threshold-help"
            invalid={thresholdError !== null}
            onChange={(e) => setThreshold(e.target.value)}
          />
          <small id="rollout-threshold-help">
            {thresholdError ?? "A stage whose failed share goes over this pauses the rollout."}
          </small>
        </div>
        <div className="field" style={{ display: "flex", alignItems: "center", gap: "0.5rem" }}>
          <Checkbox
            inputId="rollout-auto-advance"
            checked={autoAdvance}
            onChange={(e) => setAutoAdvance(!!e.checked)}
          />
          <label htmlFor="rollout-auto-advance">Advance automatically when a stage has installed</label>
        </div>
      </div>
      <div className="rollout-preview" aria-live="polite">
        <h2 className="preview-title">Preview</h2>
        {targets.data === undefined ? <p className="m-0">Counting devices…</p> : (
          <>
            <p className="m-0">
              {targets.data.targeted} device{targets.data.targeted === 1 ? "" : "s"}{" "}
              targeted (devices with a custom firmware are left out).
            </p>
            {"stages" in stages && (
              <ul data-testid="stage-preview">
                {stages.stages.map((pct, i) => (
                  <li key={i}>
                    Stage {i + 1}: {pct} % ≈ {aboutInStage(targets.data.targeted, pct)} devices
                  </li>
                ))}
              </ul>
            )}
          </>
        )}
      </div>
      {failure && <Message severity="error" text={failure} role="alert" className="w-full mt-2" />}
    </AppDialog>
  );
}
