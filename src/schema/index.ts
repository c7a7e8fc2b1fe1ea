// Imports every type file (each registers its types and fields) and builds the public schema.
import { builder } from './builder.ts';
import './scalars.ts';
import './node.ts';
import './organization.ts';
import './batch-export.ts';
import './domain.ts';
import './invite.ts';
import './member.ts';
import './user.ts';
import './pipeline/item.ts';
import './pipeline/families.ts';
import './project.ts';
import './survey.ts';
import './mutations/organization.ts';
import './mutations/batch-export.ts';
import './mutations/domain.ts';
import './mutations/invite.ts';
import './mutations/member.ts';
import './mutations/pipeline.ts';
import './mutations/survey.ts';
import './subscription.ts';

builder.queryType({ description: 'The read side of the organization management API.' });
builder.mutationType({
  description: 'The write side: Relay-style mutations whose results are unions of their payload and the errors the caller can fix.',
});

builder.subscriptionType({
  description:
    'Live records over Server-Sent Events (GraphQL over SSE, distinct connections): polled upstream once per key and record on this instance, pushed only when the selected data changed.',
});

export const schema = builder.toSchema();
