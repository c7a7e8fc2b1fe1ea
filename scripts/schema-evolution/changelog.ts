// CHANGELOG.md in Keep a Changelog's shape: `## [Unreleased]`, then one `## [x.y.z] - YYYY-MM-DD`
// section per release. A version not released yet has no date (or `- Unreleased`). A breaking change
// is acknowledged by naming its coordinate in backticks (`Organization.slug`) in the section of a
// version that is an incompatible bump from the last release.
import { compareVersions, isIncompatibleBump, isVersion, nextIncompatibleVersion } from './versions.ts';

export interface ChangelogSection {
  /** The version, or undefined for `## [Unreleased]`. */
  version?: string;
  /** YYYY-MM-DD, once released. */
  date?: string;
  body: string;
}

const HEADING = /^## \[([^\]]+)\](?: - (.+?))?\s*$/;
const DATE = /^\d{4}-\d{2}-\d{2}$/;

/** Throws when a section heading is not one of the shapes above, so no section is silently merged into another. */
export function readChangelog(text: string): ChangelogSection[] {
  const sections: ChangelogSection[] = [];
  text.split('\n').forEach((line, index) => {
    if (!line.startsWith('## ')) {
      const current = sections.at(-1);
      if (current) current.body += `${line}\n`;
      return;
    }
    const [, name = '', date] = HEADING.exec(line) ?? [];
    const named = name === 'Unreleased' || isVersion(name);
    const dated = date === undefined || date === 'Unreleased' || DATE.test(date);
    if (!named || !dated || (name === 'Unreleased' && date !== undefined)) {
      throw new Error(
        `CHANGELOG.md line ${index + 1}: a section heading is \`## [x.y.z] - YYYY-MM-DD\`, \`## [x.y.z]\` or \`## [Unreleased]\`, not \`${line}\`.`,
      );
    }
    sections.push({ version: isVersion(name) ? name : undefined, date: date && DATE.test(date) ? date : undefined, body: '' });
  });
  return sections;
}

type Acknowledgement = { version: string } | { missing: string };

/**
 * Where a breaking change since `released` is acknowledged: a section naming `coordinate`, for a
 * version that is an incompatible bump from `released` (and not past `releasing`, when a release is
 * being cut). Otherwise what is missing, in words.
 */
export function acknowledgementOf(
  coordinate: string,
  sections: readonly ChangelogSection[],
  released: string,
  releasing?: string,
): Acknowledgement {
  const needed = nextIncompatibleVersion(released);
  const naming = sections.filter(
    ({ version, body }) => body.includes(`\`${coordinate}\``) && (version === undefined || compareVersions(version, released) > 0),
  );
  const enough = naming.find(
    ({ version }) => version && isIncompatibleBump(released, version) && (!releasing || compareVersions(version, releasing) <= 0),
  );
  if (enough?.version) return { version: enough.version };
  const fix = `name \`${coordinate}\` under \`## [${needed}]\` (or a later incompatible version) in CHANGELOG.md`;
  if (naming.length === 0) return { missing: `not acknowledged: ${fix}` };
  const why = ({ version }: ChangelogSection) =>
    !version
      ? 'Unreleased, which has no version'
      : !isIncompatibleBump(released, version)
        ? `${version}, a compatible bump from ${released}`
        : `${version}, which is not part of ${releasing}`;
  return { missing: `named under ${naming.map(why).join('; ')}: ${fix}` };
}
