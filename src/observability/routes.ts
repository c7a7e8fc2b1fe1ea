// Route templates for logs, metrics and the debug extension: a call made without a template would
// carry its concrete path, so any segment that is neither a fixed word nor a `:param` becomes `:id`.
import { routeTemplate } from '../rest/paths.ts';

/** Templates are a few dozen strings, asked for on every upstream call: each is worked out once. */
const known = new Map<string, string>();
const MAX_KNOWN = 1000;

export function safeRoute(route: string): string {
  let safe = known.get(route);
  if (safe === undefined) {
    safe = (route.split('?')[0] ?? route)
      .split('/')
      .map((part) => (part.startsWith(':') ? part : routeTemplate(part)))
      .join('/');
    if (known.size < MAX_KNOWN) known.set(route, safe);
  }
  return safe;
}
