import { useQuery } from "@tanstack/react-query";
import { lazy, Suspense } from "react";
import { Link } from "wouter";
import type { Overview } from "../../../../shared/schemas/mod.ts";
import { LoadError } from "../../components/LoadState.tsx";
import { productTypesQuery } from "../product_types/api.ts";
import { treatmentSummariesQuery } from "../treatments/api.ts";
import { admissionQuery, devicesHref, overviewQuery } from "../devices/api.ts";
import { type Slice, SLICE_COLORS } from "./slices.ts";

// chart.js (through PrimeReact's Chart) loads after the page is up: the initial JavaScript stays in budget.
const SliceChart = lazy(() => import("./SliceChart.tsx"));

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

/** One distribution: a chart (lazy) and the same slices as links to the filtered devices list. */
function Distribution({ title, type, slices }: { title: string; type: "doughnut" | "bar"; slices: Slice[] }) {
  const id = `chart-${title.toLowerCase().replaceAll(" ", "-")}`;
  return (
    <section className="overview-panel" aria-labelledby={id}>
      <h2 id={id}>{title}</h2>
      {slices.length > 0 && (
        <Suspense fallback={<div className="overview-chart" />}>
          <SliceChart title={title} type={type} slices={slices} />
        </Suspense>
      )}
      <ul className="slice-links">
        {slices.map((s, i) => (
          <li key={s.label}>
            <span
              className="slice-swatch"
              style={{ background: SLICE_COLORS[i % SLICE_COLORS.length] }}
              aria-hidden="true"
            />
            {s.href ? <Link href={s.href}>{s.label}: {s.devices}</Link> : `${s.label}: ${s.devices}`}
          </li>
        ))}
        {slices.length === 0 && <li>No devices yet.</li>}
      </ul>
    </section>
  );
}

function slicesOf(o: Overview) {
  return {
    firmwares: o.firmwares.map((f) => ({
      label: f.name ?? "No firmware",
      devices: f.devices,
      // No firmware in effect: no custom one and no default.
      href: devicesHref({ firmware: f._id ?? "default" }),
    })),
    apps: o.apps.map((a) => ({
      label: a.version ?? "Unknown",
      devices: a.devices,
      href: a.version === null ? null : devicesHref({ app: a.version }),
    })),
    productTypes: o.productTypes.map((t) => ({
      label: t.name ?? "No product type",
      devices: t.devices,
      href: devicesHref({ productTypeId: t._id ?? "none" }),
    })),
  };
}

/**
 * Overview: the three specified cards (device total, treatments, product types; '-' until loaded), then fleet health from
 * GET overview: check-ins within 24 h / 7 days / more than 7 days ago / never, devices waiting for admission (with
 * DEVICE_AUTH=token), and the distributions of firmware in effect, app version and
 * product type, each slice leading to the devices list filtered to it.
 */
export default function OverviewScreen() {
  const overview = useQuery(overviewQuery());
  const tokenMode = useQuery(admissionQuery()).data?.auth === "token";
  const treatments = useQuery(treatmentSummariesQuery());
  const productTypes = useQuery(productTypesQuery());
  const queries = [overview, treatments, productTypes];
  const failed = queries.find((q) => q.isError)?.error;
  const o = overview.data;
  const slices = o ? slicesOf(o) : null;
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
        <Card href="/devices" icon="pi pi-tablet" label="Devices" value={o?.devices.total} />
        <Card href="/treatments" icon="pi pi-heart" label="Treatments" value={treatments.data?.length} />
        <Card href="/product_types" icon="pi pi-box" label="Product types" value={productTypes.data?.length} />
      </div>
      <h2 className="overview-section-title">Fleet health</h2>
      <div className="overview-cards">
        <Card
          href={devicesHref({ seen: "24h" })}
          icon="pi pi-check-circle"
          label="Checked in within 24 hours"
          value={o?.devices.seen24h}
        />
        <Card
          href={devicesHref({ seen: "7d" })}
          icon="pi pi-clock"
          label="Checked in within 7 days"
          value={o?.devices.seen7d}
        />
        <Card
          href={devicesHref({ seen: "stale" })}
          icon="pi pi-exclamation-circle"
          label="Not seen for more than 7 days"
          value={o?.devices.stale}
        />
        <Card
          href={devicesHref({ seen: "never" })}
          icon="pi pi-question-circle"
          label="Never checked in"
          value={o?.devices.never}
        />
        {(tokenMode || (o?.devices.pending ?? 0) > 0) && (
          <Card
            href={devicesHref({ admission: "pending" })}
            icon="pi pi-user-plus"
            label="Waiting for admission"
            value={o?.devices.pending}
          />
        )}
      </div>
      {slices && (
        <div className="overview-health">
          <Distribution title="Firmware in effect" type="doughnut" slices={slices.firmwares} />
          <Distribution title="App versions" type="bar" slices={slices.apps} />
          <Distribution title="Product types" type="bar" slices={slices.productTypes} />
        </div>
      )}
    </section>
  );
}
