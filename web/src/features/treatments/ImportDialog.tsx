import { UploadDialog } from "../../components/UploadDialog.tsx";
import { TREATMENT_IMPORT_EXTENSION } from "../../../../shared/schemas/treatment.ts";
import { useImportTreatments } from "./api.ts";

/** 'Import treatments': one .sqlite3 file, progress in percent, then the counts or the server's msg. */
export function ImportDialog({ visible, onHide }: { visible: boolean; onHide: () => void }) {
  const importTreatments = useImportTreatments();
  return (
    <UploadDialog
      visible={visible}
      header="Import treatments"
      selectLabel="Select .sqlite3 file"
      extension={TREATMENT_IMPORT_EXTENSION}
      warning="WARNING: Importing treatments will overwrite any existing treatment with the same name."
      actionLabel="Import"
      successText="Import successful"
      failureText="Import failed"
      processingText="Processing… the server is checking and importing the treatments."
      upload={async (file, onProgress, opts) => {
        const r = await importTreatments.mutateAsync({ file, onProgress, opts });
        return `${r.imported} treatment(s) imported: ${r.created} created, ${r.updated} updated.`;
      }}
      onHide={onHide}
    />
  );
}
