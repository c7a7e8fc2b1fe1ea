// The versioning policy (docs/schema-evolution.md) as code: versions are x.y.z, and a breaking change
// needs an incompatible bump as npm's caret range reads one: the leftmost non-zero part goes up
// (1.4.2 -> 2.0.0, 0.3.1 -> 0.4.0, 0.0.3 -> 0.0.4). No pre-release or build suffixes: releases never use them.

const VERSION = /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)$/;

export function isVersion(text: string): boolean {
  return VERSION.test(text);
}

function partsOf(version: string): [number, number, number] {
  const match = VERSION.exec(version);
  if (!match) throw new Error(`${version} is not a version x.y.z.`);
  return [Number(match[1]), Number(match[2]), Number(match[3])];
}

/** Negative when `a` is older than `b`, 0 when equal, positive when newer. */
export function compareVersions(a: string, b: string): number {
  const [x, y] = [partsOf(a), partsOf(b)];
  return x[0] - y[0] || x[1] - y[1] || x[2] - y[2];
}

/** The smallest version a breaking change after `version` may be released as. */
export function nextIncompatibleVersion(version: string): string {
  const [major, minor, patch] = partsOf(version);
  if (major > 0) return `${major + 1}.0.0`;
  if (minor > 0) return `0.${minor + 1}.0`;
  return `0.0.${patch + 1}`;
}

export function isIncompatibleBump(from: string, to: string): boolean {
  return compareVersions(to, nextIncompatibleVersion(from)) >= 0;
}
