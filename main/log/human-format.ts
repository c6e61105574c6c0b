/**
 * The engine's log for a person at a terminal (`nas-mirror run` without --log-json): each
 * JSON line of the logger (logger.ts) written as a line for people (app/cli/human-log.ts).
 */
import { humanLine, type HumanLineOptions } from '../../app/cli/human-log.js';
import type { LogSink } from './logger.js';

/** A sink writing each JSON line of the logger as a line for people to `out` (the engine's decisions in plain words). */
export const humanSink = (out: LogSink, opts: HumanLineOptions = {}): LogSink => ({
  write: (line) => out.write(humanLine(line.replace(/\n$/, ''), opts)),
});
