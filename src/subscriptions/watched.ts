// What a subscription watches and what its subscribers receive.
import type { GraphQLError } from 'graphql';
import type { Loaders } from '../loaders/index.ts';

export interface WatchedResource<T> {
  /** What is watched, e.g. `batchExport <organization id> <id>`: with the caller's tag, the identity of its poll. */
  key: string;
  /** The REST path the poll reads: a write through the gateway at or below it (or a delete above it) polls again (hub.ts). */
  path: string;
  /** One poll, through a fresh set of loaders; null when the record is gone (404). */
  fetch(loaders: Loaders): Promise<T | null>;
}

/** An event of the stream: the record as polled, or an error of its own (the stream's last when `final`). */
export type PollEvent<T> = { record: T } | { error: GraphQLError; final: boolean };

/**
 * Makes one poll for a caller's key: a fresh per-poll context through the request transport path
 * (cache, budget, circuit breakers), cancelled by `signal`.
 */
export type PollRunner = <T>(key: string, signal: AbortSignal, fetch: (loaders: Loaders) => Promise<T>) => Promise<T>;
