import type { ObservedRequest, ObservedUsage, RequestObserver } from '../pipeline/request-observer.js';

/**
 * One observer that tells several, in order (e.g. a `RequestRecorder` and a telemetry observer).
 * `observeRequest` returns the first id any of them returned; `observeUsage` passes that id on only
 * to the observer that made it, and the usage without it to the others.
 */
export function combineRequestObservers(observers: readonly RequestObserver[]): RequestObserver {
  const ids = new Map<string, Map<RequestObserver, string>>();
  return {
    specificationVersion: 'v1',
    id: `combined(${observers.map((observer) => observer.id).join(',')})`,
    async observeRequest(request: ObservedRequest) {
      const made = new Map<RequestObserver, string>();
      for (const observer of observers) {
        const id = await observer.observeRequest(request);
        if (id !== undefined) made.set(observer, id);
      }
      const [first] = made.entries();
      if (first === undefined) return undefined;
      ids.set(first[1], made);
      // Usage comes soon after its request; remember the recent ones only.
      if (ids.size > 512) ids.delete(ids.keys().next().value ?? '');
      return first[1];
    },
    async observeUsage(usage: ObservedUsage) {
      const made = usage.requestId === undefined ? undefined : ids.get(usage.requestId);
      for (const observer of observers) {
        const own = made?.get(observer);
        const { requestId: _requestId, ...rest } = usage;
        await observer.observeUsage?.(own === undefined ? rest : { ...rest, requestId: own });
      }
    },
  };
}
