/** One-request HTTP GETs on Node's node:http: no agent (a fresh connection each), body discarded. */
import { request } from 'node:http';
import type { HttpClient } from './http';

export const realHttpClient: HttpClient = {
  get(target, handlers) {
    let aborted = false;
    const req = request(
      { host: target.host, port: target.port, path: target.path, method: 'GET', agent: false, headers: { ...target.headers } },
      (response) => {
        response.on('error', () => {}); // destroyed by the caller's abort on purpose
        response.resume();
        if (!aborted) handlers.onStatus(response.statusCode ?? 0);
      },
    );
    req.on('error', (error) => {
      if (!aborted) handlers.onError(error);
    });
    req.end();
    return () => {
      aborted = true;
      req.destroy();
    };
  },
};
