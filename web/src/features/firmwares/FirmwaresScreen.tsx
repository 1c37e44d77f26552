import { lazy, Suspense, useState } from "react";
import { AuditHistory } from "../audit/api.ts";
import { useQuery } from "@tanstack/react-query";
import { Button } from "primereact/button";
import type { Firmware } from "../../../../shared/schemas/firmware.ts";
import { FIRMWARE_EXTENSIONS } from "../../../../shared/schemas/firmware.ts";
import { CardGrid } from "../../components/CardGrid.tsx";
import { ConfirmDialog, type PendingConfirm, PendingConfirmDialog } from "../../components/ConfirmDialog.tsx";
import { LoadState } from "../../components/LoadState.tsx";
import { UploadDialog } from "../../components/UploadDialog.tsx";
import { isPreconditionFailed } from "../../../../shared/client.ts";
import { useNotify, useNotifyConflict, useNotifyError } from "../../lib/notify.ts";
import { useRole } from "../../lib/role.ts";
import { useSession } from "../../lib/session.ts";
import {
  deviceTypesQuery,
  firmwaresQuery,
  managedDeviceType,
  useDeleteFirmware,
  useSetDefaultFirmware,
  useUploadFirmware,
} from "./api.ts";
import { FirmwareCard } from "./FirmwareCard.tsx";
import { refusalLink } from "./refusal.ts";
import { useDeleteImpact } from "./deleteImpact.ts";
import { loadCreateRolloutDialog } from "../rollouts/api.ts";
import { DefaultReachText, DeleteImpactText } from "./ConfirmTexts.tsx";
import { ApproveDialog } from "./ApproveDialog.tsx";
import { approveOffer, isPending } from "./approval.ts";
import { SignatureFields } from "./SignatureFields.tsx";
import { NO_SIGNATURE, type SignatureChoice } from "./signatureFile.ts";
import { signatureText } from "./signatureText.ts";

// The new-rollout dialog ("Start a staged rollout instead") loads when asked for.
const CreateRolloutDialog = lazy(loadCreateRolloutDialog);

