import type { Phase } from "../../shared/schemas/treatment.ts";
import type { BodyArea } from "./catalogue.ts";
import { Raster, type Rgb } from "./raster.ts";
import { maxChannels } from "../../shared/schemas/treatment.ts";

const TEAL: Rgb = [7, 134, 134];
const CHANNEL_COLORS: Rgb[] = [[7, 134, 134], [230, 126, 34], [142, 68, 173], [41, 128, 185]];
const GRID: Rgb = [222, 230, 230];
const SKIN: Rgb = [236, 214, 196];
const PAD: Rgb = [40, 40, 48];

/**
 * The stimulation envelope of each channel over the program: one band per channel, each phase as
 * width ∝ duration, its rise/hold/fall trapezoid repeated and scaled by the current.
 */
export function envelopeChart(phases: Phase[], width = 240, height = 140): Uint8Array {
  const img = new Raster(width, height, [250, 253, 253]);
  const total = phases.reduce((s, p) => s + p.duration, 0) || 1;
  const channels = Math.max(1, maxChannels(phases));
  const maxCurrent = Math.max(1, ...phases.flatMap((p) => p.channels.map((c) => c.current)));
  const band = (height - 8) / channels;
  for (let ch = 0; ch < channels; ch++) {
    const top = 4 + ch * band, base = top + band - 4;
    img.line(4, base, width - 4, base, GRID);
    let x = 4;
    for (const phase of phases) {
      const w = ((width - 8) * phase.duration) / total;
      img.line(x, top, x, base, GRID);
      const c = phase.channels[ch];
      if (c) {
        const peak = base - ((band - 10) * c.current) / maxCurrent;
        const cycle = c.riseTime + c.holdTime + c.fallTime || 1;
        const cycles = Math.max(1, Math.min(8, Math.round((phase.duration * 1000) / cycle / 20)));
        const cw = w / cycles;
        for (let k = 0; k < cycles; k++) {
          const x0 = x + k * cw;
          const x1 = x0 + (cw * 0.8 * c.riseTime) / cycle;
          const x2 = x1 + (cw * 0.8 * c.holdTime) / cycle;
          const x3 = x2 + (cw * 0.8 * c.fallTime) / cycle;
          const color = CHANNEL_COLORS[ch % CHANNEL_COLORS.length];
          img.line(x0, base, x1, peak, color, 2);
          img.line(x1, peak, x2, peak, color, 2);
          img.line(x2, peak, x3, base, color, 2);
        }
      }
      x += w;
    }
  }
  return img.toPng();
}

/** Where the pads go on the front/back silhouette (fractions of the figure's 100x200 box). */
const PADS: Record<BodyArea, [number, number][]> = {
  neck: [[42, 42], [58, 42]],
  shoulder: [[28, 52], [72, 52]],
  upper_back: [[40, 62], [60, 62]],
  lower_back: [[40, 92], [60, 92]],
  abdomen: [[40, 84], [60, 84]],
  pelvis: [[42, 104], [58, 104]],
  arm: [[18, 76], [20, 92]],
  hand: [[12, 116], [14, 124]],
  thigh: [[38, 128], [38, 144]],
  knee: [[38, 152], [38, 164]],
  calf: [[38, 172], [38, 184]],
  foot: [[37, 194], [40, 197]],
};

/** A simple figure with electrode pads on the treated area. */
export function electrodePlacement(area: BodyArea, channels: number, width = 120, height = 200): Uint8Array {
  const img = new Raster(width, height, [245, 250, 250]);
  const sx = width / 100, sy = height / 200;
  const fig = (x: number, y: number, w: number, h: number) => img.fillRect(x * sx, y * sy, w * sx, h * sy, SKIN);
  img.fillEllipse(50 * sx, 22 * sy, 12 * sx, 14 * sy, SKIN); // head
  fig(45, 34, 10, 10); // neck
  fig(30, 44, 40, 62); // torso
  fig(16, 46, 12, 66); // arms
  fig(72, 46, 12, 66);
  fig(12, 110, 10, 16); // hands
  fig(78, 110, 10, 16);
  fig(32, 104, 16, 92); // legs
  fig(52, 104, 16, 92);
  img.fillRect(0, height - 3, width, 3, TEAL);
  const pads = PADS[area];
  for (let ch = 0; ch < Math.max(1, channels); ch++) {
    const mirror = ch % 2 === 1 && area !== "neck" && area !== "shoulder" && area !== "upper_back" &&
      area !== "lower_back" && area !== "abdomen" && area !== "pelvis";
    const offset = Math.floor(ch / (mirror ? 2 : 1)) * 6;
    for (const [x, y] of pads) {
      const px = mirror ? 100 - x : x;
      img.fillRect((px - 4) * sx, (y - 3 + offset) * sy, 8 * sx, 6 * sy, PAD);
      img.fillRect((px - 1) * sx, (y - 1 + offset) * sy, 2 * sx, 2 * sy, CHANNEL_COLORS[ch % CHANNEL_COLORS.length]);
    }
  }
  return img.toPng();
}
