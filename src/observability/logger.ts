// One pino logger per process: JSON lines to stdout or LOG_FILE, with every field that could hold a
// key redacted. Log objects are built from named fields only (never a request or its headers), so
// redaction is the second line of defence, not the first. No line is longer than logMaxLineLength,
// whatever a caller sent.
import { type DestinationStream, type Logger, pino } from 'pino';
import { type LogLevel, loadLoggingConfig } from '../config/index.ts';
import { truncate } from '../truncate.ts';

export type { Logger } from 'pino';

interface LoggerSettings {
  logLevel: LogLevel;
  /** Append to this file (created with its directory); unset: stdout. */
  logFile?: string;
  /** Longest line, in characters (see boundedLine). */
  logMaxLineLength: number;
}

const SECRET_NAMES = ['authorization', 'cookie', 'set-cookie', 'key', 'apiKey', 'token', 'accessToken', 'password', 'secret'];

/** Secret-named fields at the top level and up to two levels down, and any `headers.authorization`/`cookie`. */
const REDACTED_PATHS = [
  ...SECRET_NAMES.map((name) => (/^\w+$/.test(name) ? name : `["${name}"]`)).flatMap((name) => [name, `*.${name}`, `*.*.${name}`]),
  'headers.authorization',
  'headers.cookie',
  '*.headers.authorization',
  '*.headers.cookie',
  '*.*.headers.authorization',
  '*.*.headers.cookie',
];

export function createLogger(settings: LoggerSettings, destination?: DestinationStream): Logger {
  return pino(
    {
      level: settings.logLevel,
      base: { pid: process.pid },
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
      redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
      serializers: { err: pino.stdSerializers.err },
      hooks: { streamWrite: boundedLine(settings.logMaxLineLength) },
    },
    // Written synchronously: a log line is never lost to an exit, a crash or a forced shutdown.
    destination ?? pino.destination({ dest: settings.logFile ?? 1, append: true, mkdir: true, sync: true }),
  );
}

/**
 * A line longer than `maxLength` gets every string value cut to an eighth of it and `truncated:
 * true`; if that is still too long, only its level, time, pid, request id and message remain. Lines
 * within the limit (every request line) cost one length check.
 */
function boundedLine(maxLength: number): (line: string) => string {
  const maxString = Math.floor(maxLength / 8);
  const cut = (value: unknown) => (typeof value === 'string' ? truncate(value, maxString) : value);
  return (line) => {
    if (line.length <= maxLength) return line;
    const record = JSON.parse(line) as Record<string, unknown>;
    const shortened = JSON.stringify({ ...record, truncated: true }, (_key, value: unknown) => cut(value));
    if (shortened.length < maxLength) return `${shortened}\n`;
    const { level, time, pid, requestId, msg } = record;
    return `${JSON.stringify({ level, time, pid, requestId: cut(requestId), msg: cut(msg), truncated: true })}\n`;
  };
}

let processLogger: Logger | undefined;

/** The process's logger from LOG_LEVEL/LOG_FILE, for gateways built without one (tests, scripts). */
export function defaultLogger(): Logger {
  processLogger ??= createLogger(loadLoggingConfig());
  return processLogger;
}
