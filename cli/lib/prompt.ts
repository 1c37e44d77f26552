/** Reading the e-mail and password for `login`: a prompt on a terminal, else standard input. */
import { UsageError } from "./errors.ts";

const encoder = new TextEncoder();

/** The password: typed without echo on a terminal, else the first line of standard input. */
export async function readPassword(): Promise<string> {
  const password = Deno.stdin.isTerminal() ? await promptHidden("Password: ") : await readFirstLine();
  if (password === null || password === "") throw new UsageError("No password given.");
  return password;
}

/** A visible prompt on a terminal (only called when stdin is one). */
export async function promptLine(question: string): Promise<string> {
  Deno.stderr.writeSync(encoder.encode(question));
  return (await readFirstLine()) ?? "";
}

/** Reads standard input up to the first newline only, so nothing after it is consumed needlessly. */
async function readFirstLine(): Promise<string | null> {
  const decoder = new TextDecoder();
  const buf = new Uint8Array(1024);
  let text = "";
  while (true) {
    const n = await Deno.stdin.read(buf);
    if (n === null) return text === "" ? null : text.replace(/\r$/, "");
    text += decoder.decode(buf.subarray(0, n), { stream: true });
    const nl = text.indexOf("\n");
    if (nl >= 0) return text.slice(0, nl).replace(/\r$/, "");
  }
}

async function promptHidden(question: string): Promise<string> {
  const decoder = new TextDecoder();
  const buf = new Uint8Array(256);
  const chars: string[] = [];
  // Echo goes off before the prompt shows, so nothing typed after the prompt is ever echoed.
  Deno.stdin.setRaw(true);
  Deno.stderr.writeSync(encoder.encode(question));
  try {
    while (true) {
      const n = await Deno.stdin.read(buf);
      if (n === null) break;
      for (const ch of decoder.decode(buf.subarray(0, n), { stream: true })) {
        if (ch === "\r" || ch === "\n") return chars.join("");
        if (ch === "\x03") throw new UsageError("Cancelled."); // Ctrl-C arrives as a byte in raw mode
        if (ch === "\x04" && chars.length === 0) return "";
        if (ch === "\x7f" || ch === "\b") chars.pop();
        else if (ch >= " ") chars.push(ch);
      }
    }
    return chars.join("");
  } finally {
    Deno.stdin.setRaw(false);
    Deno.stderr.writeSync(encoder.encode("\n"));
  }
}
