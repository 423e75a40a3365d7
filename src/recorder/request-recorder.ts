import { checkOptions, type OptionKeys } from '../core/check-options.js';
import { ContextError, toContextError } from '../core/errors.js';
import { generateMessageId, type IdGenerator } from '../core/ids.js';
import type { ObservedRequest, ObservedUsage, RequestObserver } from '../pipeline/request-observer.js';
import { RecentRequests } from './recent-requests.js';
import { REQUEST_RECORD_VERSION, type RecorderRecord, type UsageRecord } from './request-record.js';
import type { RequestRecordStore } from './request-record-store.js';
import { toRequestRecord } from './to-request-record.js';

/** Options for {@link RequestRecorder}. */
export type RequestRecorderOptions = {
  /** Where the lines go: `JsonlRequestStore`, `SqliteRequestStore`, `PostgresRequestStore`. */
  readonly store: RequestRecordStore;
  /** Record the full messages of each request (needed to replay or diff their text), not only their hashes. @default true */
  readonly includeMessages?: boolean;
  /** The session key of requests built without one. @default 'default' */
  readonly sessionKey?: string;
  /** What a failed write does: `throw` fails the build; `warn` reports it to `onWarning` and goes on. @default 'throw' */
  readonly onStoreError?: 'throw' | 'warn';
  /** Receives write failures under `onStoreError: 'warn'`, and usage reports that match no request. @default none */
  readonly onWarning?: (warning: { readonly code: string; readonly message: string }) => void;
  /** The clock for `at`. @default () => new Date() */
  readonly clock?: () => Date;
  /** Makes record ids. @default random 32-hex ids */
  readonly generateId?: IdGenerator;
};

/** The keys of {@link RequestRecorderOptions}, for `checkOptions`. @internal */
export const REQUEST_RECORDER_OPTION_KEYS = {
  store: true,
  includeMessages: true,
  sessionKey: true,
  onStoreError: true,
  onWarning: true,
  clock: true,
  generateId: true,
} as const satisfies OptionKeys<RequestRecorderOptions>;

/** Defaults of {@link RequestRecorderOptions}. */
export const DEFAULT_REQUEST_RECORDER = Object.freeze({
  includeMessages: true,
  sessionKey: 'default',
  onStoreError: 'throw',
} as const);

/**
 * A {@link RequestObserver} that appends every request built, and the usage the provider reports for
 * it, as plain JSON lines to a store (see `docs/recorder.md` for the format). Pass it as `observer` to
 * a builder, the governor, `createPrepareStep` or `ctxloomMiddleware`. Writes are serialised in call
 * order; `flush()` waits for them.
 *
 * @example
 * const recorder = new RequestRecorder({ store: JsonlRequestStore.besideSessions('./workspace/sessions') });
 * const builder = ContextBuilder.forChat({ systemPrompt: 'Be brief.', observer: recorder });
 */
export class RequestRecorder implements RequestObserver {
  readonly specificationVersion = 'v1';
  readonly id = 'request-recorder';
  readonly store: RequestRecordStore;
  readonly #options: Required<
    Pick<RequestRecorderOptions, 'includeMessages' | 'sessionKey' | 'onStoreError' | 'clock' | 'generateId'>
  > &
    Pick<RequestRecorderOptions, 'onWarning'>;
  readonly #recent = new RecentRequests<string>();
  #tail: Promise<void> = Promise.resolve();

  constructor(options: RequestRecorderOptions) {
    checkOptions(options, { where: 'new RequestRecorder options', known: REQUEST_RECORDER_OPTION_KEYS });
    this.store = options.store;
    this.#options = {
      ...DEFAULT_REQUEST_RECORDER,
      clock: () => new Date(),
      generateId: generateMessageId,
      ...definedOnly(options),
    };
  }

  /** Records the request (and the prior step's usage it carries); returns the record id. */
  async observeRequest(request: ObservedRequest): Promise<string> {
    if (request.priorUsage !== undefined) await this.observeUsage(request.priorUsage);
    const id = this.#options.generateId();
    const sessionKey = request.sessionKey ?? this.#options.sessionKey;
    const record = toRequestRecord(request, {
      id,
      at: this.#options.clock().toISOString(),
      sessionKey,
      includeMessages: this.#options.includeMessages,
    });
    this.#recent.add({
      id,
      value: sessionKey,
      ...(request.runId === undefined ? {} : { runId: request.runId }),
      ...(request.stepNumber === undefined ? {} : { stepNumber: request.stepNumber }),
    });
    await this.#write(record);
    return id;
  }

  /**
   * Records the provider's usage for a request: the one named by `requestId`, else the one of
   * `runId` + `stepNumber`, else the latest request that has no usage yet.
   */
  async observeUsage(usage: ObservedUsage): Promise<void> {
    const target = this.#recent.match(usage);
    if (target === undefined) {
      this.#options.onWarning?.({
        code: 'USAGE_UNMATCHED',
        message:
          'Usage was reported, but no recorded request matches it; report it after the request is built.',
      });
      return;
    }
    const { requestId: _requestId, runId: _runId, stepNumber: _stepNumber, ...numbers } = usage;
    const record: UsageRecord = {
      type: 'usage',
      version: REQUEST_RECORD_VERSION,
      requestId: target.id,
      at: this.#options.clock().toISOString(),
      sessionKey: target.value,
      ...numbers,
    };
    await this.#write(record);
  }

  /** Resolves when every write started so far has finished. */
  flush(): Promise<void> {
    return this.#tail;
  }

  #write(record: RecorderRecord): Promise<void> {
    const write = this.#tail.then(() => this.store.append(record));
    this.#tail = write.catch(() => undefined);
    return write.catch((error: unknown) => {
      const failure = toContextError(error, 'STORE_UNAVAILABLE');
      if (this.#options.onStoreError === 'throw') throw failure;
      this.#options.onWarning?.({
        code: failure.code,
        message: `The request log was not written: ${failure.message}`,
      });
    });
  }
}

function definedOnly(options: RequestRecorderOptions): Partial<RequestRecorderOptions> {
  const entries = Object.entries(options).filter(([key, value]) => key !== 'store' && value !== undefined);
  if (options.sessionKey === '') {
    throw new ContextError({
      code: 'INVALID_OPTIONS',
      message: "RequestRecorder sessionKey must not be empty; leave it out for 'default'.",
    });
  }
  return Object.fromEntries(entries);
}
