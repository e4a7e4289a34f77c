/** What the gateway recorded: its usage ledger rows, read from its database (WAL: readers welcome). */
import { DatabaseSync } from 'node:sqlite';

export interface LedgerRow {
  surface: string;
  model: string;
  family: string;
  stream: number;
  status: number;
  outcome: string;
}

/** Rows written since the call before; waits out the ledger's 100 ms write window first. */
export async function ledgerRows(
  databasePath: string,
  afterId = 0,
): Promise<Array<LedgerRow & { id: number }>> {
  await new Promise((resolveWait) => setTimeout(resolveWait, 400));
  const database = new DatabaseSync(databasePath, { readOnly: true });
  try {
    const rows = database
      .prepare(
        'SELECT id, surface, model, family, stream, status, outcome FROM usage_ledger WHERE id > ? ORDER BY id',
      )
      .all(afterId);
    return rows as unknown as Array<LedgerRow & { id: number }>;
  } finally {
    database.close();
  }
}
