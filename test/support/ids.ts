// Ids the specs share.

/** A well-formed UUID that no record has: a lookup of it is a 404 upstream. */
export const UNKNOWN_UUID = '00000000-0000-4000-8000-000000000000';
