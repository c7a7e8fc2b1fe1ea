import { describe, expect, it } from 'vitest';
import { buildPath, InvalidPathSegmentError, segment } from '../../src/upstream/paths.ts';

describe('segment', () => {
  it.each([
    ['a/b', 'a%2Fb'],
    ['a?b#c', 'a%3Fb%23c'],
    ['100%', '100%25'],
    ['zoë 🦔', 'zo%C3%AB%20%F0%9F%A6%94'],
    ['...', '...'],
    [42, '42'],
  ])('encodes %j as one segment', (value, encoded) => {
    expect(segment(value)).toBe(encoded);
  });

  it.each(['', '.', '..', '\uD800', Number.NaN, 1.5])('rejects %j', (value) => {
    expect(() => segment(value, 'organization_id')).toThrow(InvalidPathSegmentError);
  });

  it('names the parameter, never a path, in its message', () => {
    expect(() => segment('..', 'organization_id')).toThrow('Invalid organization_id: it must not be empty, "." or "..".');
  });
});

describe('buildPath', () => {
  it('fills the template and always ends with a slash', () => {
    expect(buildPath('/api/organizations/:organization_id/domains/:id/', { organization_id: 'o/1', id: 'd?2' })).toBe(
      '/api/organizations/o%2F1/domains/d%3F2/',
    );
    expect(buildPath('/api/organizations')).toBe('/api/organizations/');
  });

  it('throws on a missing parameter (a programming error, not user input)', () => {
    expect(() => buildPath('/api/organizations/:id/', {})).toThrow(/no value for :id/);
  });
});
