/**
 * Runs one asynchronous job per item with at most `limit` in flight, in the items' order, and resolves once all
 * have settled (a job's failure is its own to handle: it must not reject). How the controller writes thousands
 * of Service statuses and events without waiting for each answer before sending the next, yet without opening
 * thousands of requests at once against the API server (client-go's default client allows QPS 5, burst 10 per
 * controller; an API server's max-requests-inflight defaults to 400 for the whole cluster).
 */
export async function forEachBounded<T>(items: readonly T[], limit: number, job: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const item = items[next++] as T;
      await job(item);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker));
}
