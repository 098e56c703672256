// A progress bar on standard error for the bulk commands; silent when standard error is not a terminal, so
// logs and pipes get only the summary.
import type { Writable } from 'node:stream';
import { SingleBar, Presets } from 'cli-progress';

export interface Progress {
  update(value: number): void;
  stop(): void;
}

/** On `stream` (the command's standard error); `total` undefined: a counter without a bar (the number of items is not known in advance). */
export function progressBar(stream: Writable, label: string, unit: string, total?: number): Progress {
  const format = total === undefined ? `${label} {value} ${unit} {duration}s` : `${label} [{bar}] {percentage}% {value}/{total} ${unit} {duration}s`;
  const bar = new SingleBar({ format, hideCursor: true, stream, etaBuffer: 50 }, Presets.shades_classic);
  bar.start(total ?? 0, 0);
  return { update: (value) => bar.update(value), stop: () => bar.stop() };
}
