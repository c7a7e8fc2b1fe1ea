// Issue 51: a misspelled setting (UPSTREAM for UPSTREAM_URL, MAX_DEPT, LOGLEVEL) would start the
// gateway quietly on the default. At start, each variable that looks like a setting but is not one,
// and is close to one, is named with the setting it probably meant (main logs a warning; nothing
// refuses to start for it). Values are never read: a misspelled secret stays out of the log.
import { distance } from 'fastest-levenshtein';
import { SETTINGS } from './settings.ts';

/** A setting's shape: upper-case words joined by underscores. */
const SETTING_SHAPE = /^[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)*$/;

/** Variables of the system, of Node and npm, and those the OpenTelemetry SDK reads itself: never a typo of ours. */
const OTHERS = new Set([
  'PATH',
  'HOME',
  'HOSTNAME',
  'HOSTTYPE',
  'USER',
  'LOGNAME',
  'SHELL',
  'PWD',
  'OLDPWD',
  'TERM',
  'LANG',
  'TZ',
  'TMPDIR',
]);
const OTHER_PREFIXES =
  /^(?:NODE_|NPM_|LC_|XDG_|KUBERNETES_|OTEL_(?:LOG_LEVEL|RESOURCE_ATTRIBUTES|PROPAGATORS|BSP_|BLRP_|METRIC|LOGS_|EXPORTER_OTLP_(?:METRICS_|LOGS_)|EXPORTER_OTLP_(?:TRACES_)?(?:TIMEOUT|COMPRESSION|CERTIFICATE|CLIENT_|INSECURE)))/;

interface Misspelling {
  /** The variable as set. */
  variable: string;
  /** The setting it is closest to. */
  setting: string;
}

/** The variables of `env` that are probably misspelled settings, each with the setting it is closest to. */
export function misspelledSettings(env: Record<string, string | undefined>): Misspelling[] {
  const known = Object.keys(SETTINGS);
  const found: Misspelling[] = [];
  for (const variable of Object.keys(env)) {
    if (!SETTING_SHAPE.test(variable) || variable in SETTINGS || OTHERS.has(variable) || OTHER_PREFIXES.test(variable)) continue;
    const setting = known.find((name) => isTypo(variable, name)) ?? known.find((name) => differsByOneWord(variable, name));
    if (setting) found.push({ variable, setting });
  }
  return found;
}

/** One edit for a short name, two for a longer one (MAX_DEPT, LOGLEVEL, MAX_DEPHT). */
function isTypo(variable: string, setting: string): boolean {
  return distance(variable, setting) <= (setting.length < 8 ? 1 : 2);
}

/**
 * A setting of two words or more with one of them missing, or one word more (UPSTREAM, CACHE_TTL,
 * MAX_REQUEST_BODY_BYTES). Not one-word settings: KUBERNETES_PORT and APP_HOST are someone else's.
 */
function differsByOneWord(variable: string, setting: string): boolean {
  const settingWords = setting.split('_');
  if (settingWords.length < 2) return false;
  const [shorter, longer] = [variable.split('_'), settingWords].sort((a, b) => a.length - b.length) as [string[], string[]];
  if (longer.length !== shorter.length + 1) return false;
  return longer.some((_, skipped) => longer.filter((_, at) => at !== skipped).join('_') === shorter.join('_'));
}
