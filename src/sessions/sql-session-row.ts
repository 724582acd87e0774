import { sessionOfParts } from './session-of-parts.js';
import type { Session, SessionEvent, SessionSummary } from './session-store.js';

/** A row of the `sessions` table of the SQL stores (SQLite and PostgreSQL share the columns). */
export interface SqlSessionRow {
  id: number | string;
  app_name: string;
  user_id: string;
  session_id: string;
  version: number;
  /** The state as JSON text. */
  state: string;
  // pg returns bigint columns as strings.
  created_at: number | string;
  updated_at: number | string;
}

export function summaryOfSqlRow(row: SqlSessionRow): SessionSummary {
  return {
    appName: row.app_name,
    userId: row.user_id,
    sessionId: row.session_id,
    version: row.version,
    createdAt: Number(row.created_at),
    updatedAt: Number(row.updated_at),
  };
}

/** A read's result from the session's row, its parsed state and its events (see session-of-parts.ts). */
export function sessionOfSqlRow(row: SqlSessionRow, state: Record<string, string>, events: SessionEvent[]): Session {
  const summary = summaryOfSqlRow(row);
  return sessionOfParts(summary, summary.version, summary.createdAt, summary.updatedAt, state, events);
}
