// Route templates for logs, metrics and the debug extension: a call made without a template would
// carry its concrete path, so any segment that is neither a fixed word nor a `:param` becomes `:id`.
import { routeTemplate } from '../rest/paths.ts';

export function safeRoute(route: string): string {
  return route
    .split('?')[0]!
    .split('/')
    .map((part) => (part.startsWith(':') ? part : routeTemplate(part)))
    .join('/');
}
