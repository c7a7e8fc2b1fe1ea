// docs/configuration.md's tables, printed from the declaration (`npm run config:docs`), so the page
// says what loadConfig does: one table per area, a row per setting with its default and what it accepts.
import { AREAS, type Setting } from './settings.ts';

const START = '<!-- settings: printed by `npm run config:docs` from src/config/settings.ts; edit there -->';
const END = '<!-- end of settings -->';

function settingsTables(): string {
  const sections = AREAS.map(({ title, intro, settings }) => {
    const rows = Object.entries(settings).map(([name, setting]) => row(name, setting as Setting<unknown>));
    return [`### ${title}`, '', intro, '', '| variable | default | accepts | meaning |', '|---|---|---|---|', ...rows].join('\n');
  });
  return [START, '', ...sections.flatMap((section) => [section, '']), END].join('\n');
}

function row(name: string, setting: Setting<unknown>): string {
  const shown = setting.default === undefined ? 'unset' : `\`${String(setting.default)}\``;
  const byDefault = setting.note ? `${shown} (${setting.note})` : shown;
  return `| \`${name}\` | ${byDefault} | ${setting.kind.accepts} | ${setting.description} |`;
}

/** `page` with its printed tables replaced by today's. */
export function withSettingsTables(page: string): string {
  const start = page.indexOf(START);
  const end = page.indexOf(END);
  if (start === -1 || end < start) throw new Error(`docs/configuration.md has no "${START}" … "${END}" section.`);
  return page.slice(0, start) + settingsTables() + page.slice(end + END.length);
}
