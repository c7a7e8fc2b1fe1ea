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

builder.queryType({ description: 'The read side of the organization management API.' });

export const schema = builder.toSchema();
