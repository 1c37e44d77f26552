/**
 * The phases of every treatment of an import as JSON (the exact text JSON.stringify gives for its Phase[]), written into
 * one growing buffer while the channel rows stream by: no object per channel, no string per treatment, and the buffer
 * is handed to the main thread without a copy.
 */

const MAX_BYTES = 2 ** 32;
const encoder = new TextEncoder();

/** UTF-8 bytes appended to a resizable buffer: it grows in place, and only the pages written take memory. */
export class ByteWriter {
  #buffer = new ArrayBuffer(1 << 16, { maxByteLength: MAX_BYTES });
  #bytes = new Uint8Array(this.#buffer); // tracks the buffer's length
  length = 0;

  #room(n: number): void {
    const need = this.length + n;
    if (need <= this.#buffer.byteLength) return;
    if (need > MAX_BYTES) throw new Error(`The phases of the import take more than ${MAX_BYTES} bytes.`);
    this.#buffer.resize(Math.min(MAX_BYTES, Math.max(need, this.#buffer.byteLength * 2)));
  }

  text(s: string): void {
    this.#room(s.length * 3);
    const bytes = this.#bytes;
    let at = this.length;
    for (let i = 0; i < s.length; i++) {
      const c = s.charCodeAt(i);
      if (c < 0x80) {
        bytes[at++] = c;
        continue;
      }
      at += encoder.encodeInto(s.slice(i), bytes.subarray(at)).written;
      break;
    }
    this.length = at;
  }

  /** Appends a copy of bytes [start, end) written before. */
  copy(start: number, end: number): void {
    this.#room(end - start);
    this.#bytes.copyWithin(this.length, start, end);
    this.length += end - start;
  }

  /** The bytes written, as a buffer of exactly that size (the writer is done). */
  finish(): ArrayBuffer {
    this.#buffer.resize(this.length);
    return this.#buffer;
  }
}

/** The phases of an import, read before the channels (phase k belongs to treatment `treatmentOf[k]`). */
export interface PhaseTable {
  /** Phase ids, by phase index. Indices follow (treatment, position), so one treatment's phases are consecutive. */
  ids: Float64Array;
  durations: Float64Array;
  treatmentOf: Int32Array;
  /** Per treatment: the index of its first phase and how many it has. */
  firstPhase: Int32Array;
  phaseCount: Int32Array;
}

/**
 * Channels arrive ordered by (phase id, position); every phase, with or without channels, is written in phase id
 * order as `{"duration":…,"channels":[…]}`. When a treatment's phases come one after the other in its own order (files
 * are normally written so), its JSON is the run "[phase,phase…]" as written; otherwise it is put together afterwards
 * from copies of its phases.
 */
export class PhasesJsonWriter {
  readonly #out = new ByteWriter();
  readonly #phases: PhaseTable;
  /** Phase indices in phase id order. */
  readonly #byId: Uint32Array;
  #next = 0;
  #open = -1;
  #openHasChannels = false;
  #last = -1;
  readonly #start: Float64Array;
  readonly #end: Float64Array;
  readonly #phaseStart: Float64Array;
  readonly #phaseEnd: Float64Array;
  readonly #scattered: Uint8Array;

  constructor(phases: PhaseTable) {
    this.#phases = phases;
    const n = phases.ids.length, treatments = phases.firstPhase.length;
    this.#byId = new Uint32Array(n);
    for (let k = 0; k < n; k++) this.#byId[k] = k;
    this.#byId.sort((a, b) => phases.ids[a] - phases.ids[b]);
    this.#start = new Float64Array(treatments);
    this.#end = new Float64Array(treatments);
    this.#phaseStart = new Float64Array(n);
    this.#phaseEnd = new Float64Array(n);
    this.#scattered = new Uint8Array(treatments);
    this.#out.text("[]"); // bytes [0, 2): the phases of a treatment that has none
  }

  /** Adds one channel (its JSON object) to phase k; phase ids never go back. */
  channel(k: number, json: string): void {
    if (k !== this.#open) {
      this.#closeOpen();
      while (this.#next < this.#byId.length && this.#byId[this.#next] !== k) {
        this.#write(this.#byId[this.#next++], false);
      }
      if (this.#next++ >= this.#byId.length) throw new Error(`Channels of phase ${k} came out of phase id order.`);
      this.#begin(k);
    }
    if (this.#openHasChannels) this.#out.text(",");
    this.#openHasChannels = true;
    this.#out.text(json);
  }

  /** Byte ranges of each treatment's phases JSON in one buffer. */
  finish(): { bytes: ArrayBuffer; starts: Float64Array; ends: Float64Array } {
    this.#closeOpen();
    while (this.#next < this.#byId.length) this.#write(this.#byId[this.#next++], false);
    const { firstPhase, phaseCount } = this.#phases;
    for (let t = 0; t < firstPhase.length; t++) {
      if (phaseCount[t] === 0) {
        this.#start[t] = 0, this.#end[t] = 2;
      } else if (this.#scattered[t]) {
        this.#start[t] = this.#out.length;
        this.#out.text("[");
        for (let k = firstPhase[t]; k < firstPhase[t] + phaseCount[t]; k++) {
          if (k > firstPhase[t]) this.#out.text(",");
          this.#out.copy(this.#phaseStart[k], this.#phaseEnd[k]);
        }
        this.#out.text("]");
        this.#end[t] = this.#out.length;
      }
    }
    return { bytes: this.#out.finish(), starts: this.#start, ends: this.#end };
  }

  #write(k: number, withChannels: boolean): void {
    this.#begin(k);
    this.#openHasChannels = withChannels;
    this.#closeOpen();
  }

  #begin(k: number): void {
    const { treatmentOf, firstPhase, durations } = this.#phases;
    const t = treatmentOf[k];
    if (k === firstPhase[t]) {
      this.#start[t] = this.#out.length;
      this.#out.text("[");
    } else if (this.#last === k - 1 && !this.#scattered[t]) this.#out.text(",");
    else this.#scattered[t] = 1;
    this.#phaseStart[k] = this.#out.length;
    this.#out.text(`{"duration":${durations[k]},"channels":[`);
    this.#open = k;
    this.#openHasChannels = false;
  }

  #closeOpen(): void {
    const k = this.#open;
    if (k < 0) return;
    this.#out.text("]}");
    this.#phaseEnd[k] = this.#out.length;
    const { treatmentOf, firstPhase, phaseCount } = this.#phases;
    const t = treatmentOf[k];
    if (k === firstPhase[t] + phaseCount[t] - 1 && !this.#scattered[t]) {
      this.#out.text("]");
      this.#end[t] = this.#out.length;
    }
    this.#last = k;
    this.#open = -1;
  }
}
