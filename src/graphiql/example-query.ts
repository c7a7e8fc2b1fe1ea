/** The example printed at start and opened in GraphiQL's first tab. */
export const EXAMPLE_QUERY = `# Organizations with a few of their records.
# Run it with the ▶ button or Ctrl-Enter.
query Dashboard {
  organizations(first: 2) {
    totalCount
    nodes {
      id
      name
      projects { databaseId name }
      batchExports(first: 5) {
        totalCount
        nodes { name interval paused }
        pageInfo { hasNextPage endCursor }
      }
      domains(first: 5) {
        nodes { domain isVerified }
      }
      members(first: 5) {
        nodes { level user { email } }
      }
    }
  }
}
`;