/** /device_firmwares: cards, upload dialog, set/unset default of the managed device type. */
export default function FirmwaresScreen() {
  const firmwares = useQuery(firmwaresQuery());
  const deviceTypes = useQuery(deviceTypesQuery());
  const upload = useUploadFirmware();
  const remove = useDeleteFirmware();
  const setDefault = useSetDefaultFirmware();
  const notify = useNotify();
  const notifyError = useNotifyError();
  const notifyConflict = useNotifyConflict();
  const [uploading, setUploading] = useState(false);
  const { canWrite, role } = useRole();
  const { identity } = useSession();
  const [signature, setSignature] = useState<SignatureChoice>(NO_SIGNATURE);
  const [approving, setApproving] = useState<Firmware | null>(null);
  const [confirm, setConfirm] = useState<PendingConfirm | null>(null);
  // The firmware whose delete is being confirmed, and the one a staged rollout is being created for.
  const [deleting, setDeleting] = useState<Firmware | null>(null);
  const [deleteOpen, setDeleteOpen] = useState(false);
  const impact = useDeleteImpact(deleting, deleteOpen);
  const [rolloutOf, setRolloutOf] = useState<string | null>(null);

  const managed = managedDeviceType(deviceTypes.data);
  const defaultId = managed?.defaultFirmware ?? null;
  const list = firmwares.data ?? [];
  const failed = firmwares.error ?? deviceTypes.error;
  const loaded = firmwares.data !== undefined && !failed;

  /** Sets (or with null unsets) the default on the version shown; if someone changed it meanwhile, says so. */
  const changeDefault = (defaultFirmware: string | null, done: string) => {
    if (!managed) return;
    const write = setDefault.mutateAsync({ body: { _id: managed._id, defaultFirmware }, ifMatch: managed.etag });
    return write.then(() => notify(done), async (err) => {
      if (!isPreconditionFailed(err)) return notifyError(err);
      await deviceTypes.refetch();
      notifyConflict(
        "The default firmware was changed by someone else. The current one is shown; apply your change again.",
      );
    }).finally(() => setConfirm(null));
  };

  const askSetDefault = (f: Firmware) =>
    managed && setConfirm({
      header: `Set default firmware to ${f.name}?`,
      message:
        "Are you sure you want to change the default firmware? After this change any device that will perform an update will get this firmware.",
      details: <DefaultReachText deviceTypeId={managed._id} firmware={f.name} />,
      acceptLabel: "Set as default firmware",
      cancelLabel: "Keep the current default",
      alternative: {
        label: "Start a staged rollout instead",
        icon: "pi pi-send",
        onClick: () => setRolloutOf(f._id),
      },
      onAccept: () => changeDefault(f._id, "Default firmware set"),
    });

  const askUnsetDefault = () =>
    managed && setConfirm({
      header: "Unset default firmware?",
      message:
        "Are you sure you want to unset the default firmware? After this change devices without a custom firmware will not get a firmware update.",
      destructive: true,
      acceptLabel: "Unset default firmware",
      cancelLabel: "Keep the default",
      onAccept: () => changeDefault(null, "Default firmware unset"),
    });

  return (
    <section style={{ display: "flex", flexDirection: "column", gap: "1rem" }}>
      <h1 style={{ margin: 0 }}>Device firmwares</h1>
      <LoadState
        fetching={firmwares.isFetching || deviceTypes.isFetching}
        error={failed}
        onRetry={() => {
          if (firmwares.isError) void firmwares.refetch();
          if (deviceTypes.isError) void deviceTypes.refetch();
        }}
      />
      {loaded && list.length === 0 && (
        <p>No firmware files present. Upload one by clicking on the 'Upload firmware' button below.</p>
      )}
      {loaded && list.length > 0 && (
        <CardGrid>
          {list.map((f) => (
            <FirmwareCard
              key={f._id}
              firmware={f}
              isDefault={f._id === defaultId}
              canSetDefault={managed !== undefined && canWrite}
              canDelete={canWrite}
              approve={approveOffer(f, role, identity)}
              onApprove={() => setApproving(f)}
              onDelete={() => {
                setDeleting(f);
                setDeleteOpen(true);
              }}
              onSetDefault={() => askSetDefault(f)}
            />
          ))}
        </CardGrid>
      )}
      <div style={{ display: "flex", gap: "0.75rem" }}>
        <Button
          label="Upload firmware"
          icon="pi pi-upload"
          disabled={!canWrite}
          onClick={() => setUploading(true)}
        />
        <Button
          label="Unset default firmware"
          icon="pi pi-times"
          outlined
          disabled={!defaultId || !managed || !canWrite}
          onClick={askUnsetDefault}
        />
      </div>
      <AuditHistory targetType="firmware" title="Firmware history" />

      <UploadDialog
        visible={uploading}
        header="Upload firmware"
        selectLabel="Select .xz or .swu file"
        extension={FIRMWARE_EXTENSIONS}
        actionLabel="Upload"
        successText="Upload successful"
        failureText="Upload failed"
        processingText="Processing… the server is checking and storing the file."
        fields={(busy) => <SignatureFields value={signature} onChange={setSignature} busy={busy} />}
        upload={async (file, onProgress, opts) => {
          const f = await upload.mutateAsync({ file, onProgress, opts, signature });
          const stored = `${f.name} (${f.size} bytes) stored. ${signatureText(f.signature)}.` +
            (isPending(f) ? " It awaits approval by a second operator or admin before it can be released." : "");
          if (!f.duplicateOf) return stored;
          // Stored all the same; the list shown before the upload names the firmware that already holds these bytes.
          const original = list.find((x) => x._id === f.duplicateOf)?.name ?? "another firmware";
          return (
            <>
              {stored}
              <span className="duplicate-notice" style={{ display: "block", marginTop: "0.25rem" }}>
                The same file is already uploaded as {original}.
              </span>
            </>
          );
        }}
        onHide={() => {
          setUploading(false);
          setSignature(NO_SIGNATURE);
        }}
      />
      <ApproveDialog firmware={approving} onHide={() => setApproving(null)} />
      {deleting && (
        <ConfirmDialog
          visible={deleteOpen}
          header={`Delete firmware ${deleting.name}?`}
          message="Are you sure you want to delete this firmware?"
          details={<DeleteImpactText impact={impact} />}
          destructive
          acceptLabel="Delete firmware"
          cancelLabel="Keep firmware"
          acceptDisabled={impact.loading || impact.refused}
          busy={remove.isPending}
          onHide={() => setDeleteOpen(false)}
          onAccept={() =>
            remove.mutateAsync(deleting._id).then(
              () => notify("Firmware deleted"),
              (err) => notifyError(err, refusalLink(err, deleting._id)),
            ).finally(() => setDeleteOpen(false))}
        />
      )}
      {rolloutOf && (
        <Suspense fallback={null}>
          <CreateRolloutDialog firmwareId={rolloutOf} onHide={() => setRolloutOf(null)} />
        </Suspense>
      )}
      <PendingConfirmDialog
        pending={confirm}
        busy={remove.isPending || setDefault.isPending}
        onHide={() => setConfirm(null)}
      />
    </section>
  );
}
