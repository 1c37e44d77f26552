import { useQuery } from "@tanstack/react-query";
import { useParams } from "wouter";
import { InfoTable } from "../../components/InfoTable.tsx";
import { LoadState } from "../../components/LoadState.tsx";
import { formatDateTime } from "../../lib/format.ts";
import { treatmentQuery } from "./api.ts";
import { PhaseGrid } from "./PhaseGrid.tsx";
import { TreatmentImages } from "./TreatmentImages.tsx";

/** /treatments/:treatmentId: info table, phase grid and images; nothing until loaded. */
export default function TreatmentScreen() {
  const { treatmentId = "" } = useParams<{ treatmentId: string }>();
  // A failed first load (e.g. an unknown id) is a route error; a failed background refetch keeps what is shown.
  const query = useQuery({ ...treatmentQuery(treatmentId), throwOnError: (_err, q) => q.state.data === undefined });
  const t = query.data;
  if (!t) return <LoadState fetching={query.isFetching} error={query.error} />;

  const info: [string, string][] = [
    ["Name", t.name],
    ["Category", t.category ?? "-"],
    ["Use", t.use ?? "-"],
    ["Created at", formatDateTime(t.createdAt)],
    ["Updated at", formatDateTime(t.updatedAt)],
  ];
  return (
    <section style={{ display: "flex", flexDirection: "column", gap: "1rem" }}>
      <h1 style={{ margin: 0 }}>Treatment: {t.name}</h1>
      <InfoTable rows={info} style={{ maxWidth: "40rem" }} />
      <TreatmentImages imageIds={t.images} treatmentName={t.name} />
      <PhaseGrid phases={t.phases} />
    </section>
  );
}
