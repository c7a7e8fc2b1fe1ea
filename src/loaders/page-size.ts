// The contract's page sizes (contract: Connections), shared by the connections that enforce them, the
// fan-out estimate that counts with them and the scans that page through a list. Imports nothing.

/** Records per page when a connection is given neither `first` nor `last`. */
export const DEFAULT_PAGE_SIZE = 20;

/** The largest `first`/`last`; also the page size asked of the upstream when the gateway pages through a whole list. */
export const MAX_PAGE_SIZE = 100;
