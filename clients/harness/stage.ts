/**
 * One test file's stage: a gateway, the recording proxy in front of it, and the helpers a case uses
 * to run a client and explain a failure (the client's output and every request it made).
 */
import { startGateway, type RunningGateway } from './gateway.ts';
import { ledgerRows, type LedgerRow } from './ledger.ts';
import { describeExchanges, startRecorder, type RecordedExchange, type Recorder } from './recorder.ts';
import { describeRun, runClient, type ClientRun, type ClientSpec } from './run-client.ts';

export interface Stage {
  gateway: RunningGateway;
  recorder: Recorder;
  /** The base URL clients are given (the recorder's). */
  url: string;
  run: (spec: ClientSpec) => Promise<CaseResult>;
  stop: () => Promise<void>;
}

export interface CaseResult {
  run: ClientRun;
  /** What this run sent and got. */
  exchanges: RecordedExchange[];
  /** The gateway's ledger rows for this run's requests (read once the ledger has written them). */
  ledger: () => Promise<LedgerRow[]>;
  /** The run and its requests, for an assertion message. */
  explain: () => string;
}

/** `config`: the gateway's config file, when the case needs one. */
export async function startStage(config?: object): Promise<Stage> {
  const gateway = await startGateway(config);
  const recorder = await startRecorder(gateway.url);
  return {
    gateway,
    recorder,
    url: recorder.url,
    run: async (spec) => {
      const first = recorder.exchanges.length;
      const lastRowBefore = (await ledgerRows(gateway.databasePath)).at(-1)?.id ?? 0;
      const run = await runClient(spec);
      const exchanges = recorder.exchanges.slice(first);
      return {
        run,
        exchanges,
        ledger: () => ledgerRows(gateway.databasePath, lastRowBefore),
        explain: () =>
          `${spec.name}: ${describeRun(run)}\n--- requests it made\n${describeExchanges(exchanges)}\n--- gateway log: ${gateway.logPath}`,
      };
    },
    stop: async () => {
      await recorder.close();
      await gateway.stop();
    },
  };
}
