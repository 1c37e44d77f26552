import { useQuery } from "@tanstack/react-query";
import { Link } from "wouter";
import { LoadError } from "../../components/LoadState.tsx";
import { productTypesQuery } from "../product_types/api.ts";
import { treatmentSummariesQuery } from "../treatments/api.ts";
import { devicesQuery } from "../devices/api.ts";

function Card({ href, icon, label, value }: { href: string; icon: string; label: string; value: number | undefined }) {
  const shown = value === undefined ? "-" : String(value);
  return (
    // Named by what it shows ("Devices 30"): the label first, the number after it.
    <Link href={href} className="overview-card">
      <i className={icon} aria-hidden="true" />
      <div className="overview-card-text">
        <div className="label">{label}</div> <div className="value">{shown}</div>
      </div>
    </Link>
  );
}

/** Overview: three cards with counts ('-' until loaded), each leading to its list. */
export default function OverviewScreen() {
  const devices = useQuery(devicesQuery({ page: 0, rowsPerPage: 1, q: "" }));
  const treatments = useQuery(treatmentSummariesQuery());
  const productTypes = useQuery(productTypesQuery());
  const queries = [devices, treatments, productTypes];
  const failed = queries.find((q) => q.isError)?.error;
  return (
    <section>
      <div className="page-header">
        <h1>Overview</h1>
      </div>
      {failed && (
        <LoadError
          error={failed}
          retrying={queries.some((q) => q.isFetching)}
          onRetry={() => queries.filter((q) => q.isError).forEach((q) => void q.refetch())}
        />
      )}
      <div className="overview-cards">
        <Card href="/devices" icon="pi pi-tablet" label="Devices" value={devices.data?.total} />
        <Card href="/treatments" icon="pi pi-heart" label="Treatments" value={treatments.data?.length} />
        <Card href="/product_types" icon="pi pi-box" label="Product types" value={productTypes.data?.length} />
      </div>
    </section>
  );
}
