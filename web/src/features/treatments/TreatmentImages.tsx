import { useEffect, useState } from "react";
import { api } from "../../lib/api.ts";

type Loaded = { id: string; url: string } | { id: string; failed: true };

/**
 * GET treatment_images/{id} needs the bearer token, so each image is fetched as a blob and shown through an object
 * URL, revoked when the screen leaves. Not cached.
 */
export function TreatmentImages({ imageIds, treatmentName }: { imageIds: readonly string[]; treatmentName: string }) {
  const [images, setImages] = useState<Loaded[]>([]);
  const key = imageIds.join(",");

  useEffect(() => {
    let alive = true;
    const urls: string[] = [];
    setImages([]);
    Promise.all(
      imageIds.map(async (id): Promise<Loaded> => {
        try {
          const blob = await api.treatmentImage(id);
          if (!alive) return { id, failed: true }; // the screen left meanwhile: make no URL that would leak
          const url = URL.createObjectURL(blob);
          urls.push(url);
          return { id, url };
        } catch {
          return { id, failed: true };
        }
      }),
    ).then((loaded) => {
      if (alive) setImages(loaded);
    });
    return () => {
      alive = false;
      for (const u of urls) URL.revokeObjectURL(u);
    };
    // imageIds is compared through its joined key, so a refetch with the same images does not reload them.
  }, [key]);

  if (imageIds.length === 0) return null;
  return (
    <div role="group" style={{ display: "flex", gap: "0.75rem", flexWrap: "wrap" }} aria-label="Treatment images">
      {images.map((img, i) =>
        "url" in img
          ? (
            <img
              key={img.id}
              src={img.url}
              alt={`Image ${i + 1} of ${treatmentName}`}
              style={{ height: 120, borderRadius: 6, border: "1px solid var(--surface-border, #ddd)" }}
            />
          )
          : <span key={img.id} role="img" aria-label={`Image ${i + 1} could not be loaded`}>Image not available</span>
      )}
    </div>
  );
}
