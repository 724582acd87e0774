import { z } from 'zod';
import { functionOption } from '../config/option-schemas.js';

const namesOrAll = (what: string) =>
  z.union(
    [
      z.literal('all'),
      z.array(
        z
          .string()
          .trim()
          .min(1, { error: `must be ${what} names or "all"` }),
      ),
    ],
    {
      error: `must be an array of ${what} names or "all"`,
    },
  );

/** `ApprovalOptions`, as the factories that take an `approval` option check it. */
export const approvalOptionsSchema = z.looseObject(
  {
    tools: namesOrAll('tool').optional(),
    skills: namesOrAll('skill').optional(),
    decide: functionOption('(request) => "allow-once" | "allow-always" | "deny"').optional(),
    onEvent: functionOption('(event) => void').optional(),
  },
  { error: 'must be an object: { tools?, skills?, decide?, onEvent? }' },
);
