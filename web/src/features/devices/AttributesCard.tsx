import { Card } from "primereact/card";
import type { Device } from "../../../../shared/schemas/mod.ts";
import { InfoTable } from "../../components/InfoTable.tsx";

/**
 * 'Attributes': what the device's update agent reported through hawkBit DDI's configData (docs/REQUIREMENTS.md §18),
 * read-only, names in order; absent for a device that never reported any.
 */
export function AttributesCard({ device }: { device: Device }) {
  const attributes = device.attributes;
  if (attributes === null) return null;
  const rows = Object.entries(attributes).sort(([a], [b]) => a.localeCompare(b)) as [string, string][];
  return (
    <Card title="Attributes" subTitle="Reported by the device's update agent">
      {rows.length ? <InfoTable rows={rows} /> : <p>None reported.</p>}
    </Card>
  );
}
